import { performance } from 'node:perf_hooks'
import type { Logger } from 'pino'
import { SvcError } from '../../errors.js'
import type { MediaStore } from '../media-store.js'
import type { DevLoadError } from '../wire/protocol.js'
import type { SocketContext } from '../st-types.js'
import type { BoundSession, SessionHost, SessionOutput } from './local-sessions.js'
import { type FromPageThread, type PageLocation, type PageThreadData, type UploadIn, type UploadOutcome } from './page-thread-messages.js'
import type { AppProfile } from '../../../ipc/messages.js'
import { PageThread, type Conn, type Hello } from './page-thread.js'
import { LocalSnapshotStore } from './thread-snapshots.js'
import { sessionOfSnapshotKey } from './session-snapshots.js'
import { SessionMoves } from './session-moves.js'
import { unexplainedLoadError } from './dev-load-error.js'
import { UI_PROTOCOL_VERSION } from '../wire/protocol.js'
import { THREAD_CLOSE_MS } from '../../internal/deadlines.js'
import { Lifecycle } from '../../internal/lifecycle.js'
import type { TaskManager } from '../tasks/task-manager.js'
import type { TaskRecord } from '../tasks/task-types.js'
import { ThreadSlots } from './thread-slots.js'
import type { PageServerStats, PageThreadStatus } from '../../../ipc/messages.js'

/** Close code for a socket whose session keeps losing its page thread (a page that crashes it on every run). */
export const THREAD_CRASH_CLOSE_CODE = 1011
/** How often the watchdog looks at the threads. */
const WATCHDOG_MS = 250
/** A thread whose event loop has not turned for this long and that has no socket left is ended. */
export const RECLAIM_AFTER_MS = 2_000
/** When every thread has been stalled this long, one more than `ui_page_threads` starts for new sessions. */
export const OVERFLOW_AFTER_MS = 1_000
/** With `ui_run_timeout_s: 0`, the page server reports "not ready" once every thread has been stalled this long. */
export const STALLED_READY_MS = 10_000
/** A session continues on a new thread after a crash at most this often per minute; then its socket closes. */
const MAX_RESUMES_PER_MINUTE = 3
/** An opening session is placed on another thread at most this often when its thread stops first. */
const MAX_PLACEMENTS = 3

export interface PageThreadPoolOptions {
  /** `ui_page_threads`. */
  size: number
  data: PageThreadData
  logger: Logger
  /** The page server's media store: threads hand it what pages show. */
  media: MediaStore
  /** `ui_run_timeout_s` in ms; 0 = none. */
  runTimeoutMs: number
  /** The page server's tasks: page threads start and cancel them here, and get their news. */
  tasks?: TaskManager | null
  /** `ui_session_ttl_s` in ms: how long the tasks of a session whose thread crashed wait for it to come back. */
  sessionTtlMs?: number
  /** `ui_page_thread_idle_s` in ms: a thread that ran nothing this long is let go; 0 = never. */
  idleMs: number
  /** `ui_page_thread_max_memory_mb` in bytes: a thread whose heap passes it is recycled; 0 = never. */
  maxHeapBytes?: number
  /** `recycle_check_interval_s` in ms. */
  recycleCheckMs?: number
  /** `ui_page_thread_max_heap_mb`: each thread's hard heap cap (Node stops the thread there); 0 = V8's default. */
  heapCapMb?: number
}

/**
 * Page sessions on worker threads, so a page burning CPU stalls only the sessions of its own
 * thread. The main thread keeps HTTP and the sockets, relays page messages as raw bytes (each
 * thread parses its own) and never imports the app.
 *
 * - Threads start as load needs them, up to `ui_page_threads`: a new session goes to the least
 *   loaded thread with no run in progress whose event loop turns; only when every thread is busy
 *   does another start. When every thread has been stalled for `OVERFLOW_AFTER_MS`, one extra
 *   thread starts.
 * - A session whose thread is held up by another session's run moves to another thread, with
 *   its messages (session-moves.ts).
 * - A thread that ran nothing for `ui_page_thread_idle_s` is let go: its sessions move to another
 *   thread, or, when it is the last one and no socket is left on it, it stops (the next visitor
 *   starts one).
 * - A session stays on the thread that holds it. Without Redis its snapshot is kept here
 *   (`LocalSnapshotStore`), so when its thread goes (a dev reload, a runaway page, a crash) the
 *   socket is told to say hello again (`resume`) and the session continues on another thread.
 * - A thread stalled for `ui_run_timeout_s` is terminated: sessions with a run in progress get
 *   `run_stopped`, the others continue elsewhere. A stalled thread without sockets is reclaimed.
 */
