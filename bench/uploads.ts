/**
 * UI request bodies through the gateway, which reads each body in full before it takes an
 * upstream connection (memory, then an unlinked temporary file; docs/hardening.md):
 *
 * 1. Upload throughput: POST bodies of 16 KiB, 256 KiB and 4 MiB, 8 keep-alive clients, to the
 *    bench upstream directly, through nginx (which buffers request bodies the same way by default,
 *    `proxy_request_buffering on`) and through a `svc run` tree; svc/nginx is the ratio to watch.
 * 2. A trickle flood: 300 clients each uploading 100 kB at one byte a second while 10 clients GET
 *    a UI page; p99 and failures with and without the flood. Before request bodies were buffered,
 *    the flood held the worker's 256 upstream connections and every other UI request got 503.
 *
 * The load comes from this Node process (undici), which shares the 2 cores with the servers:
 * compare ratios within one run, not absolute figures across runs.
 * Run: npm run bench:uploads [-- --duration 5]
 * Docs: docs/performance.md
 */
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Agent, request } from 'undici'
import { busyWarning, machineLine } from './lib/machine.js'
import { installCleanup, stopAll } from './lib/processes.js'
import { FIXTURES, startFixture, startNginx, startSvc, type Running } from './lib/servers.js'
import { fmtInt, fmtMs, fmtRatio, table } from './lib/table.js'

const CLIENTS = 8
const SIZES = [16 * 1024, 256 * 1024, 4 * 1024 * 1024]
const TRICKLERS = 300
const GET_CLIENTS = 10
const TARGET = `${join(FIXTURES, 'app.ts')}:app`
const SIDECAR_COMMAND = JSON.stringify([process.execPath, join(FIXTURES, 'upstream.mjs'), '{port}'])

const { values } = parseArgs({ options: { duration: { type: 'string', default: '5' } } })
const durationMs = Number(values.duration) * 1000

interface Run {
  rps: number
  p50Ms: number
  p99Ms: number
  failures: number
}

/** `clients` closed loops of `send` for `ms`; every answer must be 200. */
async function load(clients: number, ms: number, send: (agent: Agent) => Promise<number>): Promise<Run> {
  const agent = new Agent({ connections: clients, keepAliveTimeout: 30_000 })
  const latencies: number[] = []
  let failures = 0
  const until = performance.now() + ms
  const loop = async (): Promise<void> => {
    while (performance.now() < until) {
      const started = performance.now()
      try {
        if ((await send(agent)) !== 200) failures++
        else latencies.push(performance.now() - started)
      } catch {
        failures++
      }
    }
  }
  await Promise.all(Array.from({ length: clients }, loop))
  await agent.close()
  latencies.sort((a, b) => a - b)
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? NaN
  return { rps: latencies.length / (ms / 1000), p50Ms: at(0.5), p99Ms: at(0.99), failures }
}

