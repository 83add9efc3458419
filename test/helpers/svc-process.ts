import { spawn, type ChildProcess } from 'node:child_process'
import { readdirSync, readlinkSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { setTimeout as delay } from 'node:timers/promises'
import { descendants, isRunning, readCmdline } from '../../src/process/process-check.js'

/**
 * Start a real `svc` process tree for a test, wait until it says where it listens, and take
 * the whole tree down afterwards, failing loudly if anything was left behind.
 */
export const REPO = fileURLToPath(new URL('../..', import.meta.url))
export const SVC_BIN = `${REPO}bin/svc.js`
export const ECHO_SIDECAR = `${REPO}test/fixtures/echo-sidecar.mjs`
export const ECHO_UI_COMMAND = JSON.stringify(['node', ECHO_SIDECAR, '{port}'])

export interface SvcTree {
  proc: ChildProcess
  pid: number
  url: string
  port: number
  stdout: string[]
  stderr: string[]
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>
  /** Pids of the supervisor and all its descendants right now. */
  treePids(): number[]
  /** The first line matching `pattern` from line index `from` on (default: all lines so far). */
  waitForLine(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs?: number, from?: number): Promise<string>
  stop(signal?: NodeJS.Signals): Promise<number | string>
}

export interface StartOptions {
  command?: 'run' | 'dev' | 'workbench'
  target?: string
  args?: string[]
  /** Extra env; `undefined` removes a variable (e.g. the default SVC_UI_COMMAND). */
  env?: Record<string, string | undefined>
  /**
   * Keep svc's pidfile (no `--no-pidfile`): a path is passed as `--pidfile <path>`; `true` keeps
   * the default `./.svc.pid` in `cwd` (unless `args` name another).
   */
  pidfile?: string | true
  /** Leave out `--port 0` (the app or env chooses the port). */
  noPort?: boolean
  cwd?: string
  /** Don't wait for the "listening" line (for trees expected to fail at start). */
  noWait?: boolean
  timeoutMs?: number
}

export { descendants }

/** Pids of the gateway workers under `supervisorPid` (processes titled `svc gateway`). */
export function gatewayWorkerPids(supervisorPid: number): number[] {
  return descendants(supervisorPid).filter((p) => readCmdline(p)?.[0] === 'svc gateway')
}

/** What each open descriptor of `pid` points at (`socket:[inode]`, a file path, …); throws for a process that is gone. */
export function fdTargets(pid: number): string[] {
  const out: string[] = []
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      out.push(readlinkSync(`/proc/${pid}/fd/${fd}`))
    } catch {
      // closed meanwhile
    }
  }
  return out
}

/** Alive and not a zombie (the sandbox's init may not reap, so zombies count as gone). */
export const isAlive = isRunning

/** Wait until none of `pids` is alive; returns the ones still alive at the deadline. */
export async function waitGone(pids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs
  let alive = pids.filter(isAlive)
  while (alive.length > 0 && Date.now() < deadline) {
    await delay(25)
    alive = alive.filter(isAlive)
  }
  return alive
}

export async function startSvc(opts: StartOptions = {}): Promise<SvcTree> {
  const pidfileArgs = opts.pidfile === true ? [] : opts.pidfile ? ['--pidfile', opts.pidfile] : ['--no-pidfile']
  const args = [SVC_BIN, opts.command ?? 'run', opts.target ?? `${REPO}test/fixtures/app-basic.ts:app`, ...(opts.noPort ? [] : ['--port', '0']), ...pidfileArgs, ...(opts.args ?? [])]
  // `svc dev` would type-check the whole repository (its tsconfig.json is found above every test
  // app): off unless a test asks for it (SVC_DEV_TYPE_CHECK: '1').
  const env: Record<string, string | undefined> = { ...process.env, SVC_UI_COMMAND: ECHO_UI_COMMAND, SVC_DEV_TYPE_CHECK: '0', ...opts.env }
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k]
  const proc = spawn(process.execPath, args, {
    cwd: opts.cwd ?? REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const stdout: string[] = []
  const stderr: string[] = []
  const waiters: Array<() => void> = []
  const collect = (into: string[]) => {
    let buf = ''
    return (chunk: Buffer) => {
      buf += chunk.toString()
      const lines = buf.split('\n')
      buf = lines.pop() ?? ''
      into.push(...lines)
      for (const w of waiters.splice(0)) w()
    }
  }
  proc.stdout!.on('data', collect(stdout))
  proc.stderr!.on('data', collect(stderr))
  const exited = new Promise<number | string>((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  let known = new Set<number>()
  const tree: SvcTree = {
    proc,
    pid: proc.pid!,
    url: '',
    port: 0,
    stdout,
    stderr,
    exited,
    treePids: () => [proc.pid!, ...descendants(proc.pid!)],
    async waitForLine(stream, pattern, timeoutMs = 15_000, from = 0) {
      const lines = stream === 'stdout' ? stdout : stderr
      const deadline = Date.now() + timeoutMs
      let seen = from
      for (;;) {
        for (; seen < lines.length; seen++) if (pattern.test(lines[seen]!)) return lines[seen]!
        const left = deadline - Date.now()
        if (left <= 0) {
          const tail = stream === 'stdout' ? `; last stdout lines:\n${stdout.slice(-15).join('\n')}` : ''
          throw new Error(`no ${stream} line matching ${pattern} within ${timeoutMs} ms; stderr:\n${stderr.join('\n')}${tail}`)
        }
        await Promise.race([new Promise<void>((r) => waiters.push(r)), delay(Math.min(left, 200)), exited])
      }
    },
    async stop(signal = 'SIGTERM') {
      for (const p of tree.treePids()) known.add(p)
      if (isAlive(proc.pid!)) proc.kill(signal)
      return exited
    },
  }
  teardowns.push(async () => {
    for (const p of tree.treePids()) known.add(p)
    if (isAlive(proc.pid!)) {
      proc.kill('SIGTERM')
      await Promise.race([exited, delay(12_000)])
    }
    const left = await waitGone([...known], 8_000)
    for (const p of left) {
      try {
        process.kill(p, 'SIGKILL')
      } catch {
        // gone
      }
    }
    if (left.length > 0) throw new Error(`processes left behind after the test: ${left.join(', ')}`)
    known = new Set()
  })
  if (!opts.noWait) {
    const line = await tree.waitForLine('stderr', /listening on http:\/\//, opts.timeoutMs ?? 20_000)
    const m = /listening on (http:\/\/[^/ ]+)/.exec(line)!
    tree.url = m[1]!
    tree.port = Number(new URL(tree.url).port)
  }
  return tree
}

/** SIGKILL every process of `tree` at once (a replica dying), and wait until they are gone. */
export async function sigkillTree(tree: SvcTree, timeoutMs = 5_000): Promise<number[]> {
  const pids = tree.treePids()
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
  return waitGone(pids, timeoutMs)
}

const teardowns: Array<() => Promise<void>> = []

/** Call from afterEach/afterAll: stops every tree started since, verifies nothing is left. */
export async function stopAllTrees(): Promise<void> {
  const errors: unknown[] = []
  for (const t of teardowns.splice(0)) {
    try {
      await t()
    } catch (err) {
      errors.push(err)
    }
  }
  if (errors.length > 0) throw errors[0]
}
