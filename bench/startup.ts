/**
 * Start-up time and idle memory: `svc run examples/hello/app.ts:app` with the bundled page server
 * against a bare Fastify server with one route. Ready = first 200 on /api/readyz; memory = sum of
 * VmRSS over the process and all its descendants, one second after ready. Median of 5 runs.
 * Run: npm run bench:startup [-- --runs 5]
 * Docs: docs/performance.md
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { setTimeout as delay } from 'node:timers/promises'
import { busyWarning, machineLine } from './lib/machine.js'
import { installCleanup, spawnTracked, stopAll, type Tracked } from './lib/processes.js'
import { FIXTURES, REPO, SVC_BIN } from './lib/servers.js'
import { fmtInt, fmtRatio, median, table } from './lib/table.js'

const TARGET_MS = 1_500
const READY_PATH = '/api/readyz'
const IDLE_SETTLE_MS = 1_000
const START_DEADLINE_MS = 30_000

interface Sample {
  /** Spawn → the "listening" line on stderr. */
  listeningMs: number
  /** Spawn → first 200 on /api/readyz. */
  readyMs: number
  rssKb: number
  processes: number
}

function rssKb(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : 0
  } catch {
    return 0
  }
}

async function firstOk(url: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) })
      await res.arrayBuffer()
      if (res.status === 200) return
    } catch {
      // not accepting yet
    }
    if (performance.now() > deadline) throw new Error(`${url} did not answer 200 within ${START_DEADLINE_MS} ms`)
    await delay(5)
  }
}

async function sample(start: () => Tracked): Promise<Sample> {
  const t0 = performance.now()
  const tracked = start()
  try {
    const line = await tracked.waitForLine('stderr', /listening on http:\/\//, START_DEADLINE_MS)
    const listeningMs = performance.now() - t0
    const origin = /listening on (http:\/\/[^/ ]+)/.exec(line)![1]!
    await firstOk(origin + READY_PATH, t0 + START_DEADLINE_MS)
    const readyMs = performance.now() - t0
    // Idle memory: what the tree holds once start-up work (JIT, first requests) has settled.
    await delay(IDLE_SETTLE_MS)
    const pids = tracked.treePids()
    return { listeningMs, readyMs, rssKb: pids.reduce((sum, p) => sum + rssKb(p), 0), processes: pids.length }
  } finally {
    await tracked.stop()
  }
}

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } })
const runs = Number(values.runs)

const env = { ...process.env }
delete env.SVC_UI_COMMAND
const startSvc = (): Tracked =>
  spawnTracked(process.execPath, [SVC_BIN, 'run', 'examples/hello/app.ts:app', '--port', '0', '--no-pidfile'], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
const startFastify = (): Tracked => spawnTracked(process.execPath, [join(FIXTURES, 'bare-fastify.mjs')], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] })

installCleanup()
try {
  console.log(machineLine())
  const warning = await busyWarning()
  if (warning) console.log(warning)
  console.log(`${runs} runs each, median; ready = first 200 on ${READY_PATH}; RSS summed over the process tree ${IDLE_SETTLE_MS} ms after ready\n`)

  const svc: Sample[] = []
  const fastify: Sample[] = []
  for (let i = 0; i < runs; i++) {
    svc.push(await sample(startSvc))
    fastify.push(await sample(startFastify))
    process.stdout.write(`run ${i + 1}: svc ${fmtInt(svc[i]!.readyMs)} ms, fastify ${fmtInt(fastify[i]!.readyMs)} ms\n`)
  }
  const m = (s: Sample[], k: keyof Sample): number => median(s.map((x) => x[k]))
  console.log()
  console.log(
    table(
      ['server', 'listening ms', 'ready ms', 'idle RSS MB', 'processes'],
      [
        ['svc run examples/hello (bundled sidecar)', fmtInt(m(svc, 'listeningMs')), fmtInt(m(svc, 'readyMs')), (m(svc, 'rssKb') / 1024).toFixed(0), String(m(svc, 'processes'))],
        ['bare Fastify, one route', fmtInt(m(fastify, 'listeningMs')), fmtInt(m(fastify, 'readyMs')), (m(fastify, 'rssKb') / 1024).toFixed(0), String(m(fastify, 'processes'))],
      ],
    ),
  )
  const ready = m(svc, 'readyMs')
  console.log()
  console.log(
    table(
      ['ratio', 'value', 'target'],
      [
        ['ready: svc / Fastify', fmtRatio(ready / m(fastify, 'readyMs')), `svc < ${TARGET_MS} ms ${ready < TARGET_MS ? 'meets target' : 'MISSES target'}`],
        ['idle RSS: svc / Fastify', fmtRatio(m(svc, 'rssKb') / m(fastify, 'rssKb')), ''],
      ],
    ),
  )
} finally {
  await stopAll()
}
