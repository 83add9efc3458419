import type { Writable } from 'node:stream'
import type { ControlAnswer, ControlRequest } from '../../../ipc/control.js'
import { resolvePidfilePath } from '../shutdown/pidfile-path.js'
import { askControl } from './ask.js'
import { findRunningTree } from './find-tree.js'

/**
 * `svc <command>`'s one request to the svc running with `pidfile` (the flag, or its defaults):
 * its answer, or null once a line saying why there is none went to `stderr` (no svc running
 * there, a stale pid file, a control socket that refused or did not answer).
 */
export async function askRunningTree(command: string, pidfile: string | undefined, request: ControlRequest, timeoutMs: number, stderr: Writable): Promise<ControlAnswer | null> {
  const tree = await findRunningTree(resolvePidfilePath(pidfile))
  if (!tree.ok) {
    stderr.write(`svc ${command}: ${tree.message}\n`)
    return null
  }
  try {
    return await askControl(tree.socket, request, timeoutMs)
  } catch (err) {
    stderr.write(`svc ${command}: svc (pid ${tree.pid}, ${tree.url}): ${(err as Error).message}\n`)
    return null
  }
}
