import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import type { PageSession } from '../runtime/page-session.js'

/**
 * Live and recently disconnected page sessions. A session whose socket closed is kept for the
 * TTL (`ui_session_ttl_s`) so a reconnect (proxy blip, laptop sleep) resumes it with its state.
 * Session ids come from the server (192 random bits) and a session is attached to at most one
 * socket: a second tab presenting the same id gets a fresh session, never a shared one.
 */
export class SessionManager {
  readonly #sessions = new Map<string, { session: PageSession; expiry: NodeJS.Timeout | null }>()
  readonly #ttlMs: number
  readonly #create: (id: string) => PageSession
  readonly #logger: Logger

  constructor(options: { ttlMs: number; create: (id: string) => PageSession; logger: Logger }) {
    this.#ttlMs = options.ttlMs
    this.#create = options.create
    this.#logger = options.logger
  }

  get size(): number {
    return this.#sessions.size
  }

  get(id: string): PageSession | undefined {
    return this.#sessions.get(id)?.session
  }

  /** Resume `requestedId` if it is known and free, else start a new session. */
  open(requestedId: string | null): { session: PageSession; restored: boolean } {
    const entry = requestedId === null ? undefined : this.#sessions.get(requestedId)
    if (entry && !entry.session.attached) {
      if (entry.expiry) clearTimeout(entry.expiry)
      entry.expiry = null
      return { session: entry.session, restored: true }
    }
    const id = randomBytes(24).toString('base64url')
    const session = this.#create(id)
    this.#sessions.set(id, { session, expiry: null })
    return { session, restored: false }
  }

  /** The socket of `session` closed: keep the session for the TTL, then drop it. */
  release(session: PageSession): void {
    const entry = this.#sessions.get(session.id)
    if (!entry) return
    session.detach()
    if (entry.expiry) clearTimeout(entry.expiry)
    if (this.#ttlMs <= 0) {
      this.#drop(session.id)
      return
    }
    entry.expiry = setTimeout(() => this.#drop(session.id), this.#ttlMs)
    entry.expiry.unref()
  }

  /** Rerun every connected session (the app module was reloaded). */
  rerunAll(): number {
    let n = 0
    for (const { session } of this.#sessions.values()) {
      if (!session.attached) continue
      session.requestRerun()
      n++
    }
    return n
  }

  closeAll(): void {
    for (const id of [...this.#sessions.keys()]) this.#drop(id)
  }

  #drop(id: string): void {
    const entry = this.#sessions.get(id)
    if (!entry) return
    if (entry.expiry) clearTimeout(entry.expiry)
    entry.session.close()
    this.#sessions.delete(id)
    this.#logger.debug({ session_count: this.#sessions.size }, 'ui session expired')
  }
}
