import { readStateFile, stateFilePath } from '../../../state/state-file.js'
import { isRunning, isSvcProcess } from '../../process/process-check.js'
import { pass, type CheckRow, type RunningTree } from './types.js'

/** The live svc the state file next to `pidfile` names, or null (none, stale, or not svc). */
export async function runningTree(pidfile: string): Promise<RunningTree | null> {
  try {
    const state = await readStateFile(stateFilePath(pidfile))
    if (!isRunning(state.supervisor_pid) || !isSvcProcess(state.supervisor_pid, state.cmdline)) return null
    return { pid: state.supervisor_pid, host: state.gateway_host, port: state.gateway_port, workers: state.workers.length, target: state.target }
  } catch {
    return null
  }
}

/** `running_tree`: which tree the rows below judge. */
export function runningTreeRow(tree: RunningTree | null, pidfile: string, flagged: string[], settingsValid: boolean): CheckRow {
  if (!tree) return pass('running_tree', `no svc runs with ${pidfile}: ${settingsValid ? 'the rows below judge a start with these settings' : 'the rows below that need settings are skipped until the settings row passes'}`)
  const host = tree.host.includes(':') ? `[${tree.host}]` : tree.host
  const flags = flagged.length > 0 ? `, except ${flagged.join(' and ')} from the command line` : ''
  const judged = settingsValid ? `the rows below judge that tree${flags}` : 'the rows below that need settings are skipped until the settings row passes'
  return pass('running_tree', `svc runs with ${pidfile}: supervisor pid ${tree.pid}, ${tree.target} at http://${host}:${tree.port} with ${tree.workers} gateway worker${tree.workers === 1 ? '' : 's'}; ${judged}`)
}
