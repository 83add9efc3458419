/**
 * Sign-ins that were signed out. Each sign-in has a session id (`sid`), carried by its identity
 * cookie and by every API token minted for it; sign-out records the sid here as ended until the
 * cookie would have expired, and every check of that cookie or token (each page run, each API
 * call) is refused from then on, a copy of the cookie included.
 *
 * One instance per process that loads the app. It learns of sign-outs three ways: its own
 * (`revoke`), the rest of its `svc run` tree (the supervisor relays them to every gateway worker
 * and the page server, and hands the list to every process it starts), and, with `redis_url`,
 * other replicas (a key per ended sign-in, read on a check this process has not heard of, and a
 * published message that reaches open pages at once).
 */

/** Where ended sign-ins are shared between replicas (Redis); null: this tree only. */
export interface RevocationBackend {
  revoke(sid: string, ttlSeconds: number): Promise<void>
  isRevoked(sid: string): Promise<boolean>
  /** Call `listener` with each sign-in another process revokes from now on (and until when). */
  subscribe(listener: (sid: string, untilMs: number) => void): void
}

/** A sid as svc mints them (base64url); anything else from a relay or a channel is dropped. */
export const SID_PATTERN = /^[A-Za-z0-9_-]{16,64}$/

/** At most this many ended sign-ins are kept in memory (the oldest expiries go first). */
const MAX_ENTRIES = 100_000

export class SessionRevocations {
  readonly #backend: RevocationBackend | null
  /** sid → when its cookie expires (epoch ms): past that, nothing could use it anyway. */
  readonly #ended = new Map<string, number>()
  readonly #listeners = new Set<(sid: string) => void>()
  readonly #relays = new Set<(sid: string, untilMs: number) => void>()
  #subscribed = false

  constructor(backend: RevocationBackend | null = null) {
    this.#backend = backend
  }

  /** Sign-in `sid` ended; it would have lasted until `untilMs`. Told to the tree and the replicas. */
  async revoke(sid: string, untilMs: number): Promise<void> {
    const ttlSeconds = Math.ceil((untilMs - Date.now()) / 1000)
    if (!SID_PATTERN.test(sid) || ttlSeconds <= 0) return
    this.#record(sid, untilMs)
    for (const relay of this.#relays) relay(sid, untilMs)
    await this.#backend?.revoke(sid, ttlSeconds)
  }

  /** Another process of the tree (through the supervisor) or of a replica revoked `sid`. */
  receive(sid: string, untilMs: number): void {
    if (!SID_PATTERN.test(sid) || untilMs <= Date.now() || this.#ended.has(sid)) return
    this.#record(sid, untilMs)
  }

  /**
   * Whether sign-in `sid` ended. With Redis, a sid this process has not heard of is looked up
   * there (a replica started after the sign-out); when Redis does not answer this throws
   * `SVC_ERR_REDIS_UNAVAILABLE`, and callers count the sign-in as ended.
   */
  async isRevoked(sid: string): Promise<boolean> {
    const until = this.#ended.get(sid)
    if (until !== undefined) {
      if (until > Date.now()) return true
      this.#ended.delete(sid)
    }
    return this.#backend ? this.#backend.isRevoked(sid) : false
  }

  /** `listener(sid)` on every sign-out this process learns of (open pages sign out at once). */
  onRevoked(listener: (sid: string) => void): () => void {
    this.#listeners.add(listener)
    if (!this.#subscribed && this.#backend) {
      this.#subscribed = true
      this.#backend.subscribe((sid, untilMs) => this.receive(sid, untilMs))
    }
    return () => this.#listeners.delete(listener)
  }

  /** `relay(sid, untilMs)` on every sign-out made in this process: the gateway sends it to the supervisor. */
  relayTo(relay: (sid: string, untilMs: number) => void): void {
    this.#relays.add(relay)
  }

  /** The ended sign-ins still in force, for a process that starts later. */
  entries(): { sid: string; until: number }[] {
    const now = Date.now()
    return [...this.#ended].filter(([, until]) => until > now).map(([sid, until]) => ({ sid, until }))
  }

  #record(sid: string, untilMs: number): void {
    this.#ended.set(sid, untilMs)
    if (this.#ended.size > MAX_ENTRIES) this.#prune()
    for (const listener of this.#listeners) listener(sid)
  }

  #prune(): void {
    const now = Date.now()
    for (const [sid, until] of this.#ended) if (until <= now) this.#ended.delete(sid)
    // Still too many: the ones that expire first go (Map order is insertion order, close enough).
    for (const sid of this.#ended.keys()) {
      if (this.#ended.size <= MAX_ENTRIES) break
      this.#ended.delete(sid)
    }
  }
}
