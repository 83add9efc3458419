/** `svc shutdown --wait` default, seconds (docs/cli.md); a module of its own so the CLI's usage text loads nothing else. */
export const DEFAULT_SHUTDOWN_WAIT_S = 10