export class PageThreadPool extends Lifecycle implements SessionHost {
  readonly #size: number
  readonly #data: PageThreadData
  readonly #logger: Logger
  readonly #media: MediaStore
  readonly #runTimeoutMs: number
  readonly #tasks: TaskManager | null
  readonly #sessionTtlMs: number
  readonly #idleMs: number
  readonly #maxHeapBytes: number
  readonly #recycleCheckMs: number
  #lastRecycleCheck = 0
  readonly #heapCapMb: number
  readonly #threads: PageThread[] = []
  /** Each live thread's slot, and what happened to each slot (`svc status`). */
  readonly #slots = new ThreadSlots()
  readonly #bySession = new Map<string, PageThread>()
  readonly #moves = new SessionMoves({
    free: (now, except, loaded) => this.#free(now, except, loaded),
    maySpawn: () => this.#maySpawn(),
    spawn: () => this.#spawn(),
    reopen: (conn, to) => {
      this.#bySession.set(conn.sessionId!, to)
      this.#openOn(to, conn, conn.sessionId, conn.at)
    },
  })
  readonly #snapshots = new LocalSnapshotStore()
  readonly #resumes = new Map<string, number[]>()
  /** Sign-outs made in the tree, told to every thread (a thread started later gets them first). */
  readonly #revoked = new Map<string, number>()
  #nextConn = 1
  #nextUpload = 1
  #watchdog: NodeJS.Timeout | null = null
  /** The last dev reload did not load: a new thread would load the broken file, so new sessions go to the running ones. */
  #saveBroken = false
  /** A reload's fresh threads, held until it is committed, and the threads they replace. */
  #prepared: { old: PageThread[]; fresh: PageThread[] } | null = null

  constructor(options: PageThreadPoolOptions) {
    super()
    this.#size = Math.max(1, options.size)
    this.#data = options.data
    this.#logger = options.logger
    this.#media = options.media
    this.#runTimeoutMs = options.runTimeoutMs
    this.#tasks = options.tasks ?? null
    this.#sessionTtlMs = options.sessionTtlMs ?? 120_000
    this.#heapCapMb = options.heapCapMb ?? 0
    this.#idleMs = options.idleMs
    this.#maxHeapBytes = options.maxHeapBytes ?? 0
    this.#recycleCheckMs = options.recycleCheckMs ?? 5_000
  }

  /** News of a task for the thread that holds its session (none holds it now: the session's next restore syncs it). */
  deliverTask(sessionId: string, key: string, record: TaskRecord | null): void {
    this.#bySession.get(sessionId)?.post({ t: 'task', sessionId, key, record })
  }

  /**
   * Live sessions and each thread (slot, status, age, sessions, heap, event-loop utilisation over
   * `windowMs`), with the threads' unplanned ends so far: the page server's part of `svc status`.
   */
  async stats(windowMs: number): Promise<PageServerStats> {
    const threads = this.#threads.filter((t) => t.state !== 'gone')
    const before = new Map(threads.map((t) => [t, t.worker.performance.eventLoopUtilization()]))
    if (windowMs > 0) await new Promise((resolve) => setTimeout(resolve, windowMs))
    const rows = threads.flatMap((t) => {
      const slot = this.#slots.of(t)
      if (!slot || !t.alive) return []
      const elu = t.worker.performance.eventLoopUtilization(before.get(t)).utilization
      const status: PageThreadStatus = t.state === 'retiring' ? 'draining' : t.state === 'starting' || t.held ? 'starting' : 'online'
      return [{ ...slot, status, sessions: t.sessions.size, heap_bytes: t.heapBytes, elu: Number.isFinite(elu) ? elu : null }]
    })
    return { sessions: this.#bySession.size, threads: rows.sort((a, b) => a.id - b.id), thread_exits: { ...this.#slots.ends } }
  }

  /** Live sessions across the threads. */
  get size(): number {
    return this.#bySession.size
  }

  /**
   * Start a thread (it loads the app, about half a second): called on the first page request, so
   * it loads while the browser fetches the client and connects. Idempotent.
   */
  warm(): void {
    if (this.closed || this.#threads.some((t) => t.placeable)) return
    this.#logger.info({ page_threads: this.#size }, 'ui page threads starting (first page request)')
    this.#spawn()
  }

  /**
   * Every thread that takes sessions has not turned its event loop for `ui_run_timeout_s`
   * (`STALLED_READY_MS` without a timeout): the page server answers its readiness probe with 503.
   */
  stalled(): boolean {
    const now = performance.now()
    const limit = this.#runTimeoutMs > 0 ? this.#runTimeoutMs : STALLED_READY_MS
    const ready = this.#threads.filter((t) => t.state === 'ready')
    return ready.length > 0 && ready.every((t) => t.stalledFor(now) > limit)
  }

  open(hello: Hello, context: SocketContext, out: SessionOutput): Promise<BoundSession> {
    this.warm()
    return new Promise<BoundSession>((resolve, reject) => {
      const conn: Conn = {
        id: this.#nextConn++,
        out,
        hello,
        context,
        opened: resolve,
        failed: reject,
        placements: 0,
        sessionId: null,
        runSince: null,
        runPage: null,
        acks: [],
        thread: null,
        at: { path: hello.path, query: hello.query },
        held: [],
        moving: false,
      }
      this.#place(conn)
    })
  }

  /** Sign-outs made in the tree: every thread refuses those sign-ins, and their open pages sign out. */
  revoked(sessions: readonly { sid: string; until: number }[]): void {
    const now = Date.now()
    for (const [sid, until] of this.#revoked) if (until <= now) this.#revoked.delete(sid)
    for (const { sid, until } of sessions) this.#revoked.set(sid, until)
    for (const t of this.#threads) t.post({ t: 'revoked', sessions: [...sessions] })
  }

  async upload(upload: UploadIn): Promise<UploadOutcome> {
    const thread = this.#bySession.get(upload.sessionId)
    if (!thread?.alive) return { ok: false, status: 404, message: 'no such page session here (it expired, or lives on another replica); reload the page' }
    const id = this.#nextUpload++
    const bytes = ownBuffer(upload.bytes)
    return new Promise<UploadOutcome>((resolve) => {
      thread.uploads.set(id, resolve)
      thread.post({ t: 'upload', id, upload: { ...upload, bytes } }, [bytes.buffer as ArrayBuffer])
    })
  }

  /**
   * A reload's first half: load the app again on fresh threads (fresh isolates: nothing of the old
   * module graph stays), which take no session yet; the running threads keep every session and
   * serve on. The app as the new threads read it, or why it did not load (the fresh threads are
   * gone then). With no thread running, one starts to read it (and stays for the next session).
   * `commitReload` moves the sessions over, `abortReload` lets the fresh threads go.
   */
  async prepareReload(): Promise<{ profile: AppProfile } | { failed: DevLoadError }> {
    this.abortReload()
    const old = this.#threads.filter((t) => t.alive)
    const count = Math.max(1, old.filter((t) => t.placeable).length)
    const fresh = Array.from({ length: Math.min(this.#size, count) }, () => this.#spawn(true))
    let profile: AppProfile
    try {
      profile = await Promise.any(fresh.map((t) => t.ready))
    } catch (err) {
      for (const t of fresh) if (t.alive) this.#retire(t, 'reload')
      this.#saveBroken = true
      const why = fresh.find((t) => t.loadError !== null)?.loadError
      return { failed: why ?? unexplainedLoadError((err as AggregateError).errors[0] as Error) }
    }
    this.#saveBroken = false
    this.#prepared = { old, fresh }
    return { profile }
  }

  /**
   * The second half: every session moves to the fresh threads with its state (the old ones write
   * their snapshots first, then go) and reruns there; how many sockets moved.
   */
  async commitReload(): Promise<number> {
    const prepared = this.#prepared
    this.#prepared = null
    if (prepared === null) return 0
    for (const t of prepared.fresh) t.held = false
    // Sessions live only on threads that loaded; those write their snapshots before they go.
    const holding = prepared.old.filter((t) => t.state === 'ready')
    for (const t of prepared.old) if (t.alive) t.state = 'retiring'
    await Promise.all(holding.map((t) => this.#ask(t, (done) => (t.handedOver = done), { t: 'handover' })))
    let moved = 0
    for (const t of prepared.old) {
      moved += t.conns.size
      if (t.alive) this.#retire(t, 'reload')
    }
    return moved
  }

  /** The prepared threads go; the running ones serve on. */
  abortReload(): void {
    const prepared = this.#prepared
    this.#prepared = null
    for (const t of prepared?.fresh ?? []) if (t.alive) this.#retire(t, 'reload')
  }

  /** Threads flush their session snapshots and close; one that does not answer in time is terminated. */
  protected async drain(): Promise<void> {
    if (this.#watchdog) clearInterval(this.#watchdog)
    await Promise.all(
      this.#threads.map(async (t) => {
        if (t.state === 'ready') await this.#ask(t, (done) => (t.closed = done), { t: 'close' })
        t.retired = 'close'
        failOpens(t, stopping())
        await t.worker.terminate()
      }),
    )
    await this.#snapshots.close()
  }

  /** Every thread is terminated now, without writing its sessions; sessions still opening fail with `err`. */
  protected async abort(err: Error | undefined): Promise<void> {
    if (this.#watchdog) clearInterval(this.#watchdog)
    await Promise.all(
      this.#threads.map((t) => {
        t.retired = 'close'
        failOpens(t, err ?? stopping())
        return t.worker.terminate()
      }),
    )
    await this.#snapshots.destroy(err)
  }


  #place(conn: Conn): void {
    if (this.closed) {
      conn.failed?.(stopping())
      return
    }
    const pinned = conn.hello.requestedId === null ? undefined : this.#bySession.get(conn.hello.requestedId)
    conn.placements++
    this.#openOn(pinned?.placeable ? pinned : this.#pick(), conn, conn.hello.requestedId, conn.hello)
  }

  /** Open `conn`'s session (`requestedId`, or a new one) on `thread` once it has loaded. */
  #openOn(thread: PageThread, conn: Conn, requestedId: string | null, at: PageLocation): void {
    conn.thread = thread
    thread.pendingOpens++
    thread.conns.set(conn.id, conn)
    thread.lastActive = performance.now()
    void thread.ready.then(
      () => {
        thread.pendingOpens--
        const { storage } = conn.hello
        thread.post({ t: 'open', conn: conn.id, requestedId, path: at.path, query: at.query, context: conn.context, ...(storage ? { storage } : {}) })
      },
      // The thread did not load; its exit places the session again.
      () => thread.pendingOpens--,
    )
  }

  /** Where a new session goes (see the class comment); may start a thread. */
  #pick(): PageThread {
    const now = performance.now()
    const free = this.#free(now)
    if (free) return free
    if (this.#maySpawn()) return this.#spawn()
    const live = this.#threads.filter((t) => t.placeable)
    const turning = live.filter((t) => !t.busy(now))
    if (turning.length === 0 && live.length <= this.#size && live.every((t) => t.stalledFor(now) > OVERFLOW_AFTER_MS)) {
      this.#logger.warn({ page_threads: live.length }, 'ui every page thread is stalled; starting one more for new sessions')
      return this.#spawn()
    }
    const idle = turning.filter((t) => t.running === 0)
    const candidates = idle.length > 0 ? idle : turning.length > 0 ? turning : live
    let best = candidates[0]!
    for (const t of candidates) if (t.load < best.load) best = t
    return best
  }

  /**
   * The least loaded thread that takes a session at once (loading, or turning with no run in
   * progress; `loaded`: not loading), other than `except`.
   */
  #free(now: number, except?: PageThread, loaded = false): PageThread | undefined {
    let best: PageThread | undefined
    for (const t of this.#threads) {
      if (t === except || !t.placeable || t.running > 0 || t.busy(now) || (loaded && t.state !== 'ready')) continue
      if (best === undefined || t.load < best.load) best = t
    }
    return best
  }

  /** Fewer threads than `ui_page_threads` take sessions (and the last save loads). */
  #maySpawn(): boolean {
    const live = this.#threads.filter((t) => t.placeable)
    return live.length < this.#size && !(this.#saveBroken && live.some((t) => t.state === 'ready'))
  }

  /** `held`: a reload's thread, which takes no session until the reload is committed. */
  #spawn(held = false): PageThread {
    const thread = new PageThread(this.#data, this.#heapCapMb)
    thread.held = held
    this.#threads.push(thread)
    this.#slots.take(thread)
    // Queued until the thread listens (after it loaded the app), before any session opens there.
    if (this.#revoked.size > 0) thread.post({ t: 'revoked', sessions: [...this.#revoked].map(([sid, until]) => ({ sid, until })) })
    thread.worker.on('message', (m: FromPageThread) => this.#onMessage(thread, m))
    thread.worker.on('error', (err) => {
      thread.error = err
      if (thread.retired !== null) return
      if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') this.#outOfMemory(thread)
      else this.#logger.error({ err }, 'ui page thread crashed')
    })
    thread.worker.on('exit', (code) => this.#onExit(thread, code))
    this.#watchdog ??= setInterval(() => this.#watch(), WATCHDOG_MS)
    this.#watchdog.unref()
    return thread
  }

  #onMessage(thread: PageThread, m: FromPageThread): void {
    switch (m.t) {
      case 'beat':
        thread.lastBeat = performance.now()
        thread.running = m.running
        thread.heapBytes = m.heap
        this.#moves.turned(thread)
        return
      case 'out':
        thread.conns.get(m.conn)?.out.send(m.data)
        return
      case 'close_conn':
        thread.conns.get(m.conn)?.out.close(m.code, m.reason)
        return
      case 'run': {
        const now = performance.now()
        thread.running = m.running
        thread.lastActive = now
        if (m.page !== null) thread.lastRunStart = now
        const conn = thread.conns.get(m.conn)
        if (conn) {
          conn.runSince = m.page === null ? null : now
          conn.runPage = m.page
          conn.at = m.at
          if (conn.moving && m.page === null) this.#moves.arrived(conn)
        }
        if (thread.running === 0) this.#moves.turned(thread)
        return
      }
      case 'ack':
        thread.conns.get(m.conn)?.acks.shift()?.()
        return
      case 'media':
        this.#media.add(m.bytes, m.mime, m.fileName)
        return
      case 'opened': {
        const conn = thread.conns.get(m.conn)
        const previous = this.#bySession.get(m.sessionId)
        if (previous && previous !== thread) previous.sessions.delete(m.sessionId)
        this.#bySession.set(m.sessionId, thread)
        thread.sessions.add(m.sessionId)
        this.#tasks?.attach(m.sessionId)
        if (conn?.moving) {
          // Its snapshot could not be read: the session started afresh, under a new id.
          if (conn.sessionId !== m.sessionId && this.#bySession.get(conn.sessionId!) === thread) this.#bySession.delete(conn.sessionId!)
          conn.sessionId = m.sessionId
          return
        }
        if (!conn?.opened) {
          thread.conns.delete(m.conn)
          thread.post({ t: 'release', conn: m.conn })
          return
        }
        conn.sessionId = m.sessionId
        conn.opened(this.#bind(conn))
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
        if (this.#bySession.get(m.sessionId) === thread) {
          this.#bySession.delete(m.sessionId)
          this.#tasks?.endSession(m.sessionId)
        }
        thread.sessions.delete(m.sessionId)
        this.#resumes.delete(m.sessionId)
        return
      case 'task_start':
        this.#tasks?.start(m.sessionId, m.key, m.request)
        return
      case 'task_cancel':
        this.#tasks?.cancel(m.sessionId, m.key)
        return
      case 'task_forget':
        this.#tasks?.forget(m.sessionId, m.key)
        return
      case 'task_sync':
        // A session restored on this thread (before it reports `opened`): its news goes here.
        this.#bySession.set(m.sessionId, thread)
        this.#tasks?.sync(m.sessionId, m.keys)
        return
      case 'uploaded':
        thread.uploads.get(m.id)?.(m.outcome)
        thread.uploads.delete(m.id)
        return
      case 'snapshot': {
        // A thread a session moved away from may write it once more before it hears: the copy on the new thread wins.
        const owner = m.call.op === 'get' ? undefined : this.#bySession.get(sessionOfSnapshotKey(m.call.key))
        if (owner !== undefined && owner !== thread) return
        this.#snapshots.apply(m.call, (id, value) => thread.post({ t: 'snapshot_value', id, value }))
        return
      }
      case 'handed_over':
        thread.handedOver?.()
        return
      case 'closed':
        thread.closed?.()
        return
      case 'ready':
        thread.loaded(m.profile)
        this.#moves.loaded(thread, this.#threads)
        return
      case 'fatal':
        thread.failedToLoad(m.code, m.message, m.devError)
        return
      default: {
        const never: never = m
        return never
      }
    }
  }

  #bind(conn: Conn): BoundSession {
    const current = (): boolean => conn.thread !== null && conn.thread.alive && conn.thread.conns.get(conn.id) === conn
    return {
      id: conn.sessionId!,
      handle: (bytes, done) => {
        if (!current()) return done()
        conn.acks.push(done)
        // A copy the thread owns (the socket's buffer may hold more than this message), moved without another copy.
        this.#moves.send(conn, new Uint8Array(bytes))
      },
      release: () => {
        if (!current()) return
        const thread = conn.thread!
        thread.conns.delete(conn.id)
        conn.held.length = 0
        for (const done of conn.acks.splice(0)) done()
        thread.post({ t: 'release', conn: conn.id })
      },
    }
  }

  /** The thread reached its heap cap: Node stopped it; its exit replaces it as after a crash. */
  #outOfMemory(thread: PageThread): void {
    const pages = [...new Set([...thread.conns.values()].flatMap((c) => (c.runSince === null ? [] : [c.runPage ?? '/'])))]
    this.#logger.error(
      { code: 'SVC_ERR_UI_PAGE_MEMORY', max_heap_mb: this.#heapCapMb, pages, sockets: thread.conns.size },
      `ui page thread reached its heap cap of ${this.#heapCapMb} MiB (ui_page_thread_max_heap_mb) and was stopped; its sessions continue on a new thread`,
    )
  }

  #onExit(thread: PageThread, code: number): void {
    const wasReady = thread.state !== 'starting'
    thread.exited(code)
    const index = this.#threads.indexOf(thread)
    if (index >= 0) this.#threads.splice(index, 1)
    for (const id of thread.sessions) {
      if (this.#bySession.get(id) !== thread) continue
      this.#bySession.delete(id)
      // Its socket may not come back for it: its tasks end with it unless another thread opens it in time.
      if (!this.closed && thread.retired !== 'close') this.#tasks?.detach(id, this.#sessionTtlMs)
    }
    this.#slots.release(thread, this.#endOf(thread, code, wasReady))
    if (this.closed || thread.retired === 'close') return
    if (thread.retired === null && wasReady) {
      this.#logger.error({ exit_code: code, sessions: thread.sessions.size, sockets: thread.conns.size }, 'ui page thread stopped; its sessions continue on a new thread')
    }
    for (const conn of thread.conns.values()) this.#rehome(conn, thread.retired)
    thread.conns.clear()
    thread.sessions.clear()
  }

  /** An unplanned end of `thread` as `svc status` shows it; null for a planned one (reload, shrink, stop). */
  #endOf(thread: PageThread, code: number, wasReady: boolean): { reason: 'crashed' | 'killed' | 'recycled'; detail: string } | null {
    if (thread.retired === 'runaway') return { reason: 'killed', detail: `did not yield for ui_run_timeout_s ${this.#runTimeoutMs / 1000} s` }
    if (thread.retired === 'recycle') return { reason: 'recycled', detail: thread.recycling ?? 'recycled' }
    if (thread.retired === null && wasReady) return { reason: 'crashed', detail: thread.error?.message ?? `exit code ${code}` }
    return null
  }

  /**
   * `ui_page_thread_max_memory_mb`: a fresh thread loads the app, then `thread` writes its
   * sessions' snapshots and goes; its sockets are told to resume and continue on the fresh one
   * with their state (as a reload moves them).
   */
  async #recycle(thread: PageThread, detail: string): Promise<void> {
    thread.recycling = detail
    this.#logger.warn({ heap_mb: Math.round((thread.heapBytes ?? 0) / 1048576), sessions: thread.sessions.size }, `ui page thread recycled (${detail}): its sessions move to a fresh thread`)
    const fresh = this.#spawn()
    try {
      await fresh.ready
    } catch {
      // The app does not load any more (a save under dev reload): the thread keeps its sessions.
      thread.recycling = null
      return
    }
    if (!thread.alive || this.closed) return
    thread.state = 'retiring'
    await this.#ask(thread, (done) => (thread.handedOver = done), { t: 'handover' })
    if (thread.alive) this.#retire(thread, 'recycle')
  }

  /** A socket whose thread is gone: open again elsewhere, or tell the browser to say hello again. */
  #rehome(conn: Conn, reason: PageThread['retired']): void {
    conn.held.length = 0
    conn.moving = false
    if (conn.opened) {
      if (conn.placements < MAX_PLACEMENTS) this.#place(conn)
      else conn.failed?.(new SvcError('SVC_ERR_UI_PAGE_THREAD', 'the page thread stopped while the session was opening'))
      return
    }
    if (reason === 'runaway' && conn.runSince !== null) {
      conn.out.unbind({ v: UI_PROTOCOL_VERSION, type: 'run_stopped', seconds: this.#runTimeoutMs / 1000 })
      return
    }
    if (reason === null && conn.sessionId !== null && !this.#mayResume(conn.sessionId)) {
      conn.out.send({ v: UI_PROTOCOL_VERSION, type: 'error', message: 'This page keeps stopping the page server thread it runs on; reconnecting.' })
      conn.out.close(THREAD_CRASH_CLOSE_CODE, 'page thread keeps failing')
      return
    }
    conn.out.unbind({ v: UI_PROTOCOL_VERSION, type: 'resume' })
  }

  #mayResume(sessionId: string): boolean {
    const now = Date.now()
    const recent = (this.#resumes.get(sessionId) ?? []).filter((t) => now - t < 60_000)
    recent.push(now)
    this.#resumes.set(sessionId, recent)
    return recent.length <= MAX_RESUMES_PER_MINUTE
  }

  /** Runaway threads are replaced, stalled ones without sockets reclaimed, an extra idle one let go, one over its heap limit recycled. */
  #watch(): void {
    const now = performance.now()
    if (this.#maxHeapBytes > 0 && now - this.#lastRecycleCheck >= this.#recycleCheckMs) {
      this.#lastRecycleCheck = now
      const over = this.#threads.find((t) => t.state === 'ready' && t.recycling === null && (t.heapBytes ?? 0) > this.#maxHeapBytes)
      if (over) void this.#recycle(over, `heap ${Math.round(over.heapBytes! / 1048576)} MB over ui_page_thread_max_memory_mb ${Math.round(this.#maxHeapBytes / 1048576)}`)
    }
    for (const t of this.#threads) {
      if (t.state !== 'ready') continue
      const stalled = t.stalledFor(now)
      if (this.#runTimeoutMs > 0 && stalled > this.#runTimeoutMs) this.#runaway(t, stalled)
      else if (t.conns.size === 0 && t.pendingOpens === 0 && stalled > RECLAIM_AFTER_MS) {
        this.#logger.info({ stalled_s: Math.round(stalled / 1000) }, 'ui page thread reclaimed: stalled with no socket left')
        this.#retire(t, 'reclaim')
      }
    }
    const placeable = this.#threads.filter((t) => t.placeable)
    if (placeable.length > this.#size) {
      const spare = placeable.find((t) => t.state === 'ready' && t.load === 0 && t.conns.size === 0 && !t.busy(now))
      if (spare) this.#retire(spare, 'shrink')
    }
    if (this.#idleMs > 0) this.#letIdleGo(now)
  }

  /**
   * Threads that ran nothing for `ui_page_thread_idle_s` (a reload's held thread is not idle: it
   * waits for the commit): one with no socket left stops (its sessions wrote their snapshots); of
   * the others, the one with the fewest sockets hands them to a thread that takes them at once,
   * and stops on a later look.
   */
  #letIdleGo(now: number): void {
    const idle = this.#threads.filter((t) => t.state === 'ready' && !t.held && t.running === 0 && t.pendingOpens === 0 && !t.busy(now) && now - t.lastActive > this.#idleMs)
    let fewest: PageThread | undefined
    for (const t of idle) {
      if (t.conns.size === 0) this.#letGo(t)
      else if (fewest === undefined || t.conns.size < fewest.conns.size) fewest = t
    }
    if (fewest === undefined) return
    for (const conn of [...fewest.conns.values()]) {
      const settled = conn.sessionId !== null && conn.opened === null && conn.acks.length === 0 && !conn.moving && conn.runSince === null
      const to = settled ? this.#free(now, fewest, true) : undefined
      if (to) this.#moves.move(conn, to)
    }
  }

  #letGo(thread: PageThread): void {
    thread.state = 'retiring'
    this.#logger.info({ idle_s: this.#idleMs / 1000, sessions: thread.sessions.size }, 'ui page thread let go: it ran nothing for ui_page_thread_idle_s')
    void this.#ask(thread, (done) => (thread.handedOver = done), { t: 'handover' }).then(() => this.#retire(thread, 'idle'))
  }

  #runaway(thread: PageThread, stalledMs: number): void {
    const pages = [...new Set([...thread.conns.values()].flatMap((c) => (c.runSince === null ? [] : [c.runPage ?? '/'])))]
    this.#logger.error(
      { code: 'SVC_ERR_UI_RUN_TIMEOUT', pages, stalled_s: Math.round(stalledMs / 100) / 10, timeout_s: this.#runTimeoutMs / 1000, sockets: thread.conns.size },
      `ui page thread did not yield for ${this.#runTimeoutMs / 1000} s (ui_run_timeout_s): it was stopped, its runs stopped and its other sessions continue on a new thread`,
    )
    this.#retire(thread, 'runaway')
  }

  #retire(thread: PageThread, reason: NonNullable<PageThread['retired']>): void {
    thread.retired = reason
    thread.state = 'retiring'
    void thread.worker.terminate()
  }

  /** Send `message` and wait for its answer, at most `THREAD_CLOSE_MS`. */
  async #ask(thread: PageThread, onAnswer: (done: () => void) => void, message: { t: 'close' } | { t: 'handover' }): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      new Promise<void>((resolve) => {
        onAnswer(resolve)
        thread.post(message)
      }),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, THREAD_CLOSE_MS))),
    ])
    clearTimeout(timer)
  }
}

/** Sockets whose session is still opening on `thread`, which is stopping for good: no other thread takes them. */
function failOpens(thread: PageThread, err: Error): void {
  for (const conn of thread.conns.values()) {
    conn.failed?.(err)
    conn.opened = conn.failed = null
  }
}

function stopping(): SvcError {
  return new SvcError('SVC_ERR_UI_PAGE_THREAD', 'the page server is stopping')
}

/** `bytes` as a Uint8Array over an ArrayBuffer of its own (so it can be moved to a thread). */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer ? bytes : new Uint8Array(bytes)
}
