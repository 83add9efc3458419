import { relative } from 'node:path'
import { readPidfile } from '../../../state/pidfile.js'
import { readStateFile } from '../../../state/state-file.js'
import { isRunning, isSvcProcess } from '../../process/process-check.js'

/** A running tree as its pid file names it: the supervisor and where its control socket is. */
export type FoundTree = { ok: true; pid: number; socket: string; url: string } | { ok: false; message: string }

function shown(path: string): string {
  const rel = relative(process.cwd(), path)
  return rel === '' || rel.startsWith('..') ? path : rel
}

/**
 * Find the svc a pid file names, as `svc shutdown` does: the pid must be a live svc supervisor
 * (not a stale pid, not a process that reused it), and its state file must name the control socket.
 */
export async function findRunningTree(pidfile: string): Promise<FoundTree> {
  const read = await readPidfile(pidfile)
  if (read.kind === 'missing') return { ok: false, message: `svc is not running here: no pid file at ${shown(pidfile)} (start it with svc run, or pass --pidfile)` }
  if (read.kind === 'invalid') return { ok: false, message: `${shown(pidfile)} does not hold a pid (${JSON.stringify(read.raw.slice(0, 40))}); svc shutdown removes it` }
  let state
  try {
    state = await readStateFile(`${pidfile}.state.json`)
  } catch (err) {
    if (!isRunning(read.pid)) return { ok: false, message: `svc is not running: ${shown(pidfile)} names pid ${read.pid}, which is gone (svc shutdown removes the stale file)` }
    return { ok: false, message: `svc (pid ${read.pid}) is running but its state file cannot be read: ${(err as Error).message}` }
  }
  if (!isRunning(read.pid) || !isSvcProcess(read.pid, state.supervisor_pid === read.pid ? state.cmdline : undefined)) {
    return { ok: false, message: `svc is not running: ${shown(pidfile)} names pid ${read.pid}, which is gone or is not svc (svc shutdown removes the stale file)` }
  }
  const socket = state.version === 2 ? state.control_socket : undefined
  if (!socket) return { ok: false, message: `svc (pid ${read.pid}) has no control socket yet (it is still starting, or it is an svc older than svc reload); try again, or restart it` }
  const host = state.gateway_host.includes(':') ? `[${state.gateway_host}]` : state.gateway_host
  return { ok: true, pid: read.pid, socket, url: `http://${host}:${state.gateway_port}` }
}
