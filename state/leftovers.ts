import { killTree } from '../src/process/kill-tree.js'
import { isRunning, isSvcProcess } from '../src/process/process-check.js'
import { readStateFile } from './state-file.js'
import { LEFTOVER_GRACE_MS } from '../src/internal/deadlines.js'


/**
 * End what a run left behind when its supervisor and the sidecar guard were killed together
 * (SIGKILL, OOM): the state file names the run's `tree_id`, and every process still carrying it
 * in its environment belongs to that run. Nothing happens while that supervisor still runs, for
 * a state file without a tree id (version 1) or one that cannot be read. Resolves with how many
 * processes were ended.
 */
export async function endLeftoverTree(statePath: string): Promise<number> {
  let state
  try {
    state = await readStateFile(statePath)
  } catch {
    return 0
  }
  if (state.version !== 2) return 0
  const pid = state.supervisor_pid
  if (pid !== process.pid && isRunning(pid) && isSvcProcess(pid, state.cmdline)) return 0
  return killTree({ cookie: state.tree_id, instance: true }, LEFTOVER_GRACE_MS)
}

/** `; ended 3 leftover process(es) of its tree` for messages, or nothing. */
export function describeLeftovers(count: number): string {
  return count > 0 ? `; ended ${count} leftover process(es) of its tree` : ''
}
