/** Exit codes of the `svc` CLI (docs/cli.md). */
export const EXIT = {
  OK: 0,
  /** Runtime failure: sidecar died, crash loop, doctor FAIL, shutdown could not stop the process. */
  FAILURE: 1,
  /** Usage or configuration error, found before any process was started. */
  USAGE: 2,
} as const
