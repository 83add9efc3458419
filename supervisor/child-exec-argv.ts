/**
 * V8's young generation ("semi-space") for the gateway workers and the bundled page server, in
 * MB. Node's default lets it grow to 16 MB per semi-space; at 4 MB a worker holds 8-15 MB less
 * when idle and 50-70 MB less under load, and answered as fast or faster in bench:api and
 * bench:proxy on a 2-core VM (the smaller nursery stays in cache; docs/performance.md, "Memory").
 */
export const CHILD_SEMI_SPACE_MB = 4

const SEMI_SPACE_FLAG = /^--max[-_]semi[-_]space[-_]size(?:=|$)/

/**
 * The Node flags a child is forked with: the supervisor's own (as `fork` would pass them), plus
 * the semi-space size unless the user chose one in NODE_OPTIONS or on the supervisor's command line.
 */
export function childExecArgv(env: NodeJS.ProcessEnv, execArgv: readonly string[] = process.execArgv): string[] {
  const chosen = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)].some((flag) => SEMI_SPACE_FLAG.test(flag))
  return chosen ? [...execArgv] : [...execArgv, `--max-semi-space-size=${CHILD_SEMI_SPACE_MB}`]
}
