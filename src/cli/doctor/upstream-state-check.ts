import { isSvcError } from '../../errors.js'
import { readStateFile, stateFilePath, type SvcState } from '../../../state/state-file.js'
import { isRunning } from '../../process/process-check.js'
import { probeTcp } from './net-probe.js'
import { fail, pass, warn, type Check } from './types.js'

/** How long the UI upstream may take to accept a TCP connection. */
export const UPSTREAM_PROBE_TIMEOUT_MS = 250

function hostPort(url: URL): { host: string; port: number } {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80
  return { host, port }
}

/** The state file next to the pidfile: is a running svc there, and does its UI sidecar answer? */
export const uiUpstreamState: Check = async (ctx) => {
  const name = 'ui_upstream_state'
  const path = stateFilePath(ctx.pidfile)
  let state: SvcState
  try {
    state = await readStateFile(path)
  } catch (err) {
    if (isSvcError(err) && err.code === 'SVC_ERR_STATE_MISSING') return pass(name, `no running svc (no state file at ${path})`)
    return fail(name, (err as Error).message)
  }
  if (!isRunning(state.supervisor_pid)) {
    return warn(name, `stale state file ${path}: supervisor pid ${state.supervisor_pid} is not running; "svc shutdown" cleans it up`)
  }
  const { host, port } = hostPort(new URL(state.ui_upstream))
  const probe = await probeTcp(host, port, UPSTREAM_PROBE_TIMEOUT_MS)
  if (probe.ok) return pass(name, `${state.ui_upstream} reachable (supervisor pid ${state.supervisor_pid})`)
  return warn(name, `${state.ui_upstream} unreachable (${probe.code}); supervisor pid ${state.supervisor_pid} is running — see its logs`)
}