function upload(base: string, body: Buffer): (agent: Agent) => Promise<number> {
  return async (dispatcher) => {
    const res = await request(`${base}/upload`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' }, dispatcher })
    await res.body.dump()
    return res.statusCode
  }
}

function get(base: string): (agent: Agent) => Promise<number> {
  return async (dispatcher) => {
    const res = await request(`${base}/page`, { dispatcher })
    await res.body.dump()
    return res.statusCode
  }
}

/** `n` raw connections, each sending the head of a 100 kB upload and then one byte a second. */
async function trickle(url: string, n: number): Promise<() => void> {
  const { hostname, port } = new URL(url)
  const sockets: Socket[] = []
  for (let i = 0; i < n; i++) {
    const s = connect(Number(port), hostname)
    s.on('error', () => {})
    s.write(`POST /upload/${i} HTTP/1.1\r\nHost: bench\r\nContent-Length: 100000\r\n\r\n`)
    sockets.push(s)
  }
  const drip = setInterval(() => {
    for (const s of sockets) if (s.writable) s.write('a')
  }, 1_000)
  // Let every head arrive before the measured GETs start.
  await new Promise((r) => setTimeout(r, 2_000))
  return () => {
    clearInterval(drip)
    for (const s of sockets) s.destroy()
  }
}

async function withServer<T>(start: Promise<Running | null>, fn: (s: Running) => Promise<T>): Promise<T | null> {
  const server = await start
  if (server === null) return null
  try {
    return await fn(server)
  } finally {
    await server.tracked.stop()
  }
}

installCleanup()
console.log(machineLine())
const warning = await busyWarning()
if (warning) console.log(warning)
console.log(`uploads: ${CLIENTS} keep-alive clients, ${durationMs / 1000} s per size; trickle: ${TRICKLERS} uploads at 1 byte/s, ${GET_CLIENTS} GET clients\n`)

try {
  const upstream = (): Promise<Running> => startFixture('upstream.mjs', ['0'])
  const svcTree = (): Promise<Running> => startSvc({ target: TARGET, env: { SVC_UI_COMMAND: SIDECAR_COMMAND } })
  const measureSizes = async (name: string, base: string): Promise<[string, Run[]]> => {
    const runs: Run[] = []
    for (const size of SIZES) {
      process.stdout.write(`${name}: ${size / 1024} KiB …`)
      runs.push(await load(CLIENTS, durationMs, upload(base, Buffer.alloc(size, 120))))
      process.stdout.write(` ${fmtInt(runs.at(-1)!.rps)} req/s\n`)
    }
    return [name, runs]
  }
  const rows: [string, Run[]][] = []
  const direct = await withServer(upstream(), (up) => measureSizes('direct', up.url))
  if (direct) rows.push(direct)
  const nginx = await withServer(upstream(), async (up) => withServer(startNginx(up.url), (s) => measureSizes('nginx (proxy_request_buffering on)', s.url)))
  if (nginx) rows.push(nginx)
  const svc = await withServer(svcTree(), (s) => measureSizes('svc (1 worker)', s.url))
  if (svc) rows.push(svc)

  console.log()
  console.log(
    table(
      ['path', ...SIZES.flatMap((s) => [`${s / 1024} KiB req/s`, 'p50 ms', 'p99 ms']), 'failed'],
      rows.map(([name, runs]) => [name, ...runs.flatMap((r) => [fmtInt(r.rps), fmtMs(r.p50Ms), fmtMs(r.p99Ms)]), String(runs.reduce((n, r) => n + r.failures, 0))]),
    ),
  )
  if (nginx && svc) {
    console.log(`\nsvc / nginx, uploads per second: ${SIZES.map((s, i) => `${s / 1024} KiB ${fmtRatio(svc[1][i]!.rps / nginx[1][i]!.rps)}`).join(', ')}`)
  }

  const flood = await withServer(svcTree(), async (s) => {
    process.stdout.write('\nsvc GETs without a flood …')
    const calm = await load(GET_CLIENTS, durationMs, get(s.url))
    process.stdout.write(` p99 ${fmtMs(calm.p99Ms)} ms\nsvc GETs during the trickle flood …`)
    const stop = await trickle(s.url, TRICKLERS)
    try {
      const flooded = await load(GET_CLIENTS, durationMs, get(s.url))
      process.stdout.write(` p99 ${fmtMs(flooded.p99Ms)} ms\n`)
      return { calm, flooded }
    } finally {
      stop()
    }
  })
  if (flood) {
    console.log()
    console.log(
      table(
        ['UI GETs through svc', 'req/s', 'p50 ms', 'p99 ms', 'failed'],
        [
          ['no flood', fmtInt(flood.calm.rps), fmtMs(flood.calm.p50Ms), fmtMs(flood.calm.p99Ms), String(flood.calm.failures)],
          [`${TRICKLERS} trickling uploads`, fmtInt(flood.flooded.rps), fmtMs(flood.flooded.p50Ms), fmtMs(flood.flooded.p99Ms), String(flood.flooded.failures)],
        ],
      ),
    )
    console.log(`\nflood / no flood: p50 ${fmtRatio(flood.flooded.p50Ms / flood.calm.p50Ms)}, p99 ${fmtRatio(flood.flooded.p99Ms / flood.calm.p99Ms)}`)
  }
} finally {
  await stopAll()
}
