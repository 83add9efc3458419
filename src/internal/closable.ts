/**
 * The close contract's shape for the parts not yet on `Lifecycle` (src/internal/lifecycle.ts,
 * which writes it once; test/unit/lifecycle-parts.test.ts lists them), after undici's
 * Dispatcher: `close()` stops taking new work and finishes what is in flight, `destroy()` stops now. Both are idempotent: a repeated call returns
 * the same promise, and `destroy()` after `close()` cuts the close short and is safe.
 */
export interface Closable<CloseArgs extends unknown[] = []> {
  close(...args: CloseArgs): Promise<void>
  destroy(): Promise<void>
}
