import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { request } from 'undici'
import { WebSocket } from 'ws'
import { REPO, isAlive, startSvc, stopAllTrees, waitGone, type SvcTree } from '../helpers/svc-process.js'

/**
 * A gateway reload (`svc dev --reload`) keeps proxied WebSockets (page sockets) on the worker it
 * replaced until they close or `gateway_ws_reload_grace_s` passes; then they get 1001 one by one,
 * spread over 10 s; new sockets go to the new worker; the old one exits once its sockets are gone.
 * Real `svc dev` tree, echo sidecar (it echoes every message), real `ws` clients.
 */
const appSource = (version: number) => `import { Svc } from 'svc'
export const app = new Svc({ title: 'Reload sockets' })
app.api.get('/version', async () => ({ version: ${version}, pid: process.pid }))
`

/** A client page socket: records its messages and how it closed. */
class PageSocket {
  readonly ws: WebSocket
  readonly messages: string[] = []
  readonly opened: Promise<void>
  readonly closed: Promise<{ code: number; at: number }>

  constructor(url: string) {
    this.ws = new WebSocket(url)
    this.ws.on('message', (d) => this.messages.push(d.toString()))
    this.ws.on('error', () => {})
    this.opened = once(this.ws, 'open').then(() => undefined)
    this.closed = once(this.ws, 'close').then(([code]) => ({ code: code as number, at: Date.now() }))
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN
  }

  /** Send `text` and wait for its echo. */
  async roundTrip(text: string, timeoutMs = 5_000): Promise<void> {
    this.ws.send(text)
    const deadline = Date.now() + timeoutMs
    while (!this.messages.includes(text)) {
      if (!this.open) throw new Error(`socket closed before the echo of ${text}`)
      if (Date.now() > deadline) throw new Error(`no echo of ${text} within ${timeoutMs} ms`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
}

describe('gateway reload keeps page sockets on the replaced worker', () => {
  let dir: string
  let file: string
  const sockets: PageSocket[] = []

  beforeAll(() => {
    dir = `${REPO}test/.tmp/reload-ws-${randomUUID()}`
    mkdirSync(dir, { recursive: true })
    file = `${dir}/app.ts`
  })
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.ws.terminate()
    await stopAllTrees()
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const served = async (svc: SvcTree): Promise<{ version: number; pid: number }> => {
    const res = await request(`${svc.url}/api/version`)
    return (await res.body.json()) as { version: number; pid: number }
  }

  /** Save version `v` and wait until a new worker serves it; returns that worker's pid. */
  async function reloadTo(svc: SvcTree, v: number): Promise<number> {
    writeFileSync(file, appSource(v))
    const deadline = Date.now() + 20_000
    for (;;) {
      const now = await served(svc)
      if (now.version === v) return now.pid
      if (Date.now() > deadline) throw new Error(`version ${v} not served within 20 s`)
      await new Promise((r) => setTimeout(r, 25))
    }
  }

  const connect = async (svc: SvcTree, name: string): Promise<PageSocket> => {
    const s = new PageSocket(`${svc.url.replace('http', 'ws')}/_stcore/stream/${name}`)
    sockets.push(s)
    await s.opened
    return s
  }

  it('sockets stay open and keep working across a reload, new ones go to the new worker; after the grace the old ones get 1001 spread out and the old worker exits', async () => {
    writeFileSync(file, appSource(1))
    // The HTTP drain (shutdown_grace_s) ends long before the WebSocket grace: the sockets outlive it.
    const svc = await startSvc({ command: 'dev', target: `${file}:app`, args: ['--reload'], env: { SVC_GATEWAY_WS_RELOAD_GRACE_S: '4', SVC_SHUTDOWN_GRACE_S: '1' } })
    await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
    const oldPid = (await served(svc)).pid
    const old = await Promise.all([1, 2, 3].map((i) => connect(svc, `old-${i}`)))
    for (const s of old) await s.roundTrip('before')

    const reloadedAt = Date.now()
    const newPid = await reloadTo(svc, 2)
    // The old worker is told to drain as soon as the new one is ready: about when this answer came.
    const draining = Date.now()
    expect(newPid).not.toBe(oldPid)
    // Before, every socket got 1001 the moment the old worker drained.
    for (const s of old) {
      expect(s.open).toBe(true)
      await s.roundTrip('after-reload')
    }
    expect(isAlive(oldPid)).toBe(true)
    const fresh = await connect(svc, 'new')
    await fresh.roundTrip('fresh')
    // Past the 1 s HTTP grace (and its forced close of HTTP connections), still relaying.
    while (Date.now() - draining < 2_000) await new Promise((r) => setTimeout(r, 50))
    for (const s of old) await s.roundTrip('after-http-grace')

    const closes = await Promise.all(old.map((s) => s.closed))
    expect(closes.map((c) => c.code)).toEqual([1001, 1001, 1001])
    // Not before the grace, and one by one: three sockets over a 10 s spread are ~3.3 s apart.
    const first = Math.min(...closes.map((c) => c.at))
    const last = Math.max(...closes.map((c) => c.at))
    expect(first - reloadedAt).toBeGreaterThanOrEqual(4_000)
    expect(last - first).toBeGreaterThanOrEqual(5_000)
    expect(await waitGone([oldPid], 10_000)).toEqual([])
    // The socket opened after the reload lives on the new worker: untouched by the old one's exit.
    expect(fresh.open).toBe(true)
    await fresh.roundTrip('still-here')
  }, 60_000)

  it('the replaced worker exits as soon as its last socket closes, long before the grace', async () => {
    writeFileSync(file, appSource(1))
    const svc = await startSvc({ command: 'dev', target: `${file}:app`, args: ['--reload'], env: { SVC_GATEWAY_WS_RELOAD_GRACE_S: '600' } })
    await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
    const oldPid = (await served(svc)).pid
    const s = await connect(svc, 'one')
    await reloadTo(svc, 2)
    await s.roundTrip('kept')
    expect(isAlive(oldPid)).toBe(true)
    s.ws.close(1000, 'tab closed')
    expect(await waitGone([oldPid], 10_000)).toEqual([])
  }, 60_000)

  it('a shutdown while a replaced worker keeps sockets closes them with 1001 and leaves no process', async () => {
    writeFileSync(file, appSource(1))
    const svc = await startSvc({ command: 'dev', target: `${file}:app`, args: ['--reload'], env: { SVC_GATEWAY_WS_RELOAD_GRACE_S: '600' } })
    await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
    const oldPid = (await served(svc)).pid
    const kept = await connect(svc, 'kept')
    await reloadTo(svc, 2)
    const fresh = await connect(svc, 'fresh')
    await kept.roundTrip('kept')
    const pids = svc.treePids()
    expect(pids).toContain(oldPid)
    expect(await svc.stop('SIGTERM')).toBe(0)
    expect((await kept.closed).code).toBe(1001)
    expect((await fresh.closed).code).toBe(1001)
    expect(await waitGone(pids, 10_000)).toEqual([])
  }, 60_000)
})
