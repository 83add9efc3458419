/**
 * What `svc dev`'s type check costs (issue 33.1), on a project made by `svc new` and on
 * examples/dashboard in the same shape: the checker's memory (RSS after the first check and after
 * the saves, its peak) and CPU (user + system: first check cold and warm, each check after a save),
 * against `tsc --noEmit` of the same project measured in the same run; and the time from a save to
 * `reloaded (gateway)` with the check on and off (`--no-type-check`), to show a reload does not
 * wait for it. The projects live in bench/results/type-check/ with svc and TypeScript linked from
 * this checkout (as an install would put them).
 * Run: npm run bench:type-check [-- --saves 5]
 * Docs: docs/performance.md#type-check-in-svc-dev
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { setTimeout as delay } from 'node:timers/promises'
import { busyWarning, machineLine } from './lib/machine.js'
import { descendants, installCleanup, spawnTracked, stopAll, type Tracked } from './lib/processes.js'
import { REPO, SVC_BIN } from './lib/servers.js'
import { fmtInt, fmtRatio, median, table } from './lib/table.js'
import { buildInfoPath } from '../supervisor/type-check/type-checker.js'

const { values } = parseArgs({ options: { saves: { type: 'string', default: '5' } } })
const saves = Number(values.saves)
const ROOT = join(REPO, 'bench', 'results', 'type-check')
const TICKS_PER_S = 100
/** A cold check on a loaded 2-core machine can take a minute. */
const CHECK_DEADLINE_MS = 180_000
const RELOAD_DEADLINE_MS = 60_000
/** Between saves: the previous reload and check settle. */
const SETTLE_MS = 1_500

interface ProcStats {
  rssMb: number
  peakMb: number
  cpuMs: number
}

function procStats(pid: number): ProcStats {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)![1])
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024, cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S }
}

/** A `svc new` project in ROOT/<name>, its dependencies linked to this checkout's; `app` replaces its app.ts. */
function project(name: string, app?: string): string {
  const dir = join(ROOT, name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(ROOT, { recursive: true })
  execFileSync(process.execPath, [SVC_BIN, 'new', name, '--svc-spec', `file:${REPO}`], { cwd: ROOT, stdio: 'ignore' })
  mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true })
  symlinkSync(REPO, join(dir, 'node_modules', 'svc'))
  for (const dep of ['typescript', 'vitest', '@types/node']) symlinkSync(join(REPO, 'node_modules', dep), join(dir, 'node_modules', dep))
  if (app) {
    copyFileSync(app, join(dir, 'app.ts'))
    // The template's test is for the template's app.
    rmSync(join(dir, 'app.test.ts'))
  }
  return dir
}

