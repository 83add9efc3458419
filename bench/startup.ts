/**
 * Start-up time and idle memory: `svc run examples/hello/app.ts:app` with the bundled page server
 * against a bare Fastify server with one route and a bare node process, in interleaved rounds.
 * Ready = first 200 on /api/readyz; memory = VmRSS of the process and each descendant, one second
 * after ready, reported per process (supervisor, sidecar, gateway worker, anything else such as an
 * esbuild service) and summed; CPU = user + system time each process used up to then, which the
 * load of other work on the machine changes less than the wall-clock time. Median of 5 rounds,
 * with the spread (min-max).
 * `--compare DIR` adds, in the same rounds, the svc of another checkout (built, with node_modules),
 * e.g. the commit before a change, for before/after figures measured under the same load.
 * Last, `svc dev --reload` of a copy of examples/hello: edit → first answer with the new code, per edit.
 * Run: npm run bench:startup [-- --runs 5] [-- --compare /path/to/other/checkout]
 * Docs: docs/performance.md
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { setTimeout as delay } from 'node:timers/promises'
import { busyWarning, machineLine } from './lib/machine.js'
import { installCleanup, spawnTracked, stopAll, type Tracked } from './lib/processes.js'
import { FIXTURES, REPO, SVC_BIN } from './lib/servers.js'
import { fmtInt, fmtRatio, median, table } from './lib/table.js'

const READY_TARGET_MS = 1_000
const RSS_TARGET_MB = 200
const DEV_RELOAD_TARGET_MS = 500
const READY_PATH = '/api/readyz'
const IDLE_SETTLE_MS = 1_000
const START_DEADLINE_MS = 30_000
/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100
const ROLES = ['supervisor', 'sidecar', 'gateway', 'other'] as const
type Role = (typeof ROLES)[number]

interface Proc {
  role: Role
  rssKb: number
  cpuMs: number
  threads: number
}

interface Sample {
  /** Spawn → the "listening" line on stderr (svc, Fastify) or "ready" (bare node). */
  listeningMs: number
  /** Spawn → first 200 on /api/readyz. */
  readyMs: number
  procs: Proc[]
}

function readProc(pid: number): Proc | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    // Fields after the command name, which may hold spaces: utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    const title = /^svc (supervisor|sidecar|gateway)/.exec(cmdline)?.[1] as Role | undefined
    return {
      role: title ?? 'other',
      rssKb: Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0),
      threads: Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 0),
      cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S,
    }
  } catch {
    return null
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

async function sample(start: () => Tracked, http = true): Promise<Sample> {
  const t0 = performance.now()
  const tracked = start()
  try {
    const line = await tracked.waitForLine('stderr', /listening on http:\/\/|: ready/, START_DEADLINE_MS)
    const listeningMs = performance.now() - t0
    let readyMs = listeningMs
    if (http) {
      const origin = /listening on (http:\/\/[^/ ]+)/.exec(line)![1]!
      await firstOk(origin + READY_PATH, t0 + START_DEADLINE_MS)
      readyMs = performance.now() - t0
    }
    // Idle memory: what the tree holds once start-up work (JIT, first requests) has settled.
    await delay(IDLE_SETTLE_MS)
    const procs = tracked.treePids().flatMap((p) => readProc(p) ?? [])
    return { listeningMs, readyMs, procs }
  } finally {
    await tracked.stop()
  }
}

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, compare: { type: 'string' } } })
const runs = Number(values.runs)

const env = { ...process.env }
delete env.SVC_UI_COMMAND
const svcFrom = (repo: string, bin: string) => (): Tracked =>
  spawnTracked(process.execPath, [bin, 'run', 'examples/hello/app.ts:app', '--port', '0', '--no-pidfile'], {
    cwd: repo,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
const startSvc = svcFrom(REPO, SVC_BIN)
const startOther = values.compare ? svcFrom(values.compare, join(values.compare, 'bin/svc.js')) : null
const startFastify = (): Tracked => spawnTracked(process.execPath, [join(FIXTURES, 'bare-fastify.mjs')], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] })
const startNode = (): Tracked => spawnTracked(process.execPath, [join(FIXTURES, 'bare-node.mjs')], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] })

