import { setFlagsFromString } from 'node:v8'

/**
 * For a process whose work is supervising, not serving (the svc supervisor): V8's optimising
 * compilers (Maglev, TurboFan) stay off from here on; Ignition and the Sparkplug baseline stay.
 * What they compiled during start-up, and the memory their compile jobs took, stays resident for
 * the life of the process: measured at rest (bench:memory), the supervisor is 77 → 69 MB RSS on
 * Node 24 and 61 → 58 MB on Node 20 without them. The supervisor's own work (IPC, a status, a metrics scrape,
 * a reload's bookkeeping) is a few ms at most either way. Set at run time, not as a command-line
 * flag, so the children it forks (gateway workers, the page server), which inherit its
 * `execArgv`, keep every compiler. docs/performance.md, "Memory of the tree".
 */
export function keepJitLean(): void {
  setFlagsFromString('--no-opt')
  setFlagsFromString('--no-maglev')
}
