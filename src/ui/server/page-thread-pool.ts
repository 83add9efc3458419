import { performance } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import { SvcError, type SvcErrorCode } from '../../errors.js'
import type { MediaStore } from '../media-store.js'
import type { ClientMessage } from '../protocol.js'
import type { StContext } from '../st-types.js'
import type { BoundSession, SessionHost, SessionOutput } from './local-sessions.js'
import { BUSY_AFTER_MS, type FromPageThread, type PageThreadData, type ToPageThread } from './page-thread-messages.js'

/** A page thread that does not answer `close` within this is terminated. */
export const THREAD_CLOSE_MS = 3_000
/** Close code for sockets of a page thread that crashed: the browser reconnects (to another thread). */
export const THREAD_CRASH_CLOSE_CODE = 1012

interface Conn {
  out: SessionOutput
  opened: ((bound: BoundSession) => void) | null
  failed: ((err: Error) => void) | null
}

class PageThread {
  readonly worker: Worker
  readonly ready: Promise<void>
  readonly conns = new Map<number, Conn>()
  readonly sessions = new Set<string>()
  pendingOpens = 0
  /** Sessions of this thread with a run in progress (a run may be burning CPU right now). */
  running = 0
  lastBeat = performance.now()
  alive = true
  wasReady = false
  /** The uncaught error it died of, if any. */
  error: Error | null = null
  closed: (() => void) | null = null
  readonly reloads: ((reran: number) => void)[] = []

  constructor(worker: Worker, ready: Promise<void>) {
    this.worker = worker
    this.ready = ready
  }

  post(m: ToPageThread): void {
    this.worker.postMessage(m)
  }

  get load(): number {
    return this.sessions.size + this.pendingOpens
  }

  /** A thread still loading the app is not busy: a session placed there waits for it, then runs alone. */
  busy(now: number): boolean {
    return this.wasReady && now - this.lastBeat > BUSY_AFTER_MS
  }
}

/**
 * Page sessions on a pool of worker threads, so a page burning CPU stalls only the sessions of
 * its own thread. The main thread keeps HTTP and the sockets and relays page-protocol messages.
 * A session is pinned to the thread that created it (its state lives there); a new one goes to
 * the thread with the fewest sessions among those whose event loop is turning. A thread that
 * crashes is replaced; its sockets are closed so their browsers reconnect to a live thread.
 */
export class PageThreadPool implements SessionHost {
  readonly #size: number
  readonly #data: PageThreadData
  #media: MediaStore | null = null
  #logger: Logger | null = null
  readonly #threads: PageThread[] = []
  readonly #bySession = new Map<string, PageThread>()
  #nextConn = 1
  #closing = false
  /** When recent threads stopped, for the replacement back-off. */
  #crashes: number[] = []
  readonly #respawns = new Set<NodeJS.Timeout>()

  /** Threads start with `warm()` or the first session, not here: an idle page server holds none. */
  #warm = false

  constructor(options: { size: number; data: PageThreadData }) {
    this.#size = options.size
    this.#data = options.data
  }

