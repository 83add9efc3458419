/**
 * Pages on the wire (issue #23): the chart page of bench/fixtures/wire-app.ts (one line chart, a
 * small dataframe) through `svc run`, opened in Chromium and read from the DevTools protocol:
 * bytes on the wire of a first and a repeat visit (headers and encoded bodies, page-socket frames),
 * how many requests each makes (listed one by one for the first visit), whether scripts and styles arrive compressed, the first
 * visit of the fixture's plain page (issue #36: what elements every page may draw cost a page using none of them), and the time from
 * navigation to the drawn chart on a throttled link (10 Mbit/s, 40 ms RTT,
 * `Network.emulateNetworkConditions`) and on loopback. Every figure is printed against a baseline
 * build measured in the same run, in interleaved rounds (medians, with their spread): by default
 * `main`, built from `git archive` into a temp folder (kept per commit for the next run).
 * Run: npm run bench:pages (after the runtime figures), or alone:
 *   npx tsx bench/pages-wire.ts [--baseline <git ref>|none] [--rounds 5]
 * Docs: docs/performance.md#pages-on-the-wire
 */
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import type { Browser } from 'playwright-core'
import { launchBrowser } from '../test/helpers/e2e-browser.js'
import { THROTTLED, visit, type RequestRecord, type Visit } from '../test/helpers/wire-visit.js'
import { thisAndBaseline } from './lib/baseline.js'
import { printMachine } from './lib/machine.js'
import { installCleanup, stopAll } from './lib/processes.js'
import { startSvc, type SvcRunning } from './lib/servers.js'
import { fmtRatio, median, table } from './lib/table.js'

const FIXTURE = 'bench/fixtures/wire-app.ts'
const CHART = '[data-testid="lineChart"] svg.marks g.mark-line path'

