import { once } from 'node:events'
import { afterEach, describe, expect, it } from 'vitest'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { PageClient, textOf } from '../helpers/ui-sidecar.js'

/**
 * Real `svc run` trees with the bundled page server, driven through the gateway: one visitor
 * cannot stall or take down the page server with a huge page-socket message or a page that never
 * yields, and the others keep working.
 */
const TARGET = `${REPO}test/fixtures/ui-limits-app.ts:app`
const BUNDLED = { SVC_UI_COMMAND: undefined, SVC_LOG_FORMAT: 'json' }

type Render = Awaited<ReturnType<PageClient['render']>>

const clients: PageClient[] = []
async function visitor(svc: SvcTree, path: string, sessionId: string | null = null): Promise<{ c: PageClient; sessionId: string; render: Render }> {
  const c = await new PageClient(`${svc.url.replace('http:', 'ws:')}/_stcore/stream`).open()
  clients.push(c)
  c.send({ type: 'hello', sessionId, path, query: '' })
  const session = await c.next('session', 30_000)
  return { c, sessionId: session.sessionId, render: await c.render(30_000) }
}
const click = (c: PageClient, render: Render, key: string): void =>
  c.send({ type: 'widget', id: render.main.find((n) => n.props.key === key)!.id, value: true, trigger: true })

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
  await stopAllTrees()
}, 40_000)

describe('page server hardening on a real tree', () => {
  it('a 64 MB page-socket message is refused with 1009; the page server stays up and other sessions keep working', async () => {
    const svc = await startSvc({ target: TARGET, env: BUNDLED })
    const other = await visitor(svc, '/')
    const sender = await visitor(svc, '/')
    const closed = once(sender.c.ws, 'close') as Promise<[number, Buffer]>
    const id = sender.render.main.find((n) => n.props.key === 'add')!.id
    sender.c.ws.send(`{"v":1,"type":"widget","id":"${id}","value":"${'x'.repeat(64_000_000)}"}`)
    const [code] = await closed
    expect(code).toBe(1009)
    await svc.waitForLine('stdout', /SVC_ERR_UI_MESSAGE_TOO_LARGE/)

    click(other.c, other.render, 'add')
    expect(textOf(await other.c.render(10_000))).toBe('count=1')
    expect((await fetch(`${svc.url}/api/readyz`)).status).toBe(200)
    const again = await visitor(svc, '/')
    expect(textOf(again.render)).toBe('count=0')
  }, 120_000)

  it('a run over ui_run_timeout_s is stopped: a page that never yields loses its thread, its neighbour continues on a new one, a new visitor is served, the log names the page', async () => {
    const svc = await startSvc({ target: TARGET, env: { ...BUNDLED, SVC_UI_RUN_TIMEOUT_S: '2', SVC_UI_PAGE_THREADS: '1' } })
    // One thread: the neighbour and the runaway share it.
    const neighbour = await visitor(svc, '/spin')
    click(neighbour.c, neighbour.render, 'add')
    expect(textOf(await neighbour.c.render())).toBe('count=1')
    const runaway = await visitor(svc, '/spin')
    let runawayClosed = false
    runaway.c.ws.on('close', () => (runawayClosed = true))
    click(runaway.c, runaway.render, 'spin')
    await runaway.c.next('run_state', 10_000, (m) => m.running)

    // A new visitor while the only thread spins: served (one more thread starts for new sessions).
    const late = await visitor(svc, '/')
    expect(textOf(late.render)).toBe('count=0')

    expect(await runaway.c.next('run_stopped', 30_000)).toMatchObject({ seconds: 2 })
    await neighbour.c.next('resume', 30_000)
    neighbour.c.send({ type: 'hello', sessionId: neighbour.sessionId, path: '/spin', query: '' })
    expect(await neighbour.c.next('session', 30_000)).toMatchObject({ sessionId: neighbour.sessionId, restored: true })
    expect(textOf(await neighbour.c.render(30_000))).toBe('count=1')

    const line = JSON.parse(await svc.waitForLine('stdout', /SVC_ERR_UI_RUN_TIMEOUT/)) as Record<string, unknown>
    expect(line).toMatchObject({ level: 'error', logger: 'svc.ui', pages: ['/spin'], timeout_s: 2 })
    for (const id of [neighbour.sessionId, runaway.sessionId]) expect(JSON.stringify(line)).not.toContain(id)

    // The visitor's Rerun: a hello on the same socket runs the page again.
    expect(runawayClosed).toBe(false)
    runaway.c.send({ type: 'hello', sessionId: runaway.sessionId, path: '/spin', query: '' })
    await runaway.c.next('session', 30_000)
    expect(textOf(await runaway.c.render(30_000))).toBe('count=0')
    expect((await fetch(`${svc.url}/api/readyz`)).status).toBe(200)
  }, 120_000)

  it('a run that awaits past ui_run_timeout_s is stopped in place: the visitor is told, the thread keeps serving', async () => {
    const svc = await startSvc({ target: TARGET, env: { ...BUNDLED, SVC_UI_RUN_TIMEOUT_S: '1' } })
    const waiting = await visitor(svc, '/wait')
    click(waiting.c, waiting.render, 'wait')
    expect(await waiting.c.next('run_stopped', 20_000)).toMatchObject({ seconds: 1 })
    const line = JSON.parse(await svc.waitForLine('stdout', /ui page run took longer than/)) as Record<string, unknown>
    expect(line).toMatchObject({ level: 'warn', code: 'SVC_ERR_UI_RUN_TIMEOUT', page: '/wait' })
    expect(JSON.stringify(line)).not.toContain(waiting.sessionId)
    waiting.c.send({ type: 'hello', sessionId: waiting.sessionId, path: '/wait', query: '' })
    await waiting.c.next('session')
    expect(textOf(await waiting.c.render())).toBe('waiting\ndone')
  }, 90_000)

  it('with ui_run_timeout_s: 0 nothing is stopped: readyz answers 503 while every page thread is stalled, a new visitor is still served, and the stalled thread is reclaimed once its sockets are gone', async () => {
    const svc = await startSvc({ target: TARGET, env: { ...BUNDLED, SVC_UI_RUN_TIMEOUT_S: '0', SVC_UI_PAGE_THREADS: '1' } })
    const runaway = await visitor(svc, '/spin')
    click(runaway.c, runaway.render, 'spin')
    await runaway.c.next('run_state', 10_000, (m) => m.running)
    const deadline = Date.now() + 30_000
    let ready: { status: number; body: unknown }
    for (;;) {
      const res = await fetch(`${svc.url}/api/readyz`)
      ready = { status: res.status, body: await res.json() }
      if (ready.status === 503 || Date.now() > deadline) break
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    expect(ready).toMatchObject({ status: 503, body: { status: 'not_ready', detail: expect.stringContaining('503') } })
    const late = await visitor(svc, '/')
    expect(textOf(late.render)).toBe('count=0')
    expect((await fetch(`${svc.url}/api/readyz`)).status).toBe(200)

    // Its visitor leaves: the stalled thread, with no socket left, is reclaimed; the others go on.
    await runaway.c.close()
    const reclaimed = JSON.parse(await svc.waitForLine('stdout', /ui page thread reclaimed/, 30_000)) as Record<string, unknown>
    expect(reclaimed).toMatchObject({ level: 'info', logger: 'svc.ui' })
    click(late.c, late.render, 'add')
    expect(textOf(await late.c.render(10_000))).toBe('count=1')
  }, 90_000)
})
