/**
 * The tree's list of sign-outs (sid → when its identity cookie expires, epoch ms), kept by the
 * supervisor so that every process it starts later (a reloaded or restarted gateway worker, a
 * new page server) refuses those sign-ins too. Without Redis this list is the only record; it
 * lives as long as the `svc run` tree.
 */
const MAX_ENTRIES = 100_000

export interface RevokedSession {
  sid: string
  until: number
}

export class RevokedSessions {
  readonly #ended = new Map<string, number>()

  /** Record `sessions`; returns those that are news (to relay). */
  add(sessions: readonly RevokedSession[]): RevokedSession[] {
    const now = Date.now()
    const fresh = sessions.filter((s) => s.until > now && !this.#ended.has(s.sid))
    for (const s of fresh) this.#ended.set(s.sid, s.until)
    if (this.#ended.size > MAX_ENTRIES) {
      for (const [sid, until] of this.#ended) if (until <= now || this.#ended.size > MAX_ENTRIES) this.#ended.delete(sid)
    }
    return fresh
  }

  /** Every sign-out still in force. */
  list(): RevokedSession[] {
    const now = Date.now()
    for (const [sid, until] of this.#ended) if (until <= now) this.#ended.delete(sid)
    return [...this.#ended].map(([sid, until]) => ({ sid, until }))
  }
}
