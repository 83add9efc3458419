import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveSettings } from '../../../src/settings/resolve.js'
import pino from 'pino'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { Sidecar, type SidecarSpec } from '../../../supervisor/sidecar.js'
import { reserveLoopbackPort } from '../../../supervisor/bind.js'
import { connect } from 'node:net'
import { once } from 'node:events'

const dir = mkdtempSync(join(tmpdir(), 'svc-sidecar-lifecycle-'))
/** A "sidecar" that ignores SIGTERM: only destroy() (SIGKILL of its tree) ends it quickly. */
const stubborn = join(dir, 'stubborn.mjs')
writeFileSync(
  stubborn,
  `import { writeFileSync } from 'node:fs'\nprocess.on('SIGTERM', () => {})\nsetInterval(() => {}, 1000)\nwriteFileSync(${JSON.stringify(dir)} + '/up-' + process.pid, '')\n`,
)
/** A page server that listens on the socket it inherited only once the file `go` exists. */
const late = join(dir, 'late.mjs')
const go = join(dir, 'go')
writeFileSync(
  late,
  [
    "import http from 'node:http'",
    "import { existsSync } from 'node:fs'",
    "const srv = http.createServer((q, r) => r.end('late ' + q.url))",
    `const t = setInterval(() => { if (existsSync(${JSON.stringify(go)})) { clearInterval(t); srv.listen({ fd: Number(process.env.SVC_UI_LISTEN_FD) }) } }, 10)`,
  ].join('\n'),
)
const polite = join(dir, 'polite.mjs')
writeFileSync(polite, "setInterval(() => {}, 1000)\nprocess.send?.('up')\n")

const spec = (script: string): SidecarSpec => ({ kind: 'bundled', script, argv: [], env: process.env, healthUrl: 'http://127.0.0.1:9/', port: 9 })
const started: Sidecar[] = []
const PROFILE = { settings: resolveSettings([]), pages: [], file: 'app.ts', exportName: 'app', components: { folders: [], frameOrigins: [] } }
function start(script: string): Sidecar {
  const s = new Sidecar(spec(script))
  started.push(s)
  s.start(pino({ level: 'silent' }), PROFILE)
  return s
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.destroy()))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Until the stubborn sidecar `pid` has its SIGTERM handler in place (it says so in a file), or 10 s. */
async function ignoresSigterm(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!existsSync(join(dir, `up-${pid}`))) {
    if (Date.now() > deadline) throw new Error(`process ${pid} never got ready`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('Sidecar keeps the lifecycle contract', () => {
  it('never started: close() and destroy() resolve, each the same promise on repeat', async () => {
    const s = new Sidecar(spec(polite))
    const closed = s.close()
    expect(s.close()).toBe(closed)
    await closed
    const destroyed = s.destroy()
    expect(s.destroy()).toBe(destroyed)
    await destroyed
  })

  it('close() twice is the same promise and stops the process; destroy() after it is safe', async () => {
    const s = start(polite)
    const pid = s.pid!
    const closed = s.close()
    expect(s.close()).toBe(closed)
    await closed
    expect(s.exited).not.toBeNull()
    expect(() => process.kill(pid, 0)).toThrow()
    await s.destroy()
  })

  it('destroy() ends a sidecar that ignores SIGTERM at once; close() after it resolves', async () => {
    const s = start(stubborn)
    const destroyed = s.destroy()
    expect(s.destroy()).toBe(destroyed)
    const t0 = Date.now()
    await destroyed
    expect(Date.now() - t0).toBeLessThan(3_000)
    expect(s.exited?.signal).toBe('SIGKILL')
    await s.close()
  })

  it('destroy() cuts a close() waiting out the grace of a sidecar that ignores SIGTERM short', async () => {
    const s = start(stubborn)
    await ignoresSigterm(s.pid!)
    const closed = s.close()
    const t0 = Date.now()
    await s.destroy()
    await closed
    expect(Date.now() - t0).toBeLessThan(3_000)
    expect(s.exited?.signal).toBe('SIGKILL')
  })
})

describe('requests waiting for the page server', () => {
  it('a stats request still waiting when the sidecar exits is answered null at once, not after its timeout', async () => {
    const s = start(polite)
    let answer: unknown = 'waiting'
    const asked = s.stats(60_000, 0).then((a) => (answer = a))
    await s.close()
    await Promise.race([asked, new Promise((r) => setImmediate(r))])
    expect(answer).toBeNull()
    await expect(s.stats(60_000, 0)).resolves.toBeNull()
  })
})

describe('the bundled sidecar\'s port', () => {
  it('is held by the supervisor from the pick on and passed down: a request sent before the page server listens is answered once it does', async () => {
    const reserved = reserveLoopbackPort()
    const s = new Sidecar({ ...spec(late), port: reserved.port, listenSocket: reserved })
    started.push(s)
    s.start(pino({ level: 'silent' }), PROFILE)
    // A port the child binds itself refuses this connection until the child listens.
    const socket = connect(reserved.port, '127.0.0.1')
    await once(socket, 'connect')
    socket.end(`GET /early HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c))
    writeFileSync(go, '')
    await once(socket, 'close')
    expect(Buffer.concat(chunks).toString()).toMatch(/^HTTP\/1\.1 200[\s\S]*late \/early$/)
  })
})
