/**
 * Reconnect delays: exponential from `baseMs` up to `maxMs`, each multiplied by a random
 * factor in [1 - jitter, 1 + jitter] so that many tabs do not reconnect in lock-step after a
 * gateway restart.
 */
export interface BackoffOptions {
  baseMs: number
  maxMs: number
  jitter: number
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 10_000, jitter: 0.2 }

export function backoffDelay(attempt: number, opts: BackoffOptions = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, attempt))
  const factor = 1 - opts.jitter + random() * 2 * opts.jitter
  return Math.round(exp * factor)
}