const { values } = parseArgs({ options: { baseline: { type: 'string', default: 'main' }, rounds: { type: 'string', default: '5' } } })
const rounds = Number(values.rounds)
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number ≥ 1, not ${values.rounds}`)

interface Round {
  first: Visit
  /** A first visit of the plain page (no chart, no chunk of an element of its own). */
  plain: Visit
  repeat: Visit
  firstThrottled: Visit
  repeatThrottled: Visit
}

installCleanup()
await printMachine()

const builds = thisAndBaseline(values.baseline!, FIXTURE)
console.log(`\n5. Pages on the wire: ${FIXTURE} through svc run in Chromium; ${rounds} interleaved rounds, each a fresh browser context (empty cache)\n`)

/** A first visit and a repeat visit (same context, so the cache of the first), on loopback and on the throttled link. */
async function measure(browser: Browser, svc: SvcRunning): Promise<Round> {
  const url = `${svc.url}/`
  const pair = async (throttle?: typeof THROTTLED): Promise<[Visit, Visit]> => {
    const context = await browser.newContext()
    try {
      const first = await visit(context, url, { readySelector: CHART, ...(throttle ? { throttle } : {}) })
      const repeat = await visit(context, url, { readySelector: CHART, ...(throttle ? { throttle } : {}) })
      return [first, repeat]
    } finally {
      await context.close()
    }
  }
  const [first, repeat] = await pair()
  const [firstThrottled, repeatThrottled] = await pair(THROTTLED)
  const context = await browser.newContext()
  try {
    const plain = await visit(context, `${svc.url}/plain`, { readySelector: 'text=Text and widgets' })
    return { first, plain, repeat, firstThrottled, repeatThrottled }
  } finally {
    await context.close()
  }
}

const results = new Map<string, Round[]>(builds.map((b) => [b.name, []]))
const browser = await launchBrowser()
try {
  for (let round = 0; round < rounds; round++) {
    for (const build of builds) {
      const svc = await startSvc({ target: build.target, ...(build.bin ? { bin: build.bin } : {}), timeoutMs: 60_000 })
      try {
        // One untimed visit: the page threads load the app on the first page request.
        await measure(browser, svc)
        const r = await measure(browser, svc)
        results.get(build.name)!.push(r)
        console.log(`round ${round + 1} ${build.name}: first ${kB(bytes(r.first))} kB, repeat ${kB(bytes(r.repeat))} kB, chart at 10 Mbit/s ${r.firstThrottled.readyMs.toFixed(0)} ms`)
      } finally {
        await svc.tracked.stop()
      }
    }
  }
} finally {
  await browser.close()
  await stopAll()
}

/** A request's path, without the tree's origin (each round's port differs). */
function shortUrl(url: string): string {
  const u = new URL(url)
  return u.pathname + u.search
}
/**
 * The browser's own request for /favicon.ico (made without a link, at a time of its choosing) is
 * not the page's: Chromium stops asking within one browser after a 404 (older builds answered
 * one) but asks in every fresh context when it got an icon, so counting it would compare a cache
 * of the browser, not the builds. It is listed, and reported on its own line.
 */
function browserIcon(r: RequestRecord): boolean {
  return new URL(r.url).pathname === '/favicon.ico'
}
function pageRequests(v: Visit): RequestRecord[] {
  return v.requests.filter((r) => !browserIcon(r))
}
function bytes(v: Visit): number {
  return pageRequests(v).reduce((n, r) => n + r.encodedBytes, 0) + v.socketBytes
}
function kB(n: number): string {
  return (n / 1024).toFixed(1)
}
const network = (v: Visit): number => pageRequests(v).filter((r) => !r.fromCache).length
const assets = (v: Visit) => v.requests.filter((r) => r.type === 'Script' || r.type === 'Stylesheet')
const compressed = (v: Visit): string => `${assets(v).filter((r) => r.contentEncoding === 'br' || r.contentEncoding === 'gzip').length}/${assets(v).length}`

interface Figure {
  label: string
  pick: (r: Round) => number
  show: (n: number) => string
  /** Issue #23's budget, for the "target" column. */
  budget?: { max: number; text: string }
}
const figures: Figure[] = [
  { label: 'first visit, kB on the wire', pick: (r) => bytes(r.first), show: kB, budget: { max: 400 * 1024, text: '< 400 kB' } },
  { label: '  of which page socket, kB', pick: (r) => r.first.socketBytes, show: kB },
  { label: 'plain page (no chart), first visit, kB', pick: (r) => bytes(r.plain), show: kB },
  { label: 'first visit, requests on the network', pick: (r) => network(r.first), show: String },
  { label: 'repeat visit, kB on the wire', pick: (r) => bytes(r.repeat), show: kB, budget: { max: 30 * 1024, text: '< 30 kB' } },
  { label: 'repeat visit, requests on the network', pick: (r) => network(r.repeat), show: String },
  { label: 'chart drawn, ms, 10 Mbit/s 40 ms RTT, first visit', pick: (r) => r.firstThrottled.readyMs, show: (n) => n.toFixed(0), budget: { max: 1500, text: '< 1500 ms' } },
  { label: 'chart drawn, ms, 10 Mbit/s 40 ms RTT, repeat visit', pick: (r) => r.repeatThrottled.readyMs, show: (n) => n.toFixed(0) },
  { label: 'chart drawn, ms, loopback, first visit', pick: (r) => r.first.readyMs, show: (n) => n.toFixed(0) },
]

const [current, baseline] = builds.map((b) => results.get(b.name)!)
const spread = (xs: number[], show: (n: number) => string): string => (xs.length === 1 ? '' : `${show(Math.min(...xs))}–${show(Math.max(...xs))}`)
const header = ['', `${builds[0]!.name} (median)`, 'spread']
if (baseline) header.push(`${builds[1]!.name} (median)`, 'spread', 'this / baseline')
header.push('target')
const rows = figures.map((f) => {
  const mine = current!.map(f.pick)
  const row = [f.label, f.show(median(mine)), spread(mine, f.show)]
  if (baseline) {
    const theirs = baseline.map(f.pick)
    row.push(f.show(median(theirs)), spread(theirs, f.show), median(theirs) === 0 ? '-' : fmtRatio(median(mine) / median(theirs)))
  }
  row.push(f.budget ? `${f.budget.text} ${median(mine) < f.budget.max ? 'met' : 'MISSED'}` : '')
  return row
})
console.log()
console.log(table(header, rows))
console.log('\nfirst visit, request by request (loopback, last round):')
for (const build of builds) {
  const last = results.get(build.name)!.at(-1)!.first
  console.log(`\n${build.name}`)
  console.log(table(['request', 'type', 'status', 'kB on the wire', 'encoding'], last.requests.map((r) => [shortUrl(r.url), r.type, String(r.status), r.fromCache ? 'cache' : (r.encodedBytes / 1024).toFixed(2), r.contentEncoding ?? ''])))
}
for (const build of builds) {
  const icons = results.get(build.name)!.flatMap((r) => [r.first, r.firstThrottled]).map((v) => v.requests.find(browserIcon))
  const asked = icons.filter((r) => r !== undefined && !r.fromCache)
  console.log(`the browser's own /favicon.ico, ${build.name}: asked in ${asked.length} of ${icons.length} first visits${asked.length > 0 ? ` (HTTP ${asked[0]!.status}, ${(asked[0]!.encodedBytes / 1024).toFixed(2)} kB)` : ''}; not counted above`)
}
console.log(`\nscripts and styles compressed (first visit): ${builds.map((b) => `${b.name} ${compressed(results.get(b.name)![0]!.first)}`).join(', ')}`)
console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (timings on a loaded machine are long and noisy; bytes are not)`)
