import { setTimeout as delay } from 'node:timers/promises'
import { Command, Option } from 'clipanion'
import treeKill from 'tree-kill'
import { EXIT } from '../exit-codes.js'
import { readPidfile, removePidfile, resolvePidfilePath } from '../../../state/pidfile.js'
import { readStateFile, removeStateFile, stateFilePath, type SvcState } from '../../../state/state-file.js'
import { describeProcess, isRunning, isSvcProcess } from '../../../state/process-check.js'

/** How often the pid is polled while waiting for it to exit. */
const POLL_MS = 50
/** After SIGKILL, how long the process may take to disappear. */
const KILL_WAIT_MS = 2_000
export const DEFAULT_SHUTDOWN_WAIT_S = 10

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
 * unknown) by a supervisor that no longer runs. Another live supervisor's file is kept.
 */
async function removeLeftoverState(path: string, pid: number | null): Promise<void> {
  const state = await readStateQuiet(path)
  if (state === null) return
  const leftover =
    state === 'invalid' || state.supervisor_pid === pid || (pid === null && !isSvcProcess(state.supervisor_pid, state.cmdline))
  if (leftover) await removeStateFile(path)
}

/** Remove the pidfile (only if it still names `pid`: a new supervisor may have replaced it) and the state file. */
async function cleanUp(pidfile: string, pid: number | null): Promise<void> {
  const now = await readPidfile(pidfile)
  if (pid === null || now.kind !== 'ok' || now.pid === pid) await removePidfile(pidfile)
  await removeLeftoverState(stateFilePath(pidfile), pid)
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (isRunning(pid)) {
    if (Date.now() >= deadline) return false
    await delay(POLL_MS)
  }
  return true
}

function killTree(pid: number): Promise<void> {
  // The supervisor's descendants are listed before it dies, so none is orphaned by the SIGKILL.
  return new Promise((resolve) => treeKill(pid, 'SIGKILL', () => resolve()))
}

/** Stop the supervisor a pidfile names; every outcome is a message and an exit code (docs/cli.md). */
export async function shutdownFromPidfile(options: ShutdownOptions): Promise<ShutdownOutcome> {
  const { pidfile, waitS, force } = options
  const read = await readPidfile(pidfile)
  if (read.kind === 'missing') return { code: EXIT.USAGE, message: `No pid file at ${pidfile}` }
  if (read.kind === 'invalid') {
    await cleanUp(pidfile, null)
    return { code: EXIT.OK, message: `Removed invalid pid file at ${pidfile}` }
  }
  const { pid } = read
  if (!isRunning(pid)) {
    await cleanUp(pidfile, pid)
    return { code: EXIT.OK, message: `Removed stale pid file (pid ${pid} not running)` }
  }
  const state = await readStateQuiet(stateFilePath(pidfile))
  const expected = state !== null && state !== 'invalid' && state.supervisor_pid === pid ? state.cmdline : undefined
  if (!isSvcProcess(pid, expected)) {
    const what = describeProcess(pid)
    await cleanUp(pidfile, pid)
    return {
      code: EXIT.OK,
      message: `Removed stale pid file: pid ${pid} now belongs to another program (${what}), not an svc supervisor; it was not signalled`,
    }
  }
  try {
    process.kill(pid, 'SIGTERM')
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    if (e.code === 'ESRCH') {
      await cleanUp(pidfile, pid)
      return { code: EXIT.OK, message: `Process ${pid} exited before signal was delivered` }
    }
    return { code: EXIT.FAILURE, message: `Cannot signal pid ${pid}: ${e.message}` }
  }
  if (await waitForExit(pid, waitS * 1000)) {
    await cleanUp(pidfile, pid)
    return { code: EXIT.OK, message: `Stopped process ${pid}` }
  }
  if (!force) return { code: EXIT.FAILURE, message: `Process ${pid} still running after ${waitS.toFixed(1)}s (try --force)` }
  await killTree(pid)
  if (await waitForExit(pid, KILL_WAIT_MS)) {
    await cleanUp(pidfile, pid)
    return { code: EXIT.OK, message: `Killed process ${pid}` }
  }
  return { code: EXIT.FAILURE, message: `Process ${pid} still running after SIGKILL` }
}

export class ShutdownCommand extends Command {
  static override paths = [['shutdown']]
  static override usage = Command.Usage({
    description: 'Stop the svc supervisor named by a pid file.',
    details: `
      Sends SIGTERM to the supervisor, waits for it to drain and exit, and removes the pid file and
      state file. A stale, invalid or reused pid is never signalled: the pid file is removed instead.
      Exit 0 when nothing runs any more, 1 when the process is still running, 2 when there is no pid file.
    `,
    examples: [
      ['Stop the server started in this directory', '$0 shutdown'],
      ['Wait up to 30 s, then SIGKILL the whole tree', '$0 shutdown --wait 30 --force'],
    ],
  })

  pidfile = Option.String('--pidfile', { description: 'Pid file path (default: SVC_PIDFILE, svc.config.json pidfile, or ./.svc.pid).' })
  wait = Option.String('--wait', { description: `Seconds to wait after SIGTERM (default ${DEFAULT_SHUTDOWN_WAIT_S}).` })
  force = Option.Boolean('--force,-f', false, { description: 'SIGKILL the process tree if it is still running after --wait.' })

  async execute(): Promise<number> {
    const waitS = this.wait === undefined ? DEFAULT_SHUTDOWN_WAIT_S : Number(this.wait)
    if (this.wait !== undefined && (this.wait.trim() === '' || !Number.isFinite(waitS) || waitS < 0)) {
      this.context.stderr.write(`svc shutdown: --wait must be a number of seconds >= 0 (e.g. 10 or 2.5), got ${JSON.stringify(this.wait)}\n`)
      return EXIT.USAGE
    }
    const pidfile = resolvePidfilePath(this.pidfile)
    const outcome = await shutdownFromPidfile({ pidfile, waitS, force: this.force })
    this.context.stdout.write(outcome.message + '\n')
    return outcome.code
  }
}
