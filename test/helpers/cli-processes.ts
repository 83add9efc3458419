import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdir, writeFile } from 'node:fs/promises'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import type { Writable } from 'node:stream'
import { setTimeout as delay } from 'node:timers/promises'
import { onTestFinished } from 'vitest'
import { processState, readCmdline } from '../../src/process/process-check.js'
import { isAlive } from './svc-process.js'

/**
 * Processes for `svc shutdown` tests: a pid that has exited, a zombie, an unrelated live
 * process, and fake supervisors. Every one is killed (and reaped) when the test finishes.
 */

function killOnFinish(pids: () => number[]): void {
  onTestFinished(() => {
    for (const pid of pids()) {
      if (!isAlive(pid)) continue
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
  })
}

function firstLine(child: ChildProcess, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! })
    const timer = setTimeout(() => {
      lines.close()
      reject(new Error(`no output from pid ${child.pid} within ${timeoutMs} ms`))
    }, timeoutMs)
    lines.once('line', (line) => {
      clearTimeout(timer)
      lines.close()
      resolve(line)
    })
  })
}

/** Poll a condition that has no event (another process's state) until a deadline. */
export async function waitUntil(what: string, condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await delay(20)
  }
}

/** The pid of a process that has already exited (and been reaped). */
export async function exitedPid(): Promise<number> {
  const child = spawn('true', { stdio: 'ignore' })
  await once(child, 'exit')
  return child.pid!
}

/** `sleep 30`: a live process that is not svc. */
export function spawnUnrelated(): ChildProcess {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' })
  killOnFinish(() => [child.pid!])
  return child
}

/**
 * A zombie: `sh` starts `head` in the background reading fd 3, then execs `sleep 30`, which
 * never reaps children it did not start. Once the exec is seen, closing fd 3 ends `head`, and
 * it stays a zombie of `sleep` until the test kills `sleep`.
 */
export async function spawnZombie(): Promise<{ zombie: number; parent: ChildProcess }> {
  const parent = spawn('sh', ['-c', 'head -c 1 <&3 >/dev/null & echo $!; exec sleep 30 3<&-'], {
    stdio: ['ignore', 'pipe', 'ignore', 'pipe'],
  })
  killOnFinish(() => [parent.pid!])
  const zombie = Number(await firstLine(parent))
  await waitUntil(`pid ${parent.pid} to exec sleep`, () => readCmdline(parent.pid!)?.[0] === 'sleep')
  ;(parent.stdio[3] as Writable).end()
  await waitUntil(`pid ${zombie} to become a zombie`, () => processState(zombie) === 'Z')
  return { zombie, parent }
}

const FAKE_SUPERVISOR = `
// Looks like "svc run" to the PID-reuse check: the script is named svc and the subcommand is run
// (or, with FAKE_TITLE, the process title replaces the command line as the supervisor's would).
const { spawn } = require('node:child_process')
const ignoreTerm = process.env.FAKE_IGNORE_TERM === '1'
if (process.env.FAKE_TITLE) process.title = process.env.FAKE_TITLE
const child = spawn('sleep', ['30'], { stdio: 'ignore' })
process.on('SIGTERM', () => {
  if (ignoreTerm) return
  child.kill('SIGTERM')
  process.exit(0)
})
setInterval(() => {}, 1000)
process.stdout.write('ready ' + child.pid + '\\n')
`

export interface FakeSupervisor {
  proc: ChildProcess
  pid: number
  /** Its own child (`sleep 30`), to check that --force kills the whole tree. */
  childPid: number
  exited: Promise<unknown>
}

export interface FakeSupervisorOptions {
  /** Stay alive on SIGTERM (only SIGKILL ends it). */
  ignoreTerm?: boolean
  /** Set `process.title`, which on Linux replaces /proc/<pid>/cmdline. */
  title?: string
  /** File name of the script under `<dir>/bin/` (default `svc.cjs`). */
  scriptName?: string
}

/** A node script at `<dir>/bin/svc.cjs` run as `svc.cjs run app.ts:app`; it exits on SIGTERM unless `ignoreTerm`. */
export async function spawnFakeSupervisor(dir: string, opts: FakeSupervisorOptions = {}): Promise<FakeSupervisor> {
  const script = join(dir, 'bin', opts.scriptName ?? 'svc.cjs')
  await mkdir(join(dir, 'bin'), { recursive: true })
  await writeFile(script, FAKE_SUPERVISOR)
  const proc = spawn(process.execPath, [script, 'run', 'app.ts:app'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, FAKE_IGNORE_TERM: opts.ignoreTerm ? '1' : '0', FAKE_TITLE: opts.title ?? '' },
  })
  const exited = once(proc, 'exit')
  const line = await firstLine(proc)
  const childPid = Number(line.split(' ')[1])
  killOnFinish(() => [proc.pid!, childPid])
  return { proc, pid: proc.pid!, childPid, exited }
}
