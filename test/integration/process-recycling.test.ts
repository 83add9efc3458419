import { randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { REPO, gatewayWorkerPids, startSvc, stopAllTrees } from '../helpers/svc-process.js'
import { runSvcCli } from '../helpers/cli-run.js'
import { waitUntil } from '../helpers/cli-processes.js'
import { SteadyLoad } from '../helpers/steady-load.js'
import type { StatusReport } from '../../ipc/control.js'

/**
 * Issue #31: what an operator sees and what recycles what grows: `svc status` counts a killed
 * worker's restart and its exit, a worker past `gateway_max_memory_mb` or `gateway_max_requests`
 * is replaced with no failed request, `log_file` rotates and reopens, `svc doctor` judges the
 * running tree.
 */
const APP = `import { Svc } from ${JSON.stringify(`${REPO}dist/src/index.js`)}
export const app = new Svc({ title: 'Recycling' })
const held: Buffer[] = []
app.api.get('/ping', async () => ({ pid: process.pid }))
// A leak: every call keeps 40 MB for good.
app.api.post('/leak', async () => {
  held.push(Buffer.alloc(40 * 1024 * 1024, 1))
  return { held_mb: held.length * 40, pid: process.pid }
})
app.page('/', (st) => st.text('hello'))
`

async function status(dir: string): Promise<StatusReport> {
  const r = await runSvcCli(['status', '--json'], { cwd: dir })
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as StatusReport
}

describe('svc status, recycling and log files', () => {
  let dir: string
  beforeAll(() => {
    dir = `${REPO}test/.tmp/recycling-${randomUUID()}`
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'app.ts'), APP)
  })
  afterEach(stopAllTrees)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('status lists every process; a SIGKILLed worker is counted as a restart with its exit reason; a leak past gateway_max_memory_mb is recycled with 0 failed requests', async () => {
    const svc = await startSvc({
      target: 'app.ts:app',
      cwd: dir,
      pidfile: true,
      args: ['--workers', '2'],
      env: { SVC_UI_COMMAND: undefined, SVC_GATEWAY_MAX_MEMORY_MB: '260', SVC_RECYCLE_CHECK_INTERVAL_S: '0.5' },
    })
    const first = await status(dir)
    expect(first.processes.map((p) => p.id)).toEqual(['supervisor', 'sidecar', 'gateway-0', 'gateway-1'])
    for (const p of first.processes) {
      expect(p.pid, p.id).toBeGreaterThan(1)
      expect(p.memory_bytes, p.id).toBeGreaterThan(10e6)
      expect(p.cpu_percent, p.id).toBeGreaterThanOrEqual(0)
      expect(p.restarts, p.id).toBe(0)
    }
    expect(first.app).toMatchObject({ target: 'app.ts:app', url: `${svc.url}/`, mode: 'run', supervisor_pid: svc.pid, workers: 2 })
    expect(first.page_sessions).toBe(0)
    expect(first.tasks).toEqual({ running: 0, queued: 0, threads: 0 })
    const human = await runSvcCli(['status'], { cwd: dir })
    expect(human.stdout).toMatch(/^tasks: 0 running, 0 queued, 0 task threads$/m)
    expect(human.stdout).toMatch(/^role +id +status +pid +uptime +restarts +memory +cpu +requests +sessions +last exit$/m)
    expect(human.stdout).toMatch(/^gateway +gateway-1 +online +\d+ /m)

    const victim = first.processes.find((p) => p.id === 'gateway-1')!.pid!
    process.kill(victim, 'SIGKILL')
    await waitUntil('a restarted gateway-1', () => gatewayWorkerPids(svc.pid).length === 2 && !gatewayWorkerPids(svc.pid).includes(victim), 20_000)
    await svc.waitForLine('stdout', /gateway worker \d+ exited unexpectedly \(signal SIGKILL\)/, 10_000)
    const killed = (await status(dir)).processes.find((p) => p.id === 'gateway-1')!
    expect(killed).toMatchObject({ restarts: 1, last_exit: { reason: 'crashed', detail: 'signal SIGKILL' } })
    expect(killed.pid).not.toBe(victim)

    const load = new SteadyLoad(svc.url, ['/api/ping', '/'])
    try {
      // Leaks until one worker holds 200 MB: with its ~100 MB of runtime and app, past 260.
      const counts = new Map<number, number>()
      let leaker = 0
      while (!leaker) {
        const res = await request(`${svc.url}/api/leak`, { method: 'POST', reset: true })
        const { pid } = (await res.body.json()) as { pid: number }
        counts.set(pid, (counts.get(pid) ?? 0) + 1)
        if (counts.get(pid)! >= 5) leaker = pid
      }
      await svc.waitForLine('stdout', new RegExp(`gateway worker ${leaker} recycled \\(memory\\)`), 30_000)
      await waitUntil('the leaking worker gone', () => !gatewayWorkerPids(svc.pid).includes(leaker), 40_000)
    } finally {
      const { ok, failures } = await load.stop()
      expect(failures).toEqual([])
      expect(ok).toBeGreaterThan(20)
    }
    const after = await status(dir)
    expect(after.recycles.memory).toBeGreaterThanOrEqual(1)
    const recycled = after.processes.filter((p) => p.last_exit?.reason === 'recycled')
    expect(recycled.length).toBeGreaterThanOrEqual(1)
    expect(recycled[0]!.last_exit!.detail).toMatch(/^memory \d+ MB over gateway_max_memory_mb 260$/)
  }, 180_000)

  it('gateway_max_requests replaces a worker with no failed request; log_file rotates by size, reopens on SIGUSR2; doctor judges the running tree', async () => {
    const svc = await startSvc({
      target: 'app.ts:app',
      cwd: dir,
      pidfile: true,
      args: ['--port', '0'],
      env: { SVC_UI_COMMAND: undefined, SVC_GATEWAY_MAX_REQUESTS: '150', SVC_ENABLE_GATEWAY_ACCESS_LOG: '1', SVC_LOG_FILE: 'logs/svc.log', SVC_LOG_FILE_SIZE: '8k' },
    })
    const load = new SteadyLoad(svc.url, ['/api/ping'], 2)
    // A file may be rotated away between the listing and the read.
    const read = (f: string): string => (existsSync(join(dir, 'logs', f)) ? readFileSync(join(dir, 'logs', f), 'utf8') : '')
    const logged = (text: string) => (): boolean => existsSync(join(dir, 'logs')) && readdirSync(join(dir, 'logs')).some((f) => read(f).includes(text))
    await waitUntil('a recycle for requests', logged('recycled (requests)'), 60_000)
    const { failures, ok } = await load.stop()
    expect(failures).toEqual([])
    expect(ok).toBeGreaterThan(150)
    const report = await status(dir)
    expect(report.recycles.requests).toBeGreaterThanOrEqual(1)
    expect(report.processes.find((p) => p.id === 'gateway-0')!.last_exit).toMatchObject({ reason: 'recycled', detail: expect.stringMatching(/^\d+ requests served, gateway_max_requests 150$/) })
    // Nothing reached stdout: every process's lines went to the file, whole lines only.
    expect(svc.stdout.filter((l) => l.trim() !== '')).toEqual([])
    const files = readdirSync(join(dir, 'logs'))
    expect(files.filter((f) => f.startsWith('svc.log.')).length).toBeGreaterThanOrEqual(1)
    for (const f of files.filter((f) => !f.endsWith('.history'))) {
      for (const line of readFileSync(join(dir, 'logs', f), 'utf8').split('\n').filter(Boolean)) expect(() => JSON.parse(line), `${f}: ${line}`).not.toThrow()
    }
    renameSync(join(dir, 'logs/svc.log'), join(dir, 'logs/moved.log'))
    process.kill(svc.pid, 'SIGUSR2')
    await request(`${svc.url}/api/ping`).then((r) => r.body.dump())
    await waitUntil('a line in the reopened file', () => existsSync(join(dir, 'logs/svc.log')) && readFileSync(join(dir, 'logs/svc.log'), 'utf8').includes('/api/ping'), 10_000)

    const doctor = await runSvcCli(['doctor', '--json', '--warnings-only'], { cwd: dir })
    const rows = (JSON.parse(doctor.stdout) as { checks: { name: string; status: string; detail: string }[] }).checks
    const row = (name: string): { status: string; detail: string } => rows.find((r) => r.name === name)!
    expect(row('running_tree')).toMatchObject({ status: 'PASS', detail: expect.stringContaining(`supervisor pid ${svc.pid}, app.ts:app at ${svc.url} with 1 gateway worker; the rows below judge that tree`) })
    expect(row('gateway_bind')).toMatchObject({ status: 'PASS', detail: `127.0.0.1:${svc.port} is served by the running svc (supervisor pid ${svc.pid})` })
    const planned = await runSvcCli(['doctor', '--json', '--warnings-only', '--workers', '3'], { cwd: dir })
    const redis = (JSON.parse(planned.stdout) as { checks: { name: string; status: string; detail: string }[] }).checks.find((r) => r.name === 'redis')!
    expect(redis).toMatchObject({ status: 'WARN', detail: expect.stringContaining('with 3 gateway workers') })
  }, 180_000)
})
