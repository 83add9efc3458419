import { rm } from 'node:fs/promises'
import { setTimeout as delay } from 'node:timers/promises'
import { EXIT } from '../../process/exit-codes.js'
import { readPidfile, removePidfile } from '../../../state/pidfile.js'
import { readStateFile, removeStateFile, stateFilePath, type SvcState } from '../../../state/state-file.js'
import { describeProcess, isRunning, isSvcProcess } from '../../process/process-check.js'
import { DEFAULT_SHUTDOWN_WAIT_S } from './wait.js'
import { describeLeftovers, endLeftoverTree } from '../../../state/leftovers.js'
import { killTree } from '../../process/kill-tree.js'
import { SHUTDOWN_KILL_WAIT_MS } from '../../internal/deadlines.js'
import { controlSocketPath } from '../../../supervisor/control-server.js'

/**
 * What `svc shutdown` does with a pidfile: stop the supervisor it names, or clean up when the
 * file is missing, invalid, stale (dead or zombie pid) or names a process that is not svc.
 */

/** How often the pid is polled while waiting for it to exit. */
const POLL_MS = 50
export { DEFAULT_SHUTDOWN_WAIT_S }

export interface ShutdownOptions {
  pidfile: string
  waitS: number
  force: boolean
}

export interface ShutdownOutcome {
  code: number
  message: string
}

async function readStateQuiet(path: string): Promise<SvcState | 'invalid' | null> {
  try {
    return await readStateFile(path)
  } catch (err) {
    return (err as { code?: string }).code === 'SVC_ERR_STATE_MISSING' ? null : 'invalid'
  }
}

/**
 * Remove the state file when it is left over: unreadable, written by `pid`, or (when the pid is
 * unknown) by a supervisor that no longer runs. Another live supervisor's file is kept. True when
 * no state file remains.
 */
async function removeLeftoverState(path: string, pid: number | null): Promise<boolean> {
  const state = await readStateQuiet(path)
  if (state === null) return true
  const leftover =
    state === 'invalid' || state.supervisor_pid === pid || (pid === null && !isSvcProcess(state.supervisor_pid, state.cmdline))
  if (leftover) await removeStateFile(path)
  return leftover
}

/**
 * End what the stopped (or long gone) supervisor's run left behind, then remove the pidfile (only
 * if it still names `pid`: a new supervisor may have replaced it), the state file and the control
 * socket (a supervisor killed with SIGKILL leaves it; only when no other supervisor's state file
 * remains). Resolves with the message suffix naming the leftovers ended.
 */
async function cleanUp(pidfile: string, pid: number | null): Promise<string> {
  const ended = await endLeftoverTree(stateFilePath(pidfile))
  const now = await readPidfile(pidfile)
  const ours = pid === null || now.kind !== 'ok' || now.pid === pid
  if (ours) await removePidfile(pidfile)
  const stateGone = await removeLeftoverState(stateFilePath(pidfile), pid)
  // A named pipe (Windows) goes with its process; a Unix socket file stays until removed.
  if (ours && stateGone && process.platform !== 'win32') await rm(controlSocketPath(pidfile), { force: true })
  return describeLeftovers(ended)
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (isRunning(pid)) {
    if (Date.now() >= deadline) return false
    await delay(POLL_MS)
  }
  return true
}

/** Stop the supervisor a pidfile names; every outcome is a message and an exit code (docs/cli.md). */
export async function shutdownFromPidfile(options: ShutdownOptions): Promise<ShutdownOutcome> {
  const { pidfile, waitS, force } = options
  const read = await readPidfile(pidfile)
  if (read.kind === 'missing') return { code: EXIT.USAGE, message: `svc shutdown: no pid file at ${pidfile} (is svc running here? pass --pidfile)` }
  if (read.kind === 'invalid') {
    const ended = await cleanUp(pidfile, null)
    return { code: EXIT.OK, message: `Removed invalid pid file at ${pidfile}${ended}` }
  }
  const { pid } = read
  if (!isRunning(pid)) {
    const ended = await cleanUp(pidfile, pid)
    return { code: EXIT.OK, message: `Removed stale pid file (pid ${pid} not running)${ended}` }
  }
  const state = await readStateQuiet(stateFilePath(pidfile))
  const expected = state !== null && state !== 'invalid' && state.supervisor_pid === pid ? state.cmdline : undefined
  if (!isSvcProcess(pid, expected)) {
    const what = describeProcess(pid)
    const ended = await cleanUp(pidfile, pid)
    return {
      code: EXIT.OK,
      message: `Removed stale pid file: pid ${pid} now belongs to another program (${what}), not an svc supervisor; it was not signalled${ended}`,
    }
  }
  try {
    process.kill(pid, 'SIGTERM')
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    if (e.code === 'ESRCH') {
      const ended = await cleanUp(pidfile, pid)
      return { code: EXIT.OK, message: `Process ${pid} exited before signal was delivered${ended}` }
    }
    return { code: EXIT.FAILURE, message: `Cannot signal pid ${pid}: ${e.message}` }
  }
  if (await waitForExit(pid, waitS * 1000)) {
    const ended = await cleanUp(pidfile, pid)
    return { code: EXIT.OK, message: `Stopped process ${pid}${ended}` }
  }
  if (!force) return { code: EXIT.FAILURE, message: `Process ${pid} still running after ${waitS.toFixed(1)}s (try --force)` }
  // The supervisor's tree: its group and descendants, and by its tree id what left them.
  await killTree({ pid, cookie: state !== null && state !== 'invalid' && state.version === 2 ? state.tree_id : null, instance: true })
  if (await waitForExit(pid, SHUTDOWN_KILL_WAIT_MS)) {
    const ended = await cleanUp(pidfile, pid)
    return { code: EXIT.OK, message: `Killed process ${pid}${ended}` }
  }
  return { code: EXIT.FAILURE, message: `Process ${pid} still running after SIGKILL` }
}
