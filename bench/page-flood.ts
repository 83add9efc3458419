/**
 * One client floods the page server with page-socket messages as fast as it can, while other
 * sessions keep rerunning: their rerun latency (p50/p99) and the page server's peak RSS, against
 * a quiet baseline measured in the same run. Floods: messages just under `ui_max_message_bytes`
 * (1 MiB, read and parsed), 1 MiB arrays at the entry bound, and 64 MB messages (refused from
 * their header with 1009, the socket reopened at once). Targets (issue 27): p99 < 100 ms and the
 * page server < 300 MB while flooded.
 * Run: npm run bench:page-flood (builds first; the page server is dist/src/ui/server/main.js).
 */
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { performance } from 'node:perf_hooks'
import { busyWarning } from './lib/machine.js'
import type { FloodKind, FloodStats } from './flood-lib/flooder.js'
import { findWidget, PageSocket } from './pages-lib/page-socket.js'
import { machineLine, MIB, ms, percentile, printTable, ratio } from './pages-lib/report.js'
import { SidecarProcess } from './pages-lib/sidecar-process.js'

const APP = 'bench/fixtures/pages-app.ts:app'
const OTHERS = 4
const PHASE_MS = Number(process.env.FLOOD_PHASE_MS ?? 15_000)
const RSS_EVERY_MS = 100

interface Phase {
  label: string
  latencies: number[]
  peakRss: number
  flood: FloodStats | null
}

/** `OTHERS` sessions on the trivial page rerun their slider in turn until `stop`. */
async function rerunLoop(sockets: { socket: PageSocket; slider: string }[], stop: Promise<void>): Promise<number[]> {
  let stopped = false
  void stop.then(() => (stopped = true))
  const latencies: number[] = []
  let v = 0
  while (!stopped) for (const s of sockets) latencies.push((await s.socket.interact(s.slider, (v++ % 999) + 1)).latencyMs)
  return latencies
}

/** The flooder runs in a process of its own (flooder-main.ts) for `ms`. */
async function floodFor(url: string, kind: FloodKind, ms: number): Promise<FloodStats> {
  const child = fork(new URL('./flood-lib/flooder-main.ts', import.meta.url), [url, kind, String(ms)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  const [code] = (await once(child, 'exit')) as [number | null]
  if (code !== 0) throw new Error(`the flooder exited with ${code}`)
  return JSON.parse(out.trim().split('\n').pop()!) as FloodStats
}

async function phase(sidecar: SidecarProcess, label: string, sockets: { socket: PageSocket; slider: string }[], kind: FloodKind | null): Promise<Phase> {
  let peakRss = sidecar.rss()
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, sidecar.rss())), RSS_EVERY_MS)
  let end!: () => void
  const stop = new Promise<void>((resolve) => (end = resolve))
  const timer = setTimeout(end, PHASE_MS)
  const started = performance.now()
  const [latencies, stats] = await Promise.all([rerunLoop(sockets, stop), kind ? floodFor(sidecar.wsUrl, kind, PHASE_MS) : Promise.resolve(null)])
  clearTimeout(timer)
  clearInterval(sampler)
  console.log(`  ${label}: ${latencies.length} reruns in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  return { label, latencies, peakRss: Math.max(peakRss, sidecar.rss()), flood: stats }
}


console.log(machineLine())
const warning = await busyWarning()
if (warning) console.log(warning)
console.log(`\n${OTHERS} sessions rerun a trivial page in turn for ${PHASE_MS / 1000} s per phase, 2 page threads; one client floods (send → final render latency of the others)`)
const sidecar = await SidecarProcess.start(APP, { SVC_UI_PAGE_THREADS: '2' })
process.once('SIGINT', () => void sidecar.stop().finally(() => process.exit(130)))
try {
  const sockets = await Promise.all(
    Array.from({ length: OTHERS }, async () => {
      const { socket, render } = await PageSocket.open(sidecar.wsUrl, '/trivial')
      return { socket, slider: findWidget(render.main, 'slider', 'n')!.id }
    }),
  )
  const phases = [
    await phase(sidecar, 'no flood (baseline)', sockets, null),
    await phase(sidecar, 'flood: 1 MiB messages (parsed, a string value)', sockets, 'string'),
    await phase(sidecar, 'flood: 1 MiB messages (99,000 entries)', sockets, 'entries'),
    await phase(sidecar, 'flood: 64 MB messages (refused, 1009)', sockets, 'huge'),
  ]
  await Promise.all(sockets.map((s) => s.socket.close()))
  const base = phases[0]!
  console.log()
  printTable(['', 'reruns', 'p50 ms', 'p99 ms', 'p99 vs baseline', 'peak RSS MiB', 'flood msgs', 'flood MiB', '1009s'], phases.map((p) => [
    p.label,
    String(p.latencies.length),
    ms(percentile(p.latencies, 50)),
    ms(percentile(p.latencies, 99)),
    ratio(percentile(p.latencies, 99), percentile(base.latencies, 99)),
    (p.peakRss / MIB).toFixed(0),
    p.flood ? String(p.flood.sent) : '-',
    p.flood ? (p.flood.bytes / MIB).toFixed(0) : '-',
    p.flood ? String(p.flood.refused) : '-',
  ]))
  const worstP99 = Math.max(...phases.map((p) => percentile(p.latencies, 99)))
  const worstRss = Math.max(...phases.map((p) => p.peakRss))
  console.log(`\ntargets: others' p99 < 100 ms while flooded: ${worstP99 < 100 ? 'met' : 'MISSED'} (worst ${ms(worstP99)} ms); page server < 300 MB: ${worstRss < 300e6 ? 'met' : 'MISSED'} (peak ${(worstRss / 1e6).toFixed(0)} MB)`)
} finally {
  await sidecar.stop()
}
