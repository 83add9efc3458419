import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { descendants } from '../../src/process/process-check.js'

const REPO = join(import.meta.dirname, '..', '..')
const BIN = join(REPO, 'bin', 'svc.js')

export interface SvcRun {
  /** `http://127.0.0.1:PORT` */
  origin: string
  /** Browser URL of the app root: origin + root path + '/'. */
  url: string
  pid: number
  /** Everything the process tree printed so far (for failure messages). */
  output(): string
  /** Pids of the gateway worker processes (children of the supervisor titled `svc gateway`). */
  gatewayWorkerPids(): number[]
  /** Resolves once stderr/stdout shows a line matching `re` after `fromLength` characters of output. */
  waitForOutput(re: RegExp, timeoutMs?: number, fromLength?: number): Promise<string>
  stop(): Promise<void>
}


function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')
  } catch {
    return ''
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal)
    } catch {
      // Already gone, or not a group leader.
    }
  }
}

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string, diag: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n--- svc output ---\n${diag()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * Starts `svc run <target> --port 0 --host 127.0.0.1 ...args` (with `--no-pidfile` unless `args`
 * name a `--pidfile`) as its own process group, waits
 * for the "listening on" line and for `GET {root}/api/readyz` = 200. `stop()` sends SIGTERM to
 * the supervisor, then SIGKILLs whatever of the tree is left after a deadline.
 */
export async function startSvc(target: string, args: string[] = [], env: NodeJS.ProcessEnv = {}, timeoutMs = 45_000): Promise<SvcRun> {
  // Trees of parallel test files share the repository as cwd: one pid file each, or none.
  const pidfile = args.some((a) => a === '--pidfile' || a.startsWith('--pidfile=')) ? [] : ['--no-pidfile']
  const child: ChildProcess = spawn(process.execPath, [BIN, 'run', target, '--port', '0', '--host', '127.0.0.1', ...pidfile, ...args], {
    cwd: REPO,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SVC_LOG_LEVEL: 'warn', ...env },
  })
  const pid = child.pid!
  let output = ''
  const listeners = new Set<() => void>()
  const append = (chunk: Buffer) => {
    output += chunk.toString()
    for (const l of listeners) l()
  }
  child.stdout!.on('data', append)
  child.stderr!.on('data', append)
  let exited = false
  child.once('exit', () => {
    exited = true
    for (const l of listeners) l()
  })
  const known = new Set<number>()
  const remember = () => descendants(pid).forEach((p) => known.add(p))

  const waitForOutput = (re: RegExp, ms = timeoutMs, from = 0) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const m = re.exec(output.slice(from))
        if (m) return done(() => resolve(m[0]))
        if (exited) return done(() => reject(new Error(`svc exited before printing ${re}\n--- svc output ---\n${output}`)))
      }
      const timer = setTimeout(() => done(() => reject(new Error(`no ${re} within ${ms} ms\n--- svc output ---\n${output}`))), ms)
      const done = (f: () => void) => {
        clearTimeout(timer)
        listeners.delete(check)
        f()
      }
      listeners.add(check)
      check()
    })

  const stop = async () => {
    remember()
    if (!exited) killQuietly(pid, 'SIGTERM')
    try {
      await waitUntil(() => exited, 15_000, 'svc to exit after SIGTERM', () => output)
    } finally {
      killQuietly(pid, 'SIGKILL')
      for (const p of known) if (alive(p)) killQuietly(p, 'SIGKILL')
    }
  }

  try {
    const line = await waitForOutput(/listening on (http:\/\/[^\s/]+)(\S*)/)
    const m = /listening on (http:\/\/[^\s/]+)(\S*)/.exec(line)!
    const origin = m[1]!
    const url = `${origin}${m[2] || '/'}`
    const root = url.slice(origin.length).replace(/\/$/, '')
    await waitUntil(
      async () => {
        try {
          return (await fetch(`${origin}${root}/api/readyz`)).status === 200
        } catch {
          return false
        }
      },
      timeoutMs,
      `${origin}${root}/api/readyz = 200`,
      () => output,
    )
    remember()
    return {
      origin,
      url,
      pid,
      output: () => output,
      gatewayWorkerPids: () => descendants(pid).filter((p) => cmdline(p).startsWith('svc gateway')),
      waitForOutput,
      stop,
    }
  } catch (err) {
    await stop()
    throw err
  }
}
