import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import { Lifecycle } from '../../internal/lifecycle.js'
import type { ServerMessage } from '../wire/protocol.js'
import type { PageSession, Send } from '../runtime/page-session.js'
import type { PageSnapshots } from './session-snapshots.js'

/** How often sessions whose snapshot write failed are retried, and live snapshots' TTLs checked. */
export const SNAPSHOT_INTERVAL_MS = 1_000
const SESSION_ID = /^[A-Za-z0-9_-]{32}$/

/**
 * Live and recently disconnected page sessions. A session whose socket closed is kept for the
 * TTL (`ui_session_ttl_s`) so a reconnect (proxy blip, laptop sleep) resumes it with its state.
 * Session ids come from the server (192 random bits) and a session is attached to at most one
 * socket: the newest socket presenting the id takes the session over (a reload whose new socket
 * arrives before the old one's close, a reconnect after a half-open connection), and the socket
 * it replaces is told so (`SESSION_TAKEN_OVER_CLOSE_CODE`) and starts a session of its own.
 *
 * With `snapshots` (Redis, when `redis_url` is set), the state of every finished run is written
 * there before the run's result reaches the browser (`committing`), so a replica that dies at any
 * moment loses nothing a visitor has seen; a write that failed is retried every second, and the
 * snapshot's TTL is kept fresh while the session lives. An id this process does not know is
 * looked up there, so a browser whose replica died resumes on this one with its session state and
 * widget values. An id found neither here nor there was not issued by svc: it gets a new session.
 */
export class SessionManager extends Lifecycle {
  readonly #sessions = new Map<string, { session: PageSession; expiry: NodeJS.Timeout | null }>()
  readonly #ttlMs: number
  readonly #create: (id: string) => PageSession
  readonly #logger: Logger
  readonly #snapshots: PageSnapshots | null
  readonly #onDrop: ((id: string) => void) | null
  /** Per session: the generation last written, and the encoded snapshot (to skip identical writes). */
  readonly #saved = new Map<string, { generation: number; encoded: string | null }>()
  #ticks = 0
  readonly #timer: NodeJS.Timeout | null
  /** The last write-through failed (Redis away or slow): results go out without waiting until one succeeds. */
  #degraded = false

  constructor(options: {
    ttlMs: number
    create: (id: string) => PageSession
    logger: Logger
    snapshots?: PageSnapshots | null
    /** A session expired or was closed (a page thread tells the main thread, which routes by id). */
    onDrop?: (id: string) => void
  }) {
    super()
    this.#ttlMs = options.ttlMs
    this.#onDrop = options.onDrop ?? null
    this.#create = options.create
    this.#logger = options.logger
    this.#snapshots = options.snapshots ?? null
    this.#timer = this.#snapshots ? setInterval(() => this.#snapshotTick(), SNAPSHOT_INTERVAL_MS) : null
    this.#timer?.unref()
  }

  get size(): number {
    return this.#sessions.size
  }

  get(id: string): PageSession | undefined {
    return this.#sessions.get(id)?.session
  }

  /**
   * Resume `requestedId` if it is known (attached to another socket or not: the caller hands it
   * over), else from its snapshot on another replica's behalf, else start a new session.
   */
  async open(requestedId: string | null): Promise<{ session: PageSession; restored: boolean }> {
    const entry = requestedId === null ? undefined : this.#sessions.get(requestedId)
    if (entry) {
      if (entry.expiry) clearTimeout(entry.expiry)
      entry.expiry = null
      return { session: entry.session, restored: true }
    }
    if (!entry && requestedId !== null && this.#snapshots && SESSION_ID.test(requestedId)) {
      const resumed = await this.#resume(requestedId)
      if (resumed) return { session: resumed, restored: true }
    }
    const id = randomBytes(24).toString('base64url')
    const session = this.#create(id)
    this.#sessions.set(id, { session, expiry: null })
    return { session, restored: false }
  }

