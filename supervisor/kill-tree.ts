import treeKill from 'tree-kill'

/** Signal a process group (children are started detached, as group leaders); ignore "gone". */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    try {
      process.kill(pid, signal)
    } catch {
      // already gone
    }
  }
}

/** SIGKILL the group and every descendant that left it (setsid, double fork). */
export async function killTree(pid: number): Promise<void> {
  // Walk the tree while its parents still live, then sweep the group for the rest.
  await new Promise<void>((resolve) => treeKill(pid, 'SIGKILL', () => resolve()))
  signalGroup(pid, 'SIGKILL')
}