/** `tsc --noEmit` of the project, cold: wall, CPU and peak RSS from GNU time. */
function tscBaseline(dir: string): { wallMs: number; cpuMs: number; peakMb: number } {
  const t0 = performance.now()
  const res = spawnSync('/usr/bin/time', ['-f', '%U %S %M', process.execPath, join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', dir], { encoding: 'utf8' })
  const wallMs = performance.now() - t0
  if (res.status !== 0) throw new Error(`tsc --noEmit failed in ${dir}:\n${res.stdout}${res.stderr}`)
  const [user, sys, maxKb] = res.stderr.trim().split('\n').at(-1)!.split(' ').map(Number)
  return { wallMs, cpuMs: (user! + sys!) * 1000, peakMb: maxKb! / 1024 }
}

interface Run {
  /** Listening line → the first check's result. */
  firstCheckMs: number
  first: ProcStats
  /** Per save: CPU of the check, save → its result, save → `reloaded`. */
  checks: { cpuMs: number; ms: number }[]
  reloadsMs: number[]
  last: ProcStats | null
}

function records(tree: Tracked, from: number): { logger?: string; message?: string }[] {
  return tree.stdout.slice(from).filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { logger?: string; message?: string })
}

async function waitRecord(tree: Tracked, from: number, match: (r: { logger?: string; message?: string }) => boolean, deadlineMs: number): Promise<void> {
  const deadline = performance.now() + deadlineMs
  while (!records(tree, from).some(match)) {
    if (performance.now() > deadline) throw new Error(`no matching log record within ${deadlineMs} ms; last lines:\n${tree.stdout.slice(-10).join('\n')}\n${tree.stderr.slice(-10).join('\n')}`)
    await delay(20)
  }
}

const checkDone = (r: { logger?: string; message?: string }): boolean => r.logger === 'svc.typecheck' && (r.message ?? '').startsWith('type check done')
const reloaded = (r: { message?: string }): boolean => (r.message ?? '').startsWith('reloaded (gateway)')

async function devRun(dir: string, typeCheck: boolean): Promise<Run> {
  const tree = spawnTracked(process.execPath, [SVC_BIN, 'dev', 'app.ts:app', '--reload', '--port', '0', '--no-pidfile', '--log-format', 'json', ...(typeCheck ? [] : ['--no-type-check'])], {
    cwd: dir,
    env: { ...process.env, SVC_LOG_LEVEL: 'debug' },
  })
  try {
    await tree.waitForLine('stderr', /--reload \(scope/, 60_000)
    const t0 = performance.now()
    let checker: number | null = null
    if (typeCheck) {
      await waitRecord(tree, 0, checkDone, CHECK_DEADLINE_MS)
      checker = descendants(tree.pid).find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith('svc type-check')) ?? null
      if (checker === null) throw new Error('no checker process')
    }
    const run: Run = { firstCheckMs: performance.now() - t0, first: checker ? procStats(checker) : { rssMb: 0, peakMb: 0, cpuMs: 0 }, checks: [], reloadsMs: [], last: null }
    const source = readFileSync(join(dir, 'app.ts'), 'utf8')
    for (let n = 1; n <= saves; n++) {
      await delay(SETTLE_MS)
      const from = tree.stdout.length
      const cpu0 = checker ? procStats(checker).cpuMs : 0
      const s0 = performance.now()
      writeFileSync(join(dir, 'app.ts'), `${source}\n// save ${n}\n`)
      await waitRecord(tree, from, reloaded, RELOAD_DEADLINE_MS)
      run.reloadsMs.push(performance.now() - s0)
      if (checker) {
        await waitRecord(tree, from, checkDone, CHECK_DEADLINE_MS)
        run.checks.push({ cpuMs: procStats(checker).cpuMs - cpu0, ms: performance.now() - s0 })
      }
    }
    // Back to the file as it was, checked: the next start's build info matches the files, as after a day's work.
    const from = tree.stdout.length
    writeFileSync(join(dir, 'app.ts'), source)
    if (checker) await waitRecord(tree, from, checkDone, CHECK_DEADLINE_MS)
    run.last = checker ? procStats(checker) : null
    return run
  } finally {
    await tree.stop()
  }
}


installCleanup()
console.log(machineLine())
const busy = await busyWarning()
if (busy) console.log(busy)
const projects = [
  { name: 'svc new', dir: project('new') },
  { name: 'examples/dashboard', dir: project('dashboard', join(REPO, 'examples', 'dashboard', 'app.ts')) },
]
const memRows: string[][] = []
const cpuRows: string[][] = []
const reloadRows: string[][] = []
try {
  for (const p of projects) {
    const tsc = tscBaseline(p.dir)
    rmSync(buildInfoPath(join(p.dir, 'tsconfig.json')), { force: true })
    const cold = await devRun(p.dir, true)
    const warm = await devRun(p.dir, true)
    const off = await devRun(p.dir, false)
    const checkCpu = median(warm.checks.map((c) => c.cpuMs))
    memRows.push([p.name, fmtInt(warm.first.rssMb), fmtInt(warm.last!.rssMb), fmtInt(Math.max(cold.last!.peakMb, warm.last!.peakMb)), fmtInt(tsc.peakMb), fmtRatio(warm.last!.rssMb / tsc.peakMb)])
    cpuRows.push([p.name, fmtInt(cold.first.cpuMs), fmtInt(cold.firstCheckMs), fmtInt(warm.first.cpuMs), fmtInt(warm.firstCheckMs), fmtInt(checkCpu), fmtInt(median(warm.checks.map((c) => c.ms))), fmtInt(tsc.cpuMs), fmtRatio(cold.first.cpuMs / tsc.cpuMs), fmtRatio(checkCpu / tsc.cpuMs)])
    const on = median([...cold.reloadsMs, ...warm.reloadsMs])
    const without = median(off.reloadsMs)
    reloadRows.push([p.name, fmtInt(on), fmtInt(without), fmtRatio(on / without)])
  }
} finally {
  await stopAll()
}
console.log()
console.log(table(['checker memory (MB)', 'RSS after 1st check', `RSS after ${saves} saves`, 'peak', 'tsc --noEmit peak', 'RSS / tsc peak'], memRows))
console.log()
console.log(table(['checker CPU (ms)', '1st check cold: CPU', 'wall', '1st check warm: CPU', 'wall', 'check per save: CPU', 'save → result', 'tsc --noEmit CPU', 'cold / tsc', 'per save / tsc'], cpuRows))
console.log()
console.log(table(['save → reloaded (ms)', 'type check on', `off (--no-type-check)`, 'on / off'], reloadRows))
for (const p of projects) rmSync(buildInfoPath(join(p.dir, 'tsconfig.json')), { force: true })
rmSync(ROOT, { recursive: true, force: true })
