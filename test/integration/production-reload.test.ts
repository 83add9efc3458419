import { randomUUID } from 'node:crypto'
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { gatewayWorkerPids, isAlive, REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { runSvcCli } from '../helpers/cli-run.js'
import { BrowserSession, SteadyLoad } from '../helpers/steady-load.js'
import type { ReloadReport, StatusReport } from '../../ipc/control.js'

/**
 * Issue #31: a running `svc run` tree takes new code with no failed request (`svc reload`),
 * refuses a broken save while the old code serves on, and says what runs (`svc status`).
 */
const appSource = (version: string, gatewayLoadMs = 0): string => `import { isMainThread } from 'node:worker_threads'
import { Svc } from ${JSON.stringify(`${REPO}dist/src/index.js`)}
// Page threads load at once; a gateway worker (and the probe) after ${gatewayLoadMs} ms.
if (isMainThread) await new Promise((resolve) => setTimeout(resolve, ${gatewayLoadMs}))
export const app = new Svc({ title: 'Ops' })
const VERSION = ${JSON.stringify(version)}
app.api.get('/version', async () => ({ version: VERSION, pid: process.pid }))
app.page('/', async (st, client) => {
  st.sessionState.clicks ??= 0
  if (st.button('Click')) st.sessionState.clicks = (st.sessionState.clicks as number) + 1
  const api = await (await client.get('/version')).json<{ version: string }>()
  st.text(VERSION + ' clicks=' + st.sessionState.clicks + ' api=' + api.version)
})
`

/**
 * A `ui_command` sidecar (argv: port, folder) whose second start listens only once `<folder>/go`
 * exists, and which ends on SIGTERM only once `<folder>/stop` exists: the test holds a full reload
 * at each step it looks at.
 */
const HELD_SIDECAR = `import http from 'node:http'
import { existsSync, writeFileSync } from 'node:fs'
const [port, folder] = process.argv.slice(2)
const first = !existsSync(folder + '/started')
writeFileSync(folder + '/started', '')
const server = http.createServer((q, r) => r.end('held'))
const when = (name, then) => { const t = setInterval(() => { if (existsSync(folder + '/' + name)) { clearInterval(t); then() } }, 20) }
if (first) server.listen(Number(port), '127.0.0.1')
else when('go', () => server.listen(Number(port), '127.0.0.1'))
process.on('SIGTERM', () => when('stop', () => process.exit(0)))
`

/** The version a fresh connection gets (a keep-alive one may still be draining on a replaced worker). */
async function servedVersion(svc: SvcTree): Promise<string> {
  const res = await request(`${svc.url}/api/version`, { reset: true })
  return ((await res.body.json()) as { version: string }).version
}

describe('svc reload on a running svc run tree', () => {
  let dir: string
  const file = (): string => join(dir, 'app.ts')
  beforeAll(() => {
    dir = `${REPO}test/.tmp/prod-reload-${randomUUID()}`
    mkdirSync(dir, { recursive: true })
  })
  afterEach(stopAllTrees)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('5 reloads under steady load: 0 failed requests, the new code served when svc reload returns, every page session keeps its state', async () => {
    writeFileSync(file(), appSource('v0'))
    const svc = await startSvc({ target: 'app.ts:app', cwd: dir, pidfile: true, args: ['--workers', '2'], env: { SVC_UI_COMMAND: undefined } })
    const sessions = [new BrowserSession(svc.url), new BrowserSession(svc.url), new BrowserSession(svc.url)]
    for (const [i, s] of sessions.entries()) {
      await s.open()
      for (let c = 0; c <= i; c++) await s.click('Click')
      expect(s.text).toBe(`v0 clicks=${i + 1} api=v0`)
    }
    const load = new SteadyLoad(svc.url, ['/api/version', '/', '/api/version', '/'])
    try {
      for (let v = 1; v <= 5; v++) {
        // The first reload's gateway workers come up seconds after the pages moved to the new code.
        writeFileSync(file(), appSource(`v${v}`, v === 1 ? 3_000 : 0))
        const reload = await runSvcCli(['reload'], { cwd: dir, timeoutMs: 120_000 })
        expect(reload.code, reload.stderr).toBe(0)
        expect(reload.stdout).toMatch(/^svc reload: ok \(command, gateway\) .*2 new gateway workers/)
        expect(await servedVersion(svc)).toBe(`v${v}`)
        // Each session follows its page to the new code with its count, as a browser would, and
        // shows the new API's answer without a click: pages rerun once the new workers serve. The
        // first reload leaves the sockets open (an untouched tab); later ones hurry the oldest
        // workers, whose sockets close, and the session reconnects as a browser does.
        for (const [i, s] of sessions.entries()) {
          const page = new RegExp(`^v${v} clicks=${i + 1} api=v${v}$`)
          await (v === 1 ? s.untilOnItsOwn(page) : s.until(page))
        }
      }
    } finally {
      const { ok, failures } = await load.stop()
      await Promise.all(sessions.map((s) => s.close()))
      expect(failures).toEqual([])
      expect(ok).toBeGreaterThan(50)
    }
    const status = await runSvcCli(['status', '--json'], { cwd: dir })
    expect(status.code, status.stderr).toBe(0)
    const report = JSON.parse(status.stdout) as StatusReport
    expect(report.reloads).toMatchObject({ ok: 5, failed: 0, last: { trigger: 'command', result: 'ok', scope: 'gateway' } })
  }, 240_000)

  it('svc status lists the workers a reload replaced while they drain, each row with its status; the reload time runs from receipt, probe and wait included', async () => {
    writeFileSync(file(), appSource('v0'))
    const svc = await startSvc({ target: 'app.ts:app', cwd: dir, pidfile: true, args: ['--workers', '2', '--host', '0.0.0.0'], env: { SVC_UI_COMMAND: undefined } })
    const before = await runSvcCli(['status'], { cwd: dir })
    expect(before.stdout.split('\n')[0]).toBe(`Ops (app.ts:app) at ${svc.url}/, listening on 0.0.0.0:${svc.port}`)
    // Page threads start with the first page session: none yet, and the table says so.
    expect(before.stdout).toMatch(/^page sessions: 0 \(no page thread yet: page threads start with the first page session\)$/m)
    expect(before.stdout).not.toMatch(/^page thread /m)
    expect(before.stdout).toMatch(/^role +id +status +pid +uptime /m)
    expect(before.stdout).toMatch(/^supervisor +supervisor +online +\d+ /m)
    expect(before.stdout).toMatch(/^gateway +gateway-1 +online +\d+ /m)

    // A page socket holds its gateway worker past the reload, until gateway_ws_reload_grace_s.
    const session = new BrowserSession(svc.url)
    await session.open()
    writeFileSync(file(), appSource('v1'))
    // Two at once: the second waits for the first, and its time counts the wait.
    const started = Date.now()
    const [a, b] = await Promise.all([0, 1].map(() => runSvcCli(['reload', '--json'], { cwd: dir, timeoutMs: 120_000 })))
    const ended = Date.now()
    const reports = [a!, b!].map((r) => {
      expect(r.code, r.stderr).toBe(0)
      return JSON.parse(r.stdout) as ReloadReport
    })
    for (const r of reports) {
      expect(Date.parse(r.at)).toBeGreaterThanOrEqual(started)
      expect(Date.parse(r.at) + r.duration_ms).toBeLessThanOrEqual(ended)
      expect(r.load_ms).toBeGreaterThan(0)
      expect(r.switch_ms).toBeGreaterThan(0)
      // The whole reload: the wait, the probe loading the app, the switch (a few ms of bookkeeping between).
      expect(r.duration_ms).toBeGreaterThanOrEqual(r.queued_ms + r.load_ms! + r.switch_ms)
      expect(r.duration_ms).toBeLessThan(r.queued_ms + r.load_ms! + r.switch_ms + 1_000)
    }
    const [first, second] = reports.sort((x, y) => x.queued_ms - y.queued_ms)
    // The first started at once (0 ms, or 1 when the clock ticks between receipt and start); the
    // second arrived while the first ran and waited for it.
    expect(first!.queued_ms).toBeLessThan(second!.queued_ms)
    expect(second!.queued_ms).toBeGreaterThan(0)
    expect(Date.parse(second!.at)).toBeLessThan(Date.parse(first!.at) + first!.duration_ms)

    const status = JSON.parse((await runSvcCli(['status', '--json'], { cwd: dir })).stdout) as StatusReport
    const running = gatewayWorkerPids(svc.pid)
    expect(status.app).toMatchObject({ listen: `0.0.0.0:${svc.port}`, workers: 2 })
    const gateways = status.processes.filter((p) => p.role === 'gateway')
    const online = gateways.filter((p) => p.status === 'online')
    const draining = gateways.filter((p) => p.status === 'draining')
    expect(online.map((p) => [p.id, p.pid])).toEqual([['gateway-0', second!.workers[0]], ['gateway-1', second!.workers[1]]])
    // The worker holding the page socket drains for a minute: listed, as ps shows it.
    expect(draining.length).toBeGreaterThanOrEqual(1)
    for (const p of draining) expect(p.id).toMatch(new RegExp(`^gateway-[01]@${p.pid}$`))
    expect(running.filter((pid) => isAlive(pid)).filter((pid) => !gateways.some((p) => p.pid === pid))).toEqual([])
    expect(draining.some((p) => isAlive(p.pid!))).toBe(true)
    expect(gateways.length).toBe(online.length + draining.length)
    for (const p of status.processes.filter((p) => p.role === 'supervisor' || p.role === 'sidecar')) expect(p.status, p.id).toBe('online')
    // The page session moved to the new code's thread; the old thread may still be handing over.
    const threads = status.processes.filter((p) => p.role === 'page_thread')
    expect(threads.filter((p) => p.status === 'online').length, JSON.stringify(threads)).toBeGreaterThanOrEqual(1)
    for (const p of threads) expect(['online', 'draining'], p.id).toContain(p.status)

    const human = (await runSvcCli(['status'], { cwd: dir })).stdout
    expect(human).toMatch(/^svc run, supervisor pid \d+, up \S+, 2 gateway workers \(\+\d draining after a reload or recycle\)$/m)
    expect(human).toMatch(/^gateway +gateway-\d@\d+ +draining +\d+ /m)
    expect(human).toMatch(/; last ok \(command, gateway\) \S+ ago, took \d+\.\d s \(waited \d+\.\d s for the reload under way, load \d+\.\d s, switch \d+\.\d s\): 2 new gateway workers/)
    await session.close()
  }, 120_000)

  it('a full reload lists the sidecar it replaces: online while the new one starts, draining while it hands over, gone once it exited', async () => {
    writeFileSync(file(), appSource('v0'))
    const held = join(dir, `held-${randomUUID()}`)
    mkdirSync(held)
    writeFileSync(join(held, 'sidecar.mjs'), HELD_SIDECAR)
    await startSvc({ target: 'app.ts:app', cwd: dir, pidfile: true, env: { SVC_UI_COMMAND: JSON.stringify(['node', join(held, 'sidecar.mjs'), '{port}', held]) } })
    const sidecarRows = async (): Promise<StatusReport['processes']> =>
      (JSON.parse((await runSvcCli(['status', '--json'], { cwd: dir })).stdout) as StatusReport).processes.filter((p) => p.role === 'sidecar')
    const until = async (what: string, ok: (rows: StatusReport['processes']) => boolean): Promise<StatusReport['processes']> => {
      const deadline = Date.now() + 30_000
      for (;;) {
        const rows = await sidecarRows()
        if (ok(rows)) return rows
        if (Date.now() > deadline) throw new Error(`svc status never showed ${what}: ${JSON.stringify(rows)}`)
      }
    }
    const [old] = await sidecarRows()
    expect(old).toMatchObject({ id: 'sidecar', status: 'online', kind: 'command' })
    const reload = runSvcCli(['reload', '--scope', 'full'], { cwd: dir, timeoutMs: 120_000 })
    const starting = await until('the new sidecar starting', (rows) => rows.some((p) => p.id === 'sidecar' && p.status === 'starting'))
    expect(starting.find((p) => p.id !== 'sidecar')).toMatchObject({ id: `sidecar@${old!.pid}`, pid: old!.pid, status: 'online', kind: 'command', restarts: 0 })
    writeFileSync(join(held, 'go'), '')
    // The old sidecar waits for `stop` after SIGTERM, up to the stop grace (5 s): the window to look in.
    const draining = await until('the old sidecar draining', (rows) => rows.some((p) => p.status === 'draining'))
    expect(draining.map((p) => [p.id, p.status])).toEqual([['sidecar', 'online'], [`sidecar@${old!.pid}`, 'draining']])
    writeFileSync(join(held, 'stop'), '')
    expect((await reload).code).toBe(0)
    const after = await sidecarRows()
    expect(after.map((p) => [p.id, p.status])).toEqual([['sidecar', 'online']])
    expect(after[0]!.pid).not.toBe(old!.pid)
  }, 120_000)

  it('a broken save: svc reload exits 1 naming the file and line, the old code serves on; SIGHUP reloads once it is fixed', async () => {
    writeFileSync(file(), appSource('good'))
    const svc = await startSvc({ target: 'app.ts:app', cwd: dir, pidfile: true, env: { SVC_UI_COMMAND: undefined } })
    const broken = appSource('broken').replace('export const app', 'export const app = (')
    writeFileSync(file(), broken)
    const reload = await runSvcCli(['reload'], { cwd: dir, timeoutMs: 120_000 })
    expect(reload.code).toBe(1)
    const line = broken.split('\n').findIndex((l) => l.startsWith('export const app = (')) + 1
    expect(reload.stderr).toMatch(new RegExp(`^svc reload: failed, the running code keeps serving: cannot load app\\.ts: syntax error at app\\.ts:${line}:\\d+.*\\[SVC_ERR_TARGET_IMPORT_FAILED\\]\\n$`))
    expect(await servedVersion(svc)).toBe('good')
    writeFileSync(file(), appSource('fixed'))
    const from = svc.stdout.length
    process.kill(svc.pid, 'SIGHUP')
    await svc.waitForLine('stdout', /reloaded \(gateway\)/, 60_000, from)
    expect(await servedVersion(svc)).toBe('fixed')
    const status = JSON.parse((await runSvcCli(['status', '--json'], { cwd: dir })).stdout) as StatusReport
    expect(status.reloads).toMatchObject({ ok: 1, failed: 1, last: { trigger: 'signal', result: 'ok' } })
  }, 120_000)

  it('svc reload and svc status with no tree running: exit 1 and a line saying so; a bad --scope is exit 2', async () => {
    const none = await runSvcCli(['status'], { cwd: dir })
    expect(none.code).toBe(1)
    expect(none.stderr).toBe('svc status: svc is not running here: no pid file at .svc.pid (start it with svc run, or pass --pidfile)\n')
    const reload = await runSvcCli(['reload'], { cwd: dir })
    expect(reload.code).toBe(1)
    expect(reload.stderr).toMatch(/^svc reload: svc is not running here/)
    const scope = await runSvcCli(['reload', '--scope', 'everything'], { cwd: dir })
    expect(scope.code).toBe(2)
    expect(scope.stderr).toBe(`svc reload: --scope must be 'gateway' or 'full' (got "everything")\n`)
  }, 60_000)

  it('the control socket is the owner\'s only (mode 0600) and refuses what is not a control request', async () => {
    writeFileSync(file(), appSource('v0'))
    await startSvc({ target: 'app.ts:app', cwd: dir, pidfile: true, env: { SVC_UI_COMMAND: undefined } })
    const socket = join(dir, '.svc.pid.sock')
    expect(statSync(socket).mode & 0o777).toBe(0o600)
    const { createConnection } = await import('node:net')
    const answer = await new Promise<string>((resolve) => {
      const c = createConnection(socket, () => c.write('{"svc":1,"op":"shutdown"}\n'))
      let text = ''
      c.on('data', (d: Buffer) => (text += d.toString()))
      c.on('end', () => resolve(text))
    })
    expect(JSON.parse(answer)).toMatchObject({ svc: 1, ok: false, error: { code: 'SVC_ERR_CONTROL_BAD_REQUEST' } })
  }, 60_000)
})
