import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { setTimeout as delay } from 'node:timers/promises'
import { descendants, isRunning } from '../../src/process/process-check.js'

/**
 * Child processes of a bench run: every process started here is tracked with its whole tree, so
 * a finished run, a failure or Ctrl-C leaves nothing behind. svc's children are their own process
 * groups, so the tree is walked through /proc rather than signalled as one group.
 */
export interface Tracked {
  readonly proc: ChildProcess
  readonly pid: number
  readonly stdout: string[]
  readonly stderr: string[]
  readonly exited: Promise<number | string>
  /** The first line on `stream` matching `pattern`, or an error at the deadline or on exit. */
  waitForLine(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs: number): Promise<string>
  /** The process and all its descendants right now. */
  treePids: () => number[]
  /** SIGTERM, then SIGKILL for every process of the tree still alive after `graceMs`. */
  stop(graceMs?: number): Promise<void>
}

const live = new Set<Tracked>()

export { descendants }
export const isAlive = isRunning

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal)
  } catch {
    // already gone
  }
}

export function spawnTracked(command: string, args: string[], options: SpawnOptions = {}): Tracked {
  const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options })
  const stdout: string[] = []
  const stderr: string[] = []
  const wakeups: Array<() => void> = []
  const collect = (into: string[]) => {
    let buf = ''
    return (chunk: Buffer): void => {
      buf += chunk.toString()
      const lines = buf.split('\n')
      buf = lines.pop() ?? ''
      into.push(...lines)
      for (const w of wakeups.splice(0)) w()
    }
  }
  proc.stdout?.on('data', collect(stdout))
  proc.stderr?.on('data', collect(stderr))
  proc.on('error', () => {})
  const exited = new Promise<number | string>((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  const known = new Set<number>()
  const remember = (): void => {
    if (!isAlive(proc.pid!)) return
    known.add(proc.pid!)
    for (const p of descendants(proc.pid!)) known.add(p)
  }
  let stopping: Promise<void> | null = null
  const tracked: Tracked = {
    proc,
    pid: proc.pid ?? -1,
    stdout,
    stderr,
    exited,
    treePids: () => (isAlive(proc.pid!) ? [proc.pid!, ...descendants(proc.pid!)] : []),
    async waitForLine(stream, pattern, timeoutMs) {
      const lines = stream === 'stdout' ? stdout : stderr
      const deadline = Date.now() + timeoutMs
      let exitedWith: number | string | null = null
      void exited.then((c) => (exitedWith = c))
      for (let seen = 0; ; ) {
        for (; seen < lines.length; seen++) if (pattern.test(lines[seen]!)) return lines[seen]!
        const left = deadline - Date.now()
        if (left <= 0 || exitedWith !== null) {
          const why = exitedWith !== null ? `it exited (${String(exitedWith)})` : `none within ${timeoutMs} ms`
          throw new Error(`${command} ${args.join(' ')}: no ${stream} line matching ${pattern}, ${why}; stderr:\n${stderr.slice(-20).join('\n')}`)
        }
        await Promise.race([new Promise<void>((r) => wakeups.push(r)), delay(Math.min(left, 100)), exited])
      }
    },
    stop(graceMs = 8_000) {
      stopping ??= (async () => {
        remember()
        kill(proc.pid!, 'SIGTERM')
        const deadline = Date.now() + graceMs
        while ([...known].some(isAlive) && Date.now() < deadline) await delay(20)
        for (const p of known) if (isAlive(p)) kill(p, 'SIGKILL')
        live.delete(tracked)
      })()
      return stopping
    },
  }
  live.add(tracked)
  // Descendants are remembered while the parent lives, so orphans can still be found at stop.
  const watch = setInterval(remember, 250)
  watch.unref()
  void exited.then(() => clearInterval(watch))
  return tracked
}

/** Stop everything still running (end of run, error, Ctrl-C). */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((t) => t.stop(3_000)))
}

let installed = false

/** On Ctrl-C, SIGTERM or an unhandled error: stop every tracked tree, then exit. */
export function installCleanup(): void {
  if (installed) return
  installed = true
  const bail = (code: number) => (reason?: unknown): void => {
    if (reason instanceof Error) process.stderr.write(`\nbench failed: ${reason.stack ?? reason.message}\n`)
    else if (reason !== undefined && typeof reason !== 'string') process.stderr.write(`\nbench failed: ${String(reason)}\n`)
    else process.stderr.write('\nbench interrupted; stopping its processes\n')
    void stopAll().finally(() => process.exit(code))
  }
  process.once('SIGINT', bail(130))
  process.once('SIGTERM', bail(143))
  process.once('uncaughtException', bail(1))
  process.once('unhandledRejection', bail(1))
}