  /**
   * Start the threads (each loads the app, about half a second and 80-90 MiB): called when the
   * first page is requested, so they load while the browser fetches the client and connects.
   * Idempotent.
   */
  warm(): void {
    if (this.#warm || this.#closing) return
    this.#warm = true
    this.#logger?.info({ page_threads: this.#size }, 'ui page threads starting (first page request)')
    this.#fill()
  }

  /** The page server's media store and logger, known once its own thread has loaded the app. */
  bind(options: { media: MediaStore; logger: Logger }): void {
    this.#media = options.media
    this.#logger = options.logger
  }

  /** Live sessions across the threads. */
  get size(): number {
    return this.#bySession.size
  }

  #fill(): void {
    while (this.#threads.length < this.#size) this.#spawn()
  }

  async open(hello: { requestedId: string | null; path: string; query: string }, context: StContext, out: SessionOutput): Promise<BoundSession> {
    this.warm()
    const pinned = hello.requestedId === null ? undefined : this.#bySession.get(hello.requestedId)
    const thread = pinned?.alive ? pinned : this.#pick()
    thread.pendingOpens++
    try {
      await thread.ready
      if (!thread.alive) throw new SvcError('SVC_ERR_UI_PAGE_THREAD', 'the page thread stopped while the session was opening')
      const conn = this.#nextConn++
      return await new Promise<BoundSession>((resolve, reject) => {
        thread.conns.set(conn, { out, opened: resolve, failed: reject })
        thread.post({ t: 'open', conn, requestedId: hello.requestedId, path: hello.path, query: hello.query, context })
      })
    } finally {
      thread.pendingOpens--
    }
  }

  /** Every thread re-imports the app module and reruns its sessions; resolves with the number rerun. */
  async reload(): Promise<number> {
    const counts = await Promise.all(
      this.#threads.map(async (t) => {
        await t.ready.catch(() => undefined)
        if (!t.alive) return 0
        return new Promise<number>((resolve) => {
          t.reloads.push(resolve)
          t.post({ t: 'reload' })
        })
      }),
    )
    return counts.reduce((a, b) => a + b, 0)
  }

  /** Threads flush their session snapshots and close; one that does not answer in time is terminated. */
  async close(): Promise<void> {
    this.#closing = true
    for (const timer of this.#respawns) clearTimeout(timer)
    await Promise.all(
      this.#threads.map(async (t) => {
        if (t.alive) {
          const closed = new Promise<void>((resolve) => (t.closed = resolve))
          t.post({ t: 'close' })
          let timer: NodeJS.Timeout | undefined
          await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, THREAD_CLOSE_MS)))])
          clearTimeout(timer)
        }
        await t.worker.terminate()
      }),
    )
  }

  /**
   * Fewest sessions among idle threads (event loop turning, no run in progress), else among
   * threads whose event loop turns (a run that awaits I/O), else among all.
   */
  #pick(): PageThread {
    const now = performance.now()
    const live = this.#threads.filter((t) => t.alive)
    if (live.length === 0) throw new SvcError('SVC_ERR_UI_PAGE_THREAD', 'no page thread is running (they are being replaced); the browser retries')
    const turning = live.filter((t) => !t.busy(now))
    const idle = turning.filter((t) => t.running === 0)
    const pool = idle.length > 0 ? idle : turning.length > 0 ? turning : live
    let best = pool[0]!
    for (const t of pool) if (t.load < best.load) best = t
    return best
  }

  #spawn(): PageThread {
    const worker = new Worker(new URL('./page-thread-main.js', import.meta.url), { workerData: this.#data })
    let ready!: () => void
    let failed!: (err: Error) => void
    const thread = new PageThread(
      worker,
      new Promise<void>((resolve, reject) => {
        ready = resolve
        failed = reject
      }),
    )
    // A caller awaits `ready`; a replacement nobody waits for must not become an unhandled rejection.
    thread.ready.catch(() => undefined)
    this.#threads.push(thread)
    worker.on('message', (m: FromPageThread) => this.#onMessage(thread, m, ready, failed))
    worker.on('error', (err) => {
      thread.error = err
      this.#logger?.error({ err }, 'ui page thread crashed')
    })
    worker.on('exit', (code) => {
      thread.alive = false
      failed(thread.error ?? new SvcError('SVC_ERR_UI_PAGE_THREAD', `a page thread exited (code ${code}) before it was ready`))
      thread.closed?.()
      for (const r of thread.reloads.splice(0)) r(0)
      if (this.#closing) return
      if (thread.wasReady) this.#crashed(thread, code)
      else this.#remove(thread)
      this.#replace()
    })
    return thread
  }

  #onMessage(thread: PageThread, m: FromPageThread, ready: () => void, failed: (err: Error) => void): void {
    switch (m.t) {
      case 'beat':
        thread.lastBeat = performance.now()
        thread.running = m.running
        return
      case 'out':
        if (m.running !== undefined) thread.running = m.running
        thread.conns.get(m.conn)?.out.send(m.data)
        return
      case 'media':
        this.#media?.add(m.bytes, m.mime, m.fileName)
        return
      case 'opened': {
        const conn = thread.conns.get(m.conn)
        const previous = this.#bySession.get(m.sessionId)
        if (previous && previous !== thread) previous.sessions.delete(m.sessionId)
        this.#bySession.set(m.sessionId, thread)
        thread.sessions.add(m.sessionId)
        if (!conn?.opened) {
          thread.post({ t: 'release', conn: m.conn })
          return
        }
        conn.opened(this.#bind(thread, m.conn, m.sessionId))
        conn.opened = conn.failed = null
        return
      }
      case 'open_failed': {
        const conn = thread.conns.get(m.conn)
        thread.conns.delete(m.conn)
        conn?.failed?.(new SvcError('SVC_ERR_UI_PAGE_THREAD', `the page thread could not open the session: ${m.message}`))
        return
      }
      case 'gone':
        if (this.#bySession.get(m.sessionId) === thread) this.#bySession.delete(m.sessionId)
        thread.sessions.delete(m.sessionId)
        return
      case 'reloaded':
        thread.reloads.shift()?.(m.reran)
        return
      case 'closed':
        thread.closed?.()
        return
      case 'ready':
        thread.lastBeat = performance.now()
        thread.wasReady = true
        ready()
        return
      case 'fatal':
        failed(new SvcError((m.code as SvcErrorCode | null) ?? 'SVC_ERR_UI_SIDECAR_START', m.message))
        return
    }
  }

  #bind(thread: PageThread, conn: number, id: string): BoundSession {
    return {
      id,
      handle: (msg: ClientMessage) => {
        if (thread.alive) thread.post({ t: 'msg', conn, msg })
      },
      release: () => {
        if (!thread.conns.delete(conn) || !thread.alive) return
        thread.post({ t: 'release', conn })
      },
    }
  }

  #remove(thread: PageThread): void {
    const index = this.#threads.indexOf(thread)
    if (index >= 0) this.#threads.splice(index, 1)
  }

  /** Sessions of a crashed thread are gone: tell their browsers, close their sockets, replace the thread. */
  #crashed(thread: PageThread, code: number): void {
    this.#remove(thread)
    for (const id of thread.sessions) if (this.#bySession.get(id) === thread) this.#bySession.delete(id)
    this.#logger?.error({ exit_code: code, sessions: thread.sessions.size, sockets: thread.conns.size }, 'ui page thread stopped; its sessions reconnect to a new thread')
    for (const conn of thread.conns.values()) {
      if (conn.failed) {
        conn.failed(new SvcError('SVC_ERR_UI_PAGE_THREAD', 'the page thread stopped while the session was opening'))
        continue
      }
      conn.out.send({ v: 1, type: 'error', message: 'The page server restarted this session after an internal error; reconnecting.' })
      conn.out.close(THREAD_CRASH_CLOSE_CODE, 'page thread restarted')
    }
    thread.conns.clear()
    thread.sessions.clear()
  }

  /** Start a thread in place of one that stopped, after 100 ms × 2^(n−1) (at most 5 s) for n stops in the last minute. */
  #replace(): void {
    const now = Date.now()
    this.#crashes = [...this.#crashes.filter((t) => now - t < 60_000), now]
    const delay = Math.min(5_000, 100 * 2 ** (this.#crashes.length - 1))
    const timer = setTimeout(() => {
      this.#respawns.delete(timer)
      if (this.#closing) return
      this.#spawn().ready.catch((err: unknown) => this.#logger?.error({ err }, 'ui page thread could not start; retrying'))
    }, delay)
    this.#respawns.add(timer)
  }
}
