/**
 * Page runtime: rerun latency of a 200-element page over a real page socket and in-process,
 * against a one-element baseline; bytes per rerun of a 10,000-row page whose slider moved; then
 * how many live sessions fit in 100 MiB of sidecar RSS; then isolation: one session's rerun
 * latency while another burns 2 s of CPU, with page threads and without (`ui_page_threads: 0`),
 * and the memory of a whole `svc run` tree (examples/dashboard) idle and with one and two page sessions.
 * Run: npm run bench:pages (builds first; the sidecar is dist/src/ui/server/main.js).
 */
import { app, BURN_KEY, PAGE_ELEMENTS, ROWS_PAGE_ROWS, SLIDER_KEY } from './fixtures/pages-app.js'
import { rerunWhileBusy, type IsolationResult } from './pages-lib/isolation.js'
import { comparePair, engineDriver, socketDriver, type LatencyResult, type PageUnderTest } from './pages-lib/rerun-latency.js'
import { machineLine, mean, MIB, ms, printTable, ratio } from './pages-lib/report.js'
import { describeSessions, sessionsPerBudget } from './pages-lib/session-memory.js'
import { SidecarProcess } from './pages-lib/sidecar-process.js'
import { summed, treeMemory, type TreeMemory } from './pages-lib/tree-memory.js'
import { findWidget, PageSocket } from './pages-lib/page-socket.js'

const APP_TARGET = 'bench/fixtures/pages-app.ts:app'
const WARMUP = 200
const SAMPLES = 1000
const BUDGET = 100 * MIB
const MAX_SESSIONS = 2000
const MAX_SESSION_MS = 60_000
const ROWS_RERUNS = 100

const trivial: PageUnderTest = { path: '/trivial', sliderKey: SLIDER_KEY, expectElements: 1 }
const big: PageUnderTest = { path: '/', sliderKey: SLIDER_KEY, expectElements: PAGE_ELEMENTS }

const running = new Set<SidecarProcess>()
async function withSidecar<T>(use: (s: SidecarProcess) => Promise<T>, env: Record<string, string> = {}): Promise<T> {
  const sidecar = await SidecarProcess.start(APP_TARGET, env)
  running.add(sidecar)
  try {
    return await use(sidecar)
  } finally {
    await sidecar.stop()
    running.delete(sidecar)
  }
}
process.once('SIGINT', () => {
  void Promise.all([...running].map((s) => s.stop())).finally(() => process.exit(130))
})

function row(label: string, r: LatencyResult): string[] {
  return [label, String(r.elements), ms(r.p50), ms(r.p99), r.bytes === null ? '-' : r.bytes.toFixed(0)]
}

console.log(machineLine())
console.log(`\n1. Rerun latency: ${SAMPLES} slider changes per page one after another (after ${WARMUP} warm-up), send → final render`)
const [socketTrivial, socketBig] = await withSidecar(async (s) => comparePair(await socketDriver(s.wsUrl, trivial), await socketDriver(s.wsUrl, big), WARMUP, SAMPLES))
const [engineTrivial, engineBig] = await comparePair(await engineDriver(app, trivial), await engineDriver(app, big), WARMUP, SAMPLES)
const socket = { trivial: socketTrivial, big: socketBig }
const engine = { trivial: engineTrivial, big: engineBig }
printTable(['', 'elements', 'p50 ms', 'p99 ms', 'bytes/rerun'], [
  row('socket, trivial page', socket.trivial),
  row('socket, 200-element page', socket.big),
  row('in-process, trivial page', engine.trivial),
  row('in-process, 200-element page', engine.big),
])
console.log(
  `ratios 200-element / trivial: socket p50 ${ratio(socket.big.p50, socket.trivial.p50)}, p99 ${ratio(socket.big.p99, socket.trivial.p99)}, ` +
    `bytes ${ratio(socket.big.bytes!, socket.trivial.bytes!)}; in-process p50 ${ratio(engine.big.p50, engine.trivial.p50)}, p99 ${ratio(engine.big.p99, engine.trivial.p99)}`,
)

