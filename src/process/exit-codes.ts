import { constants } from 'node:os'

/** Exit codes of svc's processes and of the `svc` CLI (docs/cli.md). */
export const EXIT = {
  OK: 0,
  /** Runtime failure: sidecar died, crash loop, doctor FAIL, shutdown could not stop the process, a forced stop. */
  FAILURE: 1,
  /** Usage or configuration error, found before any process was started. */
  USAGE: 2,
} as const

const signalNumbers = constants.signals as Record<string, number>

/** A child's ending as one exit code, as a shell reports it: its code, or 128 + the signal's number. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  return code ?? 128 + (signal ? (signalNumbers[signal] ?? 0) : 0)
}
