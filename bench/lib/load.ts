import { existsSync, readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { spawnTracked } from './processes.js'

/**
 * Closed-loop keep-alive load: `connections` connections each send the next request as soon as
 * the previous answer arrived. wrk (C, one thread) is the default: on 2 cores a Node load
 * generator takes a core from the server it measures, and autocannon reports latency in whole
 * milliseconds, too coarse for sub-millisecond differences. autocannon is the fallback.
 */
export type LoadTool = 'wrk' | 'autocannon'

export const WRK = '/usr/bin/wrk'

export interface LoadResult {
  rps: number
  p50Ms: number
  p99Ms: number
  requests: number
  /** Socket errors, timeouts and non-2xx answers together; any is a failed measurement. */
  failures: number
  /** CPU time (user + system) of the measured server's processes per request, in µs; null when not asked. */
  cpuUsPerRequest: number | null
}

export interface LoadOptions {
  url: string
  connections: number
  durationS: number
  /** Discarded run before the measured one (JIT, pools, connections). */
  warmupS: number
  /** Processes whose CPU time is charged to the server under test (not the upstream). */
  cpuPids?: () => number[]
  /** Request headers (e.g. `accept-encoding`). */
  headers?: Record<string, string>
}

export function defaultTool(): LoadTool {
  return existsSync(WRK) ? 'wrk' : 'autocannon'
}

export interface LoadBenchArgs {
  tool: LoadTool
  durationS: number
  warmupS: number
  rounds: number
}

/** The flags every load bench takes: `--tool`, `--duration`, `--warmup`, `--rounds`. */
export function parseLoadBenchArgs(values: { tool?: string; duration?: string; warmup?: string; rounds?: string }): LoadBenchArgs {
  const tool = (values.tool ?? defaultTool()) as LoadTool
  if (tool !== 'wrk' && tool !== 'autocannon') throw new Error(`--tool must be wrk or autocannon, not ${values.tool}`)
  const rounds = Number(values.rounds)
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number ≥ 1, not ${values.rounds}`)
  return { tool, durationS: Number(values.duration), warmupS: Number(values.warmup), rounds }
}

/** `parseArgs` options for those flags (defaults: 5 s runs, 1 s warm-up, 3 rounds). */
export const LOAD_BENCH_OPTIONS = {
  tool: { type: 'string' },
  duration: { type: 'string', default: '5' },
  warmup: { type: 'string', default: '1' },
  rounds: { type: 'string', default: '3' },
} as const

export async function runLoad(tool: LoadTool, opts: LoadOptions): Promise<LoadResult> {
  const once = tool === 'wrk' ? runWrk : runAutocannon
  const headers = opts.headers ?? {}
  if (opts.warmupS > 0) await once(opts.url, opts.connections, opts.warmupS, headers)
  const pids = opts.cpuPids?.() ?? null
  const before = pids ? cpuTicks(pids) : 0
  const result = await once(opts.url, opts.connections, opts.durationS, headers)
  if (result.requests === 0) throw new Error(`${tool} made no successful request to ${opts.url}`)
  if (pids) result.cpuUsPerRequest = ((cpuTicks(pids) - before) * (1_000_000 / CLOCK_TICKS_PER_S)) / result.requests
  return result
}

/** USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s on Linux. */
const CLOCK_TICKS_PER_S = 100

/** utime + stime of `pids` (processes that exited count 0). */
export function cpuTicks(pids: number[]): number {
  let sum = 0
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      sum += Number(fields[11]) + Number(fields[12])
    } catch {
      // gone
    }
  }
  return sum
}

async function runAutocannon(url: string, connections: number, durationS: number, headers: Record<string, string>): Promise<LoadResult> {
  const r = await autocannon({ url, connections, duration: durationS, timeout: 5, headers })
  return {
    rps: r.requests.total / (r.duration || durationS),
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    requests: r.requests.total,
    failures: r.errors + r.timeouts + r.non2xx,
    cpuUsPerRequest: null,
  }
}

async function runWrk(url: string, connections: number, durationS: number, headers: Record<string, string>): Promise<LoadResult> {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`])
  const wrk = spawnTracked(WRK, ['-t1', `-c${connections}`, `-d${durationS}s`, '--timeout', '5s', '--latency', ...headerArgs, url])
  const code = await wrk.exited
  const out = wrk.stdout.join('\n')
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${wrk.stderr.join('\n')}\n${out}`)
  return parseWrk(out)
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 }

function duration(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text)
  if (!m) throw new Error(`cannot read wrk duration "${text}"`)
  return Number(m[1]) * UNIT_MS[m[2]!]!
}

/** Reads wrk's `--latency` report. */
export function parseWrk(out: string): LoadResult {
  const pick = (re: RegExp): string => {
    const m = re.exec(out)
    if (!m) throw new Error(`unexpected wrk output (no ${re}):\n${out}`)
    return m[1]!
  }
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out)
  const failures = (socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0) + (non2xx ? Number(non2xx[1]) : 0)
  return {
    rps: Number(pick(/Requests\/sec:\s+([\d.]+)/)),
    p50Ms: duration(pick(/^\s+50%\s+(\S+)\s*$/m)),
    p99Ms: duration(pick(/^\s+99%\s+(\S+)\s*$/m)),
    requests: Number(pick(/(\d+) requests in /)),
    failures,
    cpuUsPerRequest: null,
  }
}
