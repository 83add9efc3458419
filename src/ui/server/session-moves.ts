import { performance } from 'node:perf_hooks'
import { BEAT_MS, BUSY_AFTER_MS } from './page-thread-messages.js'
import type { Conn, PageThread } from './page-thread.js'

/** What moving sessions needs of the pool (page-thread-pool.ts). */
export interface MoveHost {
  /** The least loaded thread that takes a session at once (`loaded`: not still loading), other than `except`. */
  free(now: number, except?: PageThread, loaded?: boolean): PageThread | undefined
  /** Another thread may start (fewer than `ui_page_threads`, and the app loads). */
  maySpawn(): boolean
  spawn(): PageThread
  /** Open `conn`'s session (`conn.sessionId`, from its snapshot) on `to`, where it is (`conn.at`): `to` holds it from now. */
  reopen(conn: Conn, to: PageThread): void
}

/**
 * Client messages on their way to page threads, and sessions moved off a thread another
 * session's run holds up. A message waits here (in `conn.held`) while that run has not let its
 * thread turn since it started: the thread's next beat (or the end of its runs) sends it on; once
 * the thread is busy (silent for `BUSY_AFTER_MS`) the session continues on another loaded thread,
 * started if need be, and the message goes there. A thread still loading may take longer than
 * the run: whichever comes first wins.
 */
export class SessionMoves {
  readonly #host: MoveHost

  constructor(host: MoveHost) {
    this.#host = host
  }

  /** One client message of `conn` (its `done` already in `conn.acks`), moved to its thread or held. */
  send(conn: Conn, bytes: Uint8Array): void {
    if (conn.held.length > 0 || conn.moving || this.#heldUp(conn)) {
      conn.held.push(bytes)
      this.#watch(conn.thread!)
    } else this.#forward(conn, bytes)
  }

  /** `thread` turned (a beat, or its runs ended): messages waiting for it go to it. */
  turned(thread: PageThread): void {
    for (const conn of thread.conns.values()) if (conn.held.length > 0 && !conn.moving) this.#flush(conn)
  }

  /** `thread` loaded the app: sessions waiting on a busy thread may move there now. */
  loaded(thread: PageThread, threads: readonly PageThread[]): void {
    const now = performance.now()
    for (const t of threads) if (t !== thread && t.busy(now)) this.#settle(t)
  }

  /** A moved session's first run on its new thread ended: it knows its widgets again, what waited goes now. */
  arrived(conn: Conn): void {
    conn.moving = false
    this.#flush(conn)
  }

  /**
   * Continue `conn`'s session on `to`, from its snapshot; its old thread drops its copy (when it
   * turns again) without writing it. Messages wait until the session has run there once (a
   * widget message needs the widgets of a run).
   */
  move(conn: Conn, to: PageThread): void {
    const from = conn.thread!
    const id = conn.sessionId!
    from.conns.delete(conn.id)
    from.sessions.delete(id)
    from.post({ t: 'drop', conn: conn.id, sessionId: id })
    conn.moving = true
    this.#host.reopen(conn, to)
  }

  #forward(conn: Conn, bytes: Uint8Array): void {
    const thread = conn.thread!
    thread.lastActive = performance.now()
    thread.post({ t: 'msg', conn: conn.id, bytes }, [bytes.buffer as ArrayBuffer])
  }

  #flush(conn: Conn): void {
    for (const bytes of conn.held.splice(0)) this.#forward(conn, bytes)
  }

  /**
   * Whether a message of `conn` waits here rather than behind another session's run on its
   * thread: that run has not let the thread turn since it started (or the thread is busy),
   * nothing else of this socket is in flight there, and its session could move.
   */
  #heldUp(conn: Conn): boolean {
    const thread = conn.thread!
    if (conn.acks.length > 1 || conn.sessionId === null || conn.opened !== null || conn.runSince !== null) return false
    const now = performance.now()
    const blocked = thread.busy(now) || (thread.running > 0 && thread.lastBeat < thread.lastRunStart)
    return blocked && (this.#host.free(now, thread) !== undefined || this.#host.maySpawn())
  }

  /** Once `thread` may be called busy: its held messages move with their sessions, or go to it. */
  #watch(thread: PageThread, afterMs = BUSY_AFTER_MS): void {
    thread.heldTimer ??= setTimeout(() => {
      thread.heldTimer = null
      this.#settle(thread)
    }, afterMs)
  }

  #settle(thread: PageThread): void {
    const now = performance.now()
    if (!thread.busy(now)) {
      // No beat since the run started, and not silent for long enough yet: look again shortly.
      if (thread.running > 0 && thread.lastBeat < thread.lastRunStart) this.#watch(thread, BEAT_MS)
      else this.turned(thread)
      return
    }
    const waiting = [...thread.conns.values()].filter((c) => c.held.length > 0 && !c.moving)
    if (waiting.length === 0) return
    if (this.#host.free(now, thread, true) !== undefined) {
      for (const conn of waiting) this.move(conn, this.#host.free(now, thread, true)!)
      return
    }
    // A thread still loading may take longer than the run holding this one up: wait for either.
    if (this.#host.free(now, thread) !== undefined) return
    if (this.#host.maySpawn()) this.#host.spawn()
    else for (const conn of waiting) this.#flush(conn)
  }
}
