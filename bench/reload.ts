/**
 * Shipping a new version (issue #31): failed requests and latency while a running tree is
 * reloaded, next to a steady run of the same length, for `svc reload` of a `svc run --workers 2`
 * tree and for `pm2 reload` of the same route in PM2's cluster mode with 2 instances (PM2's
 * graceful setup: wait_ready, SIGINT handling, kill_timeout), measured in one run. The load is a
 * closed loop of keep-alive GETs from this process (the same for both), every request timed.
 * Run: npm run bench:reload [-- --reloads 5 --connections 8 --duration 20]
 * Docs: docs/performance.md#shipping-a-new-version
 */
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { setTimeout as delay } from 'node:timers/promises'
import { Agent, request } from 'undici'
import { busyWarning, machineLine } from './lib/machine.js'
import { installCleanup, spawnTracked, stopAll } from './lib/processes.js'
import { REPO, SVC_BIN, freePort, waitForPort } from './lib/servers.js'
import { table } from './lib/table.js'

const { values } = parseArgs({ options: { reloads: { type: 'string', default: '5' }, connections: { type: 'string', default: '8' }, duration: { type: 'string', default: '20' } } })
const RELOADS = Number(values.reloads)
const CONNECTIONS = Number(values.connections)
const DURATION_S = Number(values.duration)
const PM2 = join(REPO, 'node_modules', 'pm2', 'bin', 'pm2')

interface Run {
  requests: number
  failed: number
  failures: string[]
  p50: number
  p99: number
  max: number
  reloads: number
  reloadMs: number[]
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN

/** `DURATION_S` of closed-loop load on `url`; meanwhile `during()` (reloads), started after a second. */
async function measure(url: string, during: (() => Promise<number[]>) | null): Promise<Run> {
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: CONNECTIONS })
  const latencies: number[] = []
  const failures: string[] = []
  let running = true
  const loop = async (): Promise<void> => {
    while (running) {
      const t0 = performance.now()
      try {
        const res = await request(url, { dispatcher: agent })
        await res.body.dump()
        if (res.statusCode === 200) latencies.push(performance.now() - t0)
        else failures.push(`status ${res.statusCode}`)
      } catch (err) {
        failures.push((err as NodeJS.ErrnoException).code ?? (err as Error).message)
      }
    }
  }
  const loops = Array.from({ length: CONNECTIONS }, loop)
  const started = Date.now()
  let reloadMs: number[] = []
  if (during) {
    await delay(1_000)
    reloadMs = await during()
  }
  await delay(Math.max(0, started + DURATION_S * 1000 - Date.now()))
  running = false
  await Promise.all(loops)
  await agent.close()
  latencies.sort((a, b) => a - b)
  return { requests: latencies.length + failures.length, failed: failures.length, failures, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN, reloads: reloadMs.length, reloadMs }
}

const run = promisify(execFile)

/**
 * `RELOADS` reloads one after another (each waits for the last to finish), spaced over the run.
 * The command runs as a child process, waited for without blocking this process's load loop.
 */
async function reloads(reload: () => Promise<unknown>): Promise<number[]> {
  const spacing = Math.max(0, ((DURATION_S - 2) * 1000) / RELOADS)
  const took: number[] = []
  for (let i = 0; i < RELOADS; i++) {
    const t0 = Date.now()
    await reload()
    took.push(Date.now() - t0)
    await delay(Math.max(0, spacing - took.at(-1)!))
  }
  return took
}

installCleanup()
console.log(machineLine())
const warning = await busyWarning()
if (warning) console.log(warning)
console.log(`\nReloads under load: ${DURATION_S} s of ${CONNECTIONS} keep-alive connections per run, ${RELOADS} reloads in the reload runs (each waited for), 2 workers / instances\n`)

const work = mkdtempSync(join(tmpdir(), 'svc-bench-reload-'))
const results: { name: string; steady: Run; reload: Run }[] = []
try {
  // svc: `svc run --workers 2` with a pid file, `svc reload` from the CLI as an operator runs it.
  const pidfile = join(work, 'svc.pid')
  const svc = spawnTracked(process.execPath, [SVC_BIN, 'run', 'bench/fixtures/reload-app.ts:app', '--port', '0', '--workers', '2', '--pidfile', pidfile], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] })
  const line = await svc.waitForLine('stderr', /svc: listening on http:\/\//, 60_000)
  const svcUrl = `${/listening on (http:\/\/[^/ ]+)/.exec(line)![1]!}/api/version`
  await measure(svcUrl, null)
  const svcSteady = await measure(svcUrl, null)
  const svcReload = await measure(svcUrl, () => reloads(() => run(process.execPath, [SVC_BIN, 'reload', '--pidfile', pidfile], { cwd: REPO })))
  results.push({ name: 'svc reload', steady: svcSteady, reload: svcReload })
  await svc.stop()

  // PM2: cluster mode, 2 instances, its own daemon in a folder of this run.
  const port = await freePort()
  const env = { ...process.env, PM2_HOME: join(work, 'pm2'), PORT: String(port) }
  const pm2 = (...args: string[]): void => void execFileSync(process.execPath, [PM2, ...args], { env, stdio: 'ignore' })
  try {
    pm2('start', join(REPO, 'bench/fixtures/reload-pm2-app.cjs'), '--name', 'bench', '-i', '2', '--wait-ready', '--listen-timeout', '10000', '--kill-timeout', '5000')
    await waitForPort(port, 30_000)
    const pm2Url = `http://127.0.0.1:${port}/api/version`
    await measure(pm2Url, null)
    const pm2Steady = await measure(pm2Url, null)
    const pm2Reload = await measure(pm2Url, () => reloads(() => run(process.execPath, [PM2, 'reload', 'bench'], { env })))
    results.push({ name: 'pm2 reload', steady: pm2Steady, reload: pm2Reload })
  } finally {
    pm2('kill')
  }
} finally {
  await stopAll()
  rmSync(work, { recursive: true, force: true })
}

const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '-')
const rows = results.flatMap(({ name, steady, reload }) => [
  [`${name}: steady`, String(steady.requests), String(steady.failed), ms(steady.p50), ms(steady.p99), ms(steady.max), '-'],
  [`${name}: ${reload.reloads} reloads`, String(reload.requests), String(reload.failed), ms(reload.p50), ms(reload.p99), ms(reload.max), ms(reload.reloadMs.reduce((a, b) => a + b, 0) / Math.max(1, reload.reloadMs.length))],
])
console.log(table(['run', 'requests', 'failed', 'p50 ms', 'p99 ms', 'max ms', 'reload took ms (mean)'], rows))
for (const { name, reload } of results) {
  if (reload.failed > 0) console.log(`${name}: failures during reloads: ${[...new Set(reload.failures)].map((f) => `${f} ×${reload.failures.filter((x) => x === f).length}`).join(', ')}`)
}
const [svcR, pm2R] = results
if (svcR && pm2R) console.log(`\np99 during reloads / steady: svc ${(svcR.reload.p99 / svcR.steady.p99).toFixed(2)}×, pm2 ${(pm2R.reload.p99 / pm2R.steady.p99).toFixed(2)}×; failed requests: svc ${svcR.reload.failed}, pm2 ${pm2R.reload.failed}`)
