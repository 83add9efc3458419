/**
 * The one lifecycle contract of svc's long-lived parts (proxies, gateway server, gateway,
 * supervisor-side children), after undici's Dispatcher: `close()` stops taking new work and
 * finishes what is in flight, `destroy()` stops now. Both are idempotent: a repeated call returns
 * the same promise, and `destroy()` after `close()` cuts the close short and is safe.
 */
export interface Closable<CloseArgs extends unknown[] = []> {
  close(...args: CloseArgs): Promise<void>
  destroy(): Promise<void>
}