  async #resume(id: string): Promise<PageSession | null> {
    let snapshot: Awaited<ReturnType<PageSnapshots['load']>>
    try {
      snapshot = await this.#snapshots!.load(id)
    } catch (err) {
      this.#logger.warn({ err: (err as Error).message }, 'ui session snapshot unavailable; starting a fresh session')
      return null
    }
    // Another socket may have resumed the same id while we waited for Redis.
    if (!snapshot || this.#sessions.has(id)) return null
    const session = this.#create(id)
    for (const [k, v] of snapshot.state) session.state[k] = v
    // Checked by each widget (type, options, bounds) before the page sees it, like a browser value.
    for (const [k, v] of snapshot.widgets) session.widgets.restore(k, v)
    session.tasks.restore(snapshot.tasks)
    this.#sessions.set(id, { session, expiry: null })
    this.#logger.info({ session_count: this.#sessions.size, state_keys: snapshot.state.size }, 'ui session resumed from its snapshot')
    return session
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

  /**
   * The send function for `session` on one socket: with snapshots, the final render of a run
   * (the result the visitor sees) leaves only once the run's state is written, and what follows
   * waits behind it in order; partial renders and other messages before it go at once. A write
   * that fails lets the render go (the page keeps working) and is retried by the tick; while
   * writes fail, renders do not wait for them. Without snapshots, `send` itself.
   */
  committing(session: PageSession, send: Send): Send {
    if (!this.#snapshots) return send
    const held: { message: ServerMessage; write: Promise<void> | null }[] = []
    const drain = async (): Promise<void> => {
      while (held.length > 0) {
        const head = held[0]!
        if (head.write) await head.write
        held.shift()
        send(head.message)
      }
    }
    return (message) => {
      const write = message.type === 'render' && message.partial !== true ? this.#writeThrough(session) : null
      if (write === null && held.length === 0) return send(message)
      held.push({ message, write })
      if (held.length === 1) void drain()
    }
  }

  /** Write the state `session` has now (a run just finished); null when there is nothing to wait for. */
  #writeThrough(session: PageSession): Promise<void> | null {
    const snapshots = this.#snapshots!
    const encoded = snapshots.encode(session)
    const previous = this.#saved.get(session.id)
    const generation = session.generation
    if (encoded === null || encoded === previous?.encoded) {
      this.#saved.set(session.id, { generation, encoded: encoded ?? previous?.encoded ?? null })
      return null
    }
    this.#saved.set(session.id, { generation, encoded })
    const write = snapshots.save(session.id, encoded).then(
      () => {
        this.#degraded = false
      },
      (err: unknown) => {
        this.#degraded = true
        if (this.#saved.get(session.id)?.encoded === encoded) this.#saved.delete(session.id)
        this.#logger.debug({ err: (err as Error).message }, 'ui session snapshot not written; retried in a second')
      },
    )
    return this.#degraded ? null : write
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

  /** End `id` now, writing no snapshot and reporting no drop (it lives on elsewhere); false when unknown. */
  forget(id: string): boolean {
    const entry = this.#sessions.get(id)
    if (!entry) return false
    if (entry.expiry) clearTimeout(entry.expiry)
    void entry.session.close()
    this.#sessions.delete(id)
    this.#saved.delete(id)
    this.#snapshots?.forget(id)
    return true
  }

  /** Every session that changed since its last snapshot is written, then every session ends. */
  protected async drain(): Promise<void> {
    await this.flushSnapshots()
    this.#endAll()
  }

  /** Every session ends now, without its last snapshot; a drain still writing them ends none again. */
  protected async abort(): Promise<void> {
    this.#endAll()
  }

  #endAll(): void {
    if (this.#timer) clearInterval(this.#timer)
    for (const id of [...this.#sessions.keys()]) this.#drop(id)
  }

  /** On a graceful stop: write every session that changed since its last snapshot, now. */
  async flushSnapshots(): Promise<void> {
    const snapshots = this.#snapshots
    if (!snapshots) return
    const writes: Promise<void>[] = []
    for (const { session } of this.#sessions.values()) {
      if (this.#saved.get(session.id)?.generation === session.generation) continue
      const encoded = snapshots.encode(session)
      if (encoded !== null) writes.push(snapshots.save(session.id, encoded).catch(() => undefined))
    }
    await Promise.all(writes)
  }

  /** Write sessions whose last write failed (once idle); refresh the TTL of the others about twice per TTL. */
  #snapshotTick(): void {
    const snapshots = this.#snapshots!
    const refresh = ++this.#ticks % Math.max(1, Math.floor(this.#ttlMs / 2 / SNAPSHOT_INTERVAL_MS)) === 0
    for (const { session } of this.#sessions.values()) {
      const saved = this.#saved.get(session.id)
      if (saved?.generation === session.generation) {
        if (refresh && saved.encoded !== null) void snapshots.touch(session.id).catch(() => undefined)
        continue
      }
      const generation = session.generation
      void session.idle().then(async () => {
        if (!this.#sessions.has(session.id) || session.generation !== generation) return
        const encoded = snapshots.encode(session)
        const previous = this.#saved.get(session.id)
        this.#saved.set(session.id, { generation, encoded: encoded ?? previous?.encoded ?? null })
        if (encoded === null || encoded === previous?.encoded) return
        await snapshots.save(session.id, encoded).catch((err: unknown) => {
          // Retry on the next tick; the outage itself is logged once by the connection.
          this.#saved.delete(session.id)
          this.#logger.debug({ err: (err as Error).message }, 'ui session snapshot not written')
        })
      })
    }
  }

  #drop(id: string): void {
    if (!this.forget(id)) return
    this.#onDrop?.(id)
    this.#logger.debug({ session_count: this.#sessions.size }, 'ui session expired')
  }
}
