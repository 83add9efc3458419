/**
 * A soak of a real `svc dev --reload` tree with the bundled page server: API requests, page
 * loads, 50 tabs moving a slider (each move a socket round trip and a page run that calls the
 * API), and a save of the app every minute (a reload: new gateway workers, fresh page threads).
 * Every 30 s it prints the RSS and open descriptors of each process of the tree; at the end, the
 * first sample after warm-up against the last. A flat line is the result: nothing grows with
 * time, load or reloads (issue 27).
 * Run: npm run bench:soak (builds first). SOAK_MINUTES (default 30), SOAK_TABS (50).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { Pool } from 'undici'
import { busyWarning, machineLine } from './lib/machine.js'
import { installCleanup, spawnTracked } from './lib/processes.js'
import { REPO, SVC_BIN } from './lib/servers.js'
import { table } from './lib/table.js'
import { soakAppSource } from './soak-lib/app-source.js'
import { visit, type VisitorCounts } from './soak-lib/page-visitor.js'
import { byTitle, processStat } from './soak-lib/tree-stats.js'

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30)
const TABS = Number(process.env.SOAK_TABS ?? 50)
const SAMPLE_MS = 30_000
const RELOAD_MS = 60_000
const API_LOOPS = 4
const PAGE_LOOPS = 2
const MIB = 1024 * 1024

installCleanup()
console.log(machineLine())
const warning = await busyWarning()
if (warning) console.log(warning)

const dir = join(REPO, 'bench', 'results', `soak-${process.pid}`)
const file = join(dir, 'app.ts')
mkdirSync(dir, { recursive: true })
let version = 0
writeFileSync(file, soakAppSource(version))
const svc = spawnTracked(process.execPath, [SVC_BIN, 'dev', '--reload', `${file}:app`, '--port', '0', '--no-pidfile'], {
  cwd: REPO,
  env: { ...process.env, SVC_UI_COMMAND: '', SVC_LOG_FORMAT: 'json', SVC_LOG_LEVEL: 'warn' },
})
const listening = await svc.waitForLine('stderr', /listening on http:\/\//, 60_000)
const origin = /listening on (http:\/\/[^/\s]+)/.exec(listening)![1]!
console.log(`svc dev --reload ${file}:app at ${origin}; ${MINUTES} min, ${TABS} tabs, ${API_LOOPS} API loops, ${PAGE_LOOPS} page-load loops, a save every ${RELOAD_MS / 1000} s`)

const started = performance.now()
const deadline = started + MINUTES * 60_000
const stop = (): boolean => performance.now() > deadline
const counts = { api: 0, apiErrors: 0, pages: 0, pageErrors: 0, reloads: 0 }
const tabs: VisitorCounts = { clicks: 0, reconnects: 0, resumes: 0, lost: 0 }
const pool = new Pool(origin, { connections: API_LOOPS + PAGE_LOOPS })

async function apiLoop(): Promise<void> {
  for (let i = 0; !stop(); i++) {
    try {
      const post = i % 4 === 0
      const res = await pool.request(post ? { path: '/api/echo', method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ i }) } : { path: '/api/items', method: 'GET' })
      await res.body.dump()
      if (res.statusCode === 200) counts.api++
      else counts.apiErrors++
    } catch {
      counts.apiErrors++
    }
  }
}

async function pageLoop(): Promise<void> {
  while (!stop()) {
    try {
      const shell = await pool.request({ path: '/', method: 'GET', headers: { accept: 'text/html' } })
      const html = await shell.body.text()
      const script = /src="([^"]+\.js)"/.exec(html)?.[1]
      const asset = script ? await pool.request({ path: script, method: 'GET' }) : null
      await asset?.body.dump()
      if (shell.statusCode === 200 && (asset === null || asset.statusCode === 200)) counts.pages++
      else counts.pageErrors++
    } catch {
      counts.pageErrors++
    }
  }
}

async function saveLoop(): Promise<void> {
  while (!stop()) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(RELOAD_MS, Math.max(0, deadline - performance.now()))))
    if (stop()) return
    writeFileSync(file, soakAppSource(++version))
    counts.reloads++
  }
}

interface Sample {
  at: number
  perTitle: ReturnType<typeof byTitle>
}
const samples: Sample[] = []
function sample(): void {
  const stats = svc.treePids().flatMap((pid) => processStat(pid) ?? [])
  const s = { at: (performance.now() - started) / 1000, perTitle: byTitle(stats) }
  samples.push(s)
  const cells = [...s.perTitle].map(([title, e]) => `${title}${e.count > 1 ? ` ×${e.count}` : ''} ${(e.rssBytes / MIB).toFixed(0)} MiB ${e.fds} fds`)
  console.log(`[${s.at.toFixed(0).padStart(5)} s] ${cells.join(' | ')} | api ${counts.api} (${counts.apiErrors} err) pages ${counts.pages} (${counts.pageErrors} err) clicks ${tabs.clicks} (lost ${tabs.lost}) reconnects ${tabs.reconnects} resumes ${tabs.resumes} reloads ${counts.reloads}`)
}
const sampler = setInterval(sample, SAMPLE_MS)
sample()

const wsUrl = `${origin.replace('http:', 'ws:')}/_stcore/stream`
await Promise.all([
  ...Array.from({ length: API_LOOPS }, apiLoop),
  ...Array.from({ length: PAGE_LOOPS }, pageLoop),
  ...Array.from({ length: TABS }, () => visit(wsUrl, tabs, stop)),
  saveLoop(),
])
clearInterval(sampler)
await pool.close()
await svc.stop()
rmSync(dir, { recursive: true, force: true })

// RSS swings with each reload (threads replaced, workers drained) and each GC, so single samples
// mislead: the mean of the first window after warm-up (two minutes: first reloads, JIT, the first
// page threads) against the mean of the last window of the run. Per process: during a reload a
// title counts one process more (the new gateway worker beside the old ones), which a sum would
// take for growth.
const WARM_UP_S = 120
const steady = samples.filter((s) => s.at >= WARM_UP_S)
const windowS = Math.min(300, Math.max(SAMPLE_MS / 1000, (MINUTES * 60 - WARM_UP_S) / 3))
const endS = samples.at(-1)!.at
const first = steady.filter((s) => s.at < WARM_UP_S + windowS)
const last = steady.filter((s) => s.at >= endS - windowS)
const mean = (window: Sample[], title: string, pick: (e: { rssBytes: number; fds: number }) => number): number | null => {
  const values = window.flatMap((s) => {
    const e = s.perTitle.get(title)
    return e ? [pick(e) / e.count] : []
  })
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length
}
const titles = [...new Set(steady.flatMap((s) => [...s.perTitle.keys()]))]
const rangeOf = (w: Sample[]): string => `${w[0]?.at.toFixed(0) ?? '-'}-${w.at(-1)?.at.toFixed(0) ?? '-'} s`
console.log(`\nmeans per process of the first window after warm-up (${rangeOf(first)}) against the last (${rangeOf(last)}):`)
console.log(table(['process', 'RSS MiB then', 'now', 'change', 'fds then', 'now'], titles.map((t) => {
  const [a, b] = [mean(first, t, (e) => e.rssBytes), mean(last, t, (e) => e.rssBytes)]
  const [fa, fb] = [mean(first, t, (e) => e.fds), mean(last, t, (e) => e.fds)]
  const mib = (x: number | null): string => (x === null ? '-' : (x / MIB).toFixed(0))
  const change = a !== null && b !== null ? `${(((b - a) / a) * 100).toFixed(0)}%` : '-'
  return [t, mib(a), mib(b), change, fa === null ? '-' : fa.toFixed(0), fb === null ? '-' : fb.toFixed(0)]
})))
console.log(`totals: ${counts.api} API requests (${counts.apiErrors} failed), ${counts.pages} page loads (${counts.pageErrors} failed), ${tabs.clicks} clicks / socket round trips (${tabs.lost} lost), ${tabs.reconnects} reconnects, ${tabs.resumes} resumes, ${counts.reloads} reloads in ${((performance.now() - started) / 60_000).toFixed(1)} min`)
