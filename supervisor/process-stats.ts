import { execFile } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'

/** One reading of a process: resident memory and CPU time so far (null: gone, or unreadable). */
export interface ProcessReading {
  rssBytes: number | null
  cpuSeconds: number | null
}

/** A reading with the CPU used over a short window, in percent of one core. */
export interface ProcessUsage extends ProcessReading {
  cpuPercent: number | null
}

const hasProc = existsSync('/proc/self/stat')
/** Linux reports CPU times in USER_HZ ticks, 100 a second on every architecture Node runs on. */
const TICKS_PER_SECOND = 100
/** The window over which `usage` measures CPU, as `ps` and `pm2 ls` do over theirs. */
export const CPU_WINDOW_MS = 250

function readProc(pid: number): ProcessReading {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // "pid (comm) S ppid …": comm may hold spaces and parentheses; utime and stime are the 12th and 13th fields after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const rss = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)
    return { rssBytes: rss ? Number(rss[1]) * 1024 : null, cpuSeconds: schedCpuSeconds(pid) || (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND }
  } catch {
    return { rssBytes: null, cpuSeconds: null }
  }
}

/**
 * CPU time of every thread of `pid` in nanoseconds (`/proc/<pid>/task/<tid>/schedstat`, first field):
 * ticks of 10 ms are too coarse for a quarter-second window. Null (or 0, where the kernel keeps the
 * file but not the count) where it cannot be read: the ticks are used then.
 */
function schedCpuSeconds(pid: number): number | null {
  try {
    let ns = 0
    for (const tid of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
    return Number.isFinite(ns) ? ns / 1e9 : null
  } catch {
    return null
  }
}

/** `[[DD-]HH:]MM:SS[.ss]` as ps prints CPU time, in seconds. */
function psSeconds(time: string): number {
  const [days, rest] = time.includes('-') ? (time.split('-') as [string, string]) : ['0', time]
  return rest.split(':').reduce((total, part) => total * 60 + Number(part), 0) + Number(days) * 86_400
}

/** Where there is no /proc (macOS, the BSDs): one `ps` for every pid. */
function readPs(pids: readonly number[]): Promise<Map<number, ProcessReading>> {
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'pid=,rss=,time=', '-p', pids.join(',')], (_err, stdout) => {
      const out = new Map<number, ProcessReading>()
      for (const line of (stdout ?? '').split('\n')) {
        const [pid, rss, time] = line.trim().split(/\s+/)
        if (pid && rss && time) out.set(Number(pid), { rssBytes: Number(rss) * 1024, cpuSeconds: psSeconds(time) })
      }
      resolve(out)
    })
  })
}

/** Memory and CPU time of each pid now. */
export async function readProcesses(pids: readonly number[]): Promise<Map<number, ProcessReading>> {
  if (pids.length === 0) return new Map()
  if (!hasProc) return readPs(pids)
  return new Map(pids.map((pid) => [pid, readProc(pid)]))
}

/** Memory of each pid now, and its CPU over the next `CPU_WINDOW_MS`. */
export async function processUsage(pids: readonly number[]): Promise<Map<number, ProcessUsage>> {
  const before = await readProcesses(pids)
  const started = performance.now()
  await delay(CPU_WINDOW_MS)
  const after = await readProcesses(pids)
  const seconds = (performance.now() - started) / 1000
  const out = new Map<number, ProcessUsage>()
  for (const pid of pids) {
    const a = before.get(pid)
    const b = after.get(pid) ?? { rssBytes: null, cpuSeconds: null }
    const used = a?.cpuSeconds != null && b.cpuSeconds != null ? b.cpuSeconds - a.cpuSeconds : null
    out.set(pid, { ...b, cpuPercent: used === null ? null : Math.round((used / seconds) * 1000) / 10 })
  }
  return out
}
