/**
 * Where the BFF keeps login state (PKCE verifier, nonce; default 600 s) and one-time auth codes
 * (the minted access token; default 120 s). The default lives in process memory, which is right
 * for one replica. Behind a load balancer with several replicas, the callback and the exchange
 * may land on another replica than the login: pass a shared store.
 *
 * Contract for an implementation:
 * - `set` stores `value` under `key` for `ttlSeconds`; an expired entry is never returned.
 * - `take` returns the value AND deletes it atomically: when two callers race for one key, at most
 *   one gets the value (Redis: `SET key value EX ttl` and `GETDEL key`). Single use of state and
 *   auth codes rests on this.
 * - Keys are opaque, URL-safe and namespaced (`state:…`, `code:…`); values are JSON strings.
 */
export interface OidcBffStore {
  set(key: string, value: string, ttlSeconds: number): Promise<void>
  take(key: string): Promise<string | undefined>
}

export interface MemoryOidcBffStoreOptions {
  /** Cap on live entries; the oldest are dropped first (login is unauthenticated, so bound it). */
  maxEntries?: number
  /** Monotonic clock in ms; tests may inject one. */
  now?: () => number
}

/** The in-process default store (single replica only). */
export class MemoryOidcBffStore implements OidcBffStore {
  readonly #entries = new Map<string, { value: string; expiresAt: number }>()
  readonly #max: number
  readonly #now: () => number

  constructor(options: MemoryOidcBffStoreOptions = {}) {
    this.#max = options.maxEntries ?? 10_000
    this.#now = options.now ?? (() => performance.now())
  }

  get size(): number {
    return this.#entries.size
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    const now = this.#now()
    this.#purge(now)
    this.#entries.delete(key)
    while (this.#entries.size >= this.#max) {
      const oldest = this.#entries.keys().next().value as string
      this.#entries.delete(oldest)
    }
    this.#entries.set(key, { value, expiresAt: now + ttlSeconds * 1000 })
  }

  async take(key: string): Promise<string | undefined> {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    this.#entries.delete(key)
    return entry.expiresAt > this.#now() ? entry.value : undefined
  }

  // A cheap pass over the oldest entries (Map order is insertion order): stop at the first live
  // one. Entries it misses expire on `take` or fall to the size cap.
  #purge(now: number): void {
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt > now) break
      this.#entries.delete(key)
    }
  }
}
