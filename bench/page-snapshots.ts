/**
 * The cost of writing page-session snapshots through to Redis (issue #22.6): with `redis_url`, a
 * run's result reaches the browser only once its state is in Redis. Rerun latency (send a slider
 * change → the final render, over a real page socket) of two real page servers side by side, one
 * without Redis and one with a local redis-server, on a trivial page and on the 200-element page
 * of bench/pages.ts; blocks of reruns alternate between the two so background load hits both
 * alike. Without Redis is also what the write-behind build cost per rerun: it wrote after the
 * render, off the rerun's path. Then the parts: one SET of a snapshot of that size from this
 * process, and the snapshot's size.
 * Run: npm run bench:page-snapshots (builds first; needs /usr/bin/redis-server).
 */
import { performance } from 'node:perf_hooks'
import pino from 'pino'
import { RedisConnection } from '../src/shared-state/redis-connection.js'
import { PAGE_ELEMENTS, SLIDER_KEY } from './fixtures/pages-app.js'
import { comparePair, socketDriver, type LatencyResult, type PageUnderTest } from './pages-lib/rerun-latency.js'
import { machineLine, ms, percentile, printTable, ratio, signed } from './pages-lib/report.js'
import { SidecarProcess } from './pages-lib/sidecar-process.js'
import { RedisServer } from '../test/helpers/redis-server.js'

const APP_TARGET = 'bench/fixtures/pages-app.ts:app'
const WARMUP = 200
const SAMPLES = 2000
const SET_SAMPLES = 5000

const pages: PageUnderTest[] = [
  { path: '/trivial', sliderKey: SLIDER_KEY, expectElements: 1 },
  { path: '/', sliderKey: SLIDER_KEY, expectElements: PAGE_ELEMENTS },
]

const cleanups: (() => Promise<void> | void)[] = []
process.once('SIGINT', () => {
  void Promise.all(cleanups.map(async (c) => c())).finally(() => process.exit(130))
})

console.log(machineLine())
const redis = await RedisServer.start()
cleanups.push(() => redis.stop())
const inspect = new RedisConnection({ url: redis.url, keyPrefix: 'svc:', timeoutMs: 2000, logger: pino({ level: 'silent' }) })
cleanups.push(() => inspect.destroy())
try {
  const [plain, through] = await Promise.all([SidecarProcess.start(APP_TARGET), SidecarProcess.start(APP_TARGET, { SVC_REDIS_URL: redis.url })])
  cleanups.push(() => plain.stop(), () => through.stop())
  console.log(`\n1. Rerun latency, send → final render: ${SAMPLES} slider changes per page and server (after ${WARMUP} warm-up), alternating blocks`)
  const rows: string[][] = []
  const results: { page: PageUnderTest; plain: LatencyResult; through: LatencyResult }[] = []
  for (const page of pages) {
    const [a, b] = await comparePair(await socketDriver(plain.wsUrl, page), await socketDriver(through.wsUrl, page), WARMUP, SAMPLES)
    results.push({ page, plain: a, through: b })
    rows.push([`${page.expectElements}-element page, no Redis (= write-behind)`, ms(a.p50), ms(a.p99), '-'])
    rows.push([`${page.expectElements}-element page, Redis write-through`, ms(b.p50), ms(b.p99), ratio(b.p50, a.p50)])
  }
  printTable(['', 'p50 ms', 'p99 ms', 'p50 ratio'], rows)
  for (const r of results) {
    console.log(`cost per rerun, ${r.page.expectElements}-element page: p50 ${signed(r.through.p50 - r.plain.p50)} ms, p99 ${signed(r.through.p99 - r.plain.p99)} ms`)
  }
  await Promise.all([plain.stop(), through.stop()])

  console.log(`\n2. The parts: the snapshot of the 200-element page's session, and ${SET_SAMPLES} SETs of that size from this process`)
  const sizes = await listSnapshotSizes(redis.url)
  const value = 'x'.repeat(Math.max(0, ...sizes))
  const samples: number[] = []
  for (let i = 0; i < SET_SAMPLES; i++) {
    const start = performance.now()
    await inspect.set('bench:snapshot', value, 60)
    samples.push(performance.now() - start)
  }
  console.log(`snapshot sizes seen: ${sizes.map((k) => `${k} B`).join(', ')}; SET of ${value.length} B: p50 ${ms(percentile(samples, 50))} ms, p99 ${ms(percentile(samples, 99))} ms`)
} finally {
  for (const c of cleanups.reverse()) await c()
}

/** Base64 lengths of the page-session snapshots in Redis (one per bench session). */
async function listSnapshotSizes(url: string): Promise<number[]> {
  const { createClient } = await import('redis')
  const client = createClient({ url })
  await client.connect()
  try {
    const sizes: number[] = []
    for await (const batch of client.scanIterator({ MATCH: 'svc:page-session:*' })) {
      for (const key of Array.isArray(batch) ? batch : [batch]) sizes.push((await client.strLen(key)) ?? 0)
    }
    return sizes.sort((a, b) => a - b)
  } finally {
    await client.close()
  }
}