console.log(`\n2. Bytes per rerun of a page with a ${ROWS_PAGE_ROWS.toLocaleString('en')}-row dataframe and a 1,000-point line chart whose slider moved (${ROWS_RERUNS} reruns)`)
const rowsBytes = await withSidecar(async (s) => {
  const { socket, render } = await PageSocket.open(s.wsUrl, '/rows')
  const slider = findWidget(render.main, 'slider', SLIDER_KEY)
  if (!slider) throw new Error('page /rows has no slider: fix bench/fixtures/pages-app.ts')
  const wire: number[] = []
  const whole: number[] = []
  try {
    for (let i = 1; i <= ROWS_RERUNS; i++) {
      const sample = await socket.interact(slider.id, i)
      wire.push(sample.bytes)
      whole.push(sample.fullRenderBytes)
    }
  } finally {
    await socket.close()
  }
  return { wire: mean(wire), whole: mean(whole) }
})
printTable(['', 'bytes/rerun'], [
  ['sent (changes against the previous render)', rowsBytes.wire.toFixed(0)],
  ['final render if sent whole', rowsBytes.whole.toFixed(0)],
])

const SESSION_THREADS = 2
console.log(`\n3. Concurrent sessions of the 200-element page per ${BUDGET / MIB} MiB of sidecar RSS, ${SESSION_THREADS} page threads (caps: ${MAX_SESSIONS} sessions, ${MAX_SESSION_MS / 1000} s)`)
const sessions = await withSidecar(async (s) => {
  // Page threads load the app after the sidecar is healthy: one open session per thread makes
  // sure each has, so the idle RSS includes them and the slope is the sessions' own cost.
  const warm = await Promise.all(Array.from({ length: SESSION_THREADS }, () => PageSocket.open(s.wsUrl, '/trivial')))
  try {
    return await sessionsPerBudget(s, { path: '/', budgetBytes: BUDGET, maxSessions: MAX_SESSIONS, maxMs: MAX_SESSION_MS })
  } finally {
    await Promise.all(warm.map((w) => w.socket.close()))
  }
}, { SVC_UI_PAGE_THREADS: String(SESSION_THREADS) })
for (const line of describeSessions(sessions, BUDGET)) console.log(line)

const BURN_MS = 2000
const ROUNDS = 3
const THREADS = 2
console.log(`\n4. Isolation: session B reruns a trivial page in a loop while session A's page burns ${BURN_MS} ms of CPU (${ROUNDS} rounds), send → final render`)
const burnOptions = { burnPath: '/burn', burnKey: BURN_KEY, otherPath: '/trivial', otherKey: SLIDER_KEY, burnMs: BURN_MS, rounds: ROUNDS }
const inProcess = await withSidecar((s) => rerunWhileBusy(s, burnOptions), { SVC_UI_PAGE_THREADS: '0' })
const pooled = await withSidecar((s) => rerunWhileBusy(s, burnOptions), { SVC_UI_PAGE_THREADS: String(THREADS) })
const isoRow = (label: string, r: IsolationResult): string[] => [label, String(r.samples), ms(r.p50), ms(r.max), (r.rss / MIB).toFixed(1)]
printTable(['', "B's reruns", 'p50 ms', 'max ms', 'RSS MiB (2 sessions)'], [
  isoRow('ui_page_threads: 0 (one event loop)', inProcess),
  isoRow(`ui_page_threads: ${THREADS}`, pooled),
])

const TREE_APP = 'examples/dashboard/app.ts:app'
const TREE_SESSIONS = 2
console.log(`\n5. Memory of a whole tree: svc run ${TREE_APP} (bundled page server), idle and with 1..${TREE_SESSIONS} page sessions on /; targets on Node 24: idle < 250 MB, one session < 300 MB`)
const tree = await treeMemory(TREE_APP, '/', TREE_SESSIONS)
const titles = [...tree.idle.keys()]
const mb = (b: number): string => (b / 1e6).toFixed(0)
printTable(['', ...titles, 'sum MB', 'target'], [
  ['idle', ...titles.map((t) => mb(tree.idle.get(t)?.rssBytes ?? 0)), mb(summed(tree.idle)), summed(tree.idle) < 250e6 ? 'met' : 'missed'],
  ...tree.withSessions.map((m, i) => [`${i + 1} session${i ? 's' : ''}`, ...titles.map((t) => mb(m.get(t)?.rssBytes ?? 0)), mb(summed(m)), i === 0 ? (summed(m) < 300e6 ? 'met' : 'missed') : '-']),
])
const sidecar = (m: TreeMemory): number => m.get('svc sidecar')?.rssBytes ?? 0
console.log(`page server: idle ${mb(sidecar(tree.idle))} MB (no page thread), +${mb(sidecar(tree.withSessions[0]!) - sidecar(tree.idle))} MB with the first session (its thread), +${mb(sidecar(tree.withSessions[1]!) - sidecar(tree.withSessions[0]!))} MB with the second (a second thread)`)