const sum = (procs: Proc[], k: 'rssKb' | 'cpuMs', role?: Role): number => procs.filter((p) => !role || p.role === role).reduce((a, p) => a + p[k], 0)
const count = (procs: Proc[], role: Role): number => procs.filter((p) => p.role === role).length
/** "median (min-max)" of a figure over the rounds. */
function spread(xs: number[], fmt: (n: number) => string): string {
  return `${fmt(median(xs))} (${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))})`
}
const mb = (kb: number): string => (kb / 1024).toFixed(0)

installCleanup()
try {
  console.log(machineLine())
  const warning = await busyWarning()
  if (warning) console.log(warning)
  console.log(`${runs} rounds, median (min-max); ready = first 200 on ${READY_PATH}; RSS and CPU per process ${IDLE_SETTLE_MS} ms after ready\n`)

  const svc: Sample[] = []
  const other: Sample[] = []
  const fastify: Sample[] = []
  const bare: Sample[] = []
  for (let i = 0; i < runs; i++) {
    if (startOther) other.push(await sample(startOther))
    svc.push(await sample(startSvc))
    fastify.push(await sample(startFastify))
    bare.push(await sample(startNode, false))
    const was = startOther ? `, compared svc ${fmtInt(other[i]!.readyMs)} ms ${mb(sum(other[i]!.procs, 'rssKb'))} MB` : ''
    process.stdout.write(`round ${i + 1}: svc ${fmtInt(svc[i]!.readyMs)} ms ${mb(sum(svc[i]!.procs, 'rssKb'))} MB${was}, fastify ${fmtInt(fastify[i]!.readyMs)} ms\n`)
  }
  const readyOf = (s: Sample[]): number[] => s.map((x) => x.readyMs)
  const rssOf = (s: Sample[], role?: Role): number[] => s.map((x) => sum(x.procs, 'rssKb', role))
  const cpuOf = (s: Sample[], role?: Role): number[] => s.map((x) => sum(x.procs, 'cpuMs', role))
  console.log()
  console.log(
    table(
      ['server', 'listening ms', 'ready ms', 'idle RSS MB', 'CPU ms', 'processes'],
      [
        ['svc run examples/hello (bundled sidecar)', fmtInt(median(svc.map((x) => x.listeningMs))), spread(readyOf(svc), fmtInt), spread(rssOf(svc), mb), spread(cpuOf(svc), fmtInt), String(median(svc.map((x) => x.procs.length)))],
        ...(startOther
          ? [['svc of --compare checkout', fmtInt(median(other.map((x) => x.listeningMs))), spread(readyOf(other), fmtInt), spread(rssOf(other), mb), spread(cpuOf(other), fmtInt), String(median(other.map((x) => x.procs.length)))]]
          : []),
        ['bare Fastify, one route', fmtInt(median(fastify.map((x) => x.listeningMs))), spread(readyOf(fastify), fmtInt), spread(rssOf(fastify), mb), spread(cpuOf(fastify), fmtInt), '1'],
        ['bare node (no modules)', '-', '-', spread(rssOf(bare), mb), spread(cpuOf(bare), fmtInt), '1'],
      ],
    ),
  )
  const perProcess = (title: string, xs: Sample[]): void => {
    console.log()
    console.log(
      table(
        [title, 'count', 'idle RSS MB', 'RSS / bare node', 'CPU ms to ready', 'threads'],
        ROLES.map((role) => [
          role === 'other' ? 'other (e.g. esbuild --service)' : role,
          String(median(xs.map((x) => count(x.procs, role)))),
          spread(rssOf(xs, role), mb),
          fmtRatio(median(rssOf(xs, role)) / median(rssOf(bare))),
          spread(cpuOf(xs, role), fmtInt),
          String(median(xs.map((x) => x.procs.filter((p) => p.role === role).reduce((a, p) => a + p.threads, 0)))),
        ]),
      ),
    )
  }
  perProcess('svc process', svc)
  if (startOther) perProcess('--compare process', other)
  const ready = median(readyOf(svc))
  const rss = median(rssOf(svc)) / 1024
  console.log()
  console.log(
    table(
      ['ratio', 'value', 'target'],
      [
        ['ready: svc / Fastify', fmtRatio(ready / median(readyOf(fastify))), `svc < ${READY_TARGET_MS} ms: ${ready < READY_TARGET_MS ? 'meets target' : 'MISSES target'}`],
        ['idle RSS: svc / Fastify', fmtRatio(median(rssOf(svc)) / median(rssOf(fastify))), `svc < ${RSS_TARGET_MB} MB: ${rss < RSS_TARGET_MB ? 'meets target' : 'MISSES target'}`],
        ['idle RSS: svc / bare node', fmtRatio(median(rssOf(svc)) / median(rssOf(bare))), ''],
        ['CPU to ready: svc / Fastify', fmtRatio(median(cpuOf(svc)) / median(cpuOf(fastify))), ''],
        ...(startOther
          ? [
              ['ready: svc / --compare', fmtRatio(ready / median(readyOf(other))), ''],
              ['idle RSS: svc / --compare', fmtRatio(median(rssOf(svc)) / median(rssOf(other))), ''],
              ['CPU to ready: svc / --compare', fmtRatio(median(cpuOf(svc)) / median(cpuOf(other))), ''],
            ]
          : []),
      ],
    ),
  )
  await devReload()
} finally {
  await stopAll()
}

/**
 * `svc dev --reload`: a copy of examples/hello (inside the repo, so `import 'svc'` resolves) has
 * its API answer edited; time from the write to the first answer with the new text, per edit.
 */
async function devReload(): Promise<void> {
  const dir = join(REPO, 'bench', 'results', 'dev-reload-app')
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const source = readFileSync(join(REPO, 'examples', 'hello', 'app.ts'), 'utf8')
  const version = (n: number): string => source.replace('Hello, ${name}!', `Hello v${n}, \${name}!`)
  writeFileSync(join(dir, 'app.ts'), version(0))
  const tree = spawnTracked(process.execPath, [SVC_BIN, 'dev', join(dir, 'app.ts') + ':app', '--reload', '--port', '0', '--no-pidfile'], {
    cwd: REPO,
    env: { ...env, SVC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const times: number[] = []
  try {
    const line = await tree.waitForLine('stderr', /listening on http:\/\//, START_DEADLINE_MS)
    const origin = /listening on (http:\/\/[^/ ]+)/.exec(line)![1]!
    await firstOk(origin + READY_PATH, performance.now() + START_DEADLINE_MS)
    // The watcher is ready once the banner is out; each edit waits for the previous one's reload to settle.
    for (let n = 1; n <= runs; n++) {
      await delay(1_500)
      const t0 = performance.now()
      writeFileSync(join(dir, 'app.ts'), version(n))
      for (;;) {
        const body = await fetch(`${origin}/api/hello`).then((r) => r.text(), () => '')
        if (body.includes(`Hello v${n},`)) break
        if (performance.now() - t0 > START_DEADLINE_MS) throw new Error(`edit ${n} not served within ${START_DEADLINE_MS} ms`)
        await delay(5)
      }
      times.push(performance.now() - t0)
    }
  } finally {
    await tree.stop()
    rmSync(dir, { recursive: true, force: true })
  }
  console.log()
  console.log(
    table(
      ['svc dev --reload', 'edit → new answer ms', 'edits', 'target'],
      [['API route of examples/hello', spread(times, fmtInt), times.map((t) => fmtInt(t)).join(', '), `< ${DEV_RELOAD_TARGET_MS} ms: ${median(times) < DEV_RELOAD_TARGET_MS ? 'meets target' : 'MISSES target'}`]],
    ),
  )
}
