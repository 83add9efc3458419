import type { Logger } from 'pino'
import type { ApiClient } from '../../client/api-client.js'
import { runWithRequestId } from '../../logging/context.js'
import type { MediaStore } from '../media-store.js'
import type { PageApp } from '../page-app.js'
import { parseClientMessage, UI_PROTOCOL_VERSION, type ClientMessage, type ServerMessage } from '../wire/protocol.js'
import { SESSION_TAKEN_OVER_CLOSE_CODE } from '../wire/close-codes.js'
import { PageDirectory } from '../page-directory.js'
import { PageSession } from '../runtime/page-session.js'
import type { SocketContext } from '../st-types.js'
import type { BrowserStorageSnapshot } from '../storage/browser-storage.js'
import type { UploadIn, UploadOutcome } from './page-thread-messages.js'
import type { CookieKeys } from '../storage/cookie-keys.js'
import { Lifecycle } from '../../internal/lifecycle.js'
import { RenderEncoder } from './render-diff.js'
import { SessionManager } from './session-manager.js'
import type { PageSnapshots } from './session-snapshots.js'
// Not from ws-endpoint.ts: that module loads `ws`, which a page thread (no sockets there) never needs.
import { stripBase } from './base-path.js'
import type { TaskPort } from '../tasks/task-manager.js'
import type { TaskRecord } from '../tasks/task-types.js'

/** Where a page session's output goes: the browser's socket, or the main thread that holds it. */
export interface SessionOutput {
  /** A message, or one already encoded as JSON (relayed from a page thread). */
  send(message: ServerMessage | string): void
  /** Close the socket; the browser reconnects. */
  close(code: number, reason: string): void
  /** A run of the session started or ended (a page thread tells the main thread, which watches for runaways). */
  run?(running: boolean): void
  /**
   * The session left this socket (its page thread was replaced): `message` tells the browser to
   * say `hello` again, at once (`resume`) or when the visitor asks (`run_stopped`).
   */
  unbind(message: ServerMessage): void
}

/** One socket's hold on its session. */
export interface BoundSession {
  readonly id: string
  /** One client message as the socket delivered it (UTF-8 JSON); `done` once it was handled. */
  handle(bytes: Uint8Array, done: () => void): void
  /** The socket closed: the session is kept for the TTL. */
  release(): void
}

/** What the page WebSocket and the upload endpoint talk to: sessions in this thread, or a pool of page threads. */
export interface SessionHost {
  readonly size: number
  /** Open or resume `requestedId`, send the `session` message, start the first run. */
  open(hello: { requestedId: string | null; path: string; query: string; storage?: BrowserStorageSnapshot }, context: SocketContext, out: SessionOutput): Promise<BoundSession>
  /** Keep an uploaded file for its session until its `fileUploader` names it. */
  upload(upload: UploadIn): Promise<UploadOutcome>
  /** Write what sessions hold (snapshots) and end them. */
  close(): Promise<void>
  /** End every session now, writing nothing. */
  destroy(err?: Error): Promise<void>
}

const MALFORMED: ServerMessage = { v: UI_PROTOCOL_VERSION, type: 'error', message: 'malformed message: expected a JSON page-protocol message with v: 1' }

/**
 * Page sessions running in this thread: the sidecar's own event loop (`ui_page_threads: 0`) or
 * one page thread of the pool (page-thread-main.ts). Client messages are parsed here, once.
 */
export class LocalSessions extends Lifecycle implements SessionHost {
  readonly #manager: SessionManager
  /** The socket each attached session sends to. */
  readonly #sockets = new Map<string, SessionOutput>()
  #directory: PageDirectory
  #app: PageApp
  readonly #logger: Logger
  readonly #basePath: string
  readonly #maxPendingUploadBytes: number
  /** Stops listening for sign-outs of the app's login. */
  #stopSignOut: () => void = () => undefined

  constructor(options: {
    app: PageApp
    client: ApiClient
    media: MediaStore
    logger: Logger
    basePath: string
    ttlMs: number
    /** `ui_run_timeout_s` in ms; 0 = none. */
    runTimeoutMs: number
    /** What one session may hold in uploads its page has not taken yet; 0 = no bound. */
    maxPendingUploadBytes: number
    showErrorDetails: boolean
    overrides: Readonly<Record<string, unknown>>
    snapshots: PageSnapshots | null
    onDrop?: (id: string) => void
    /** The page server's tasks (`st.task`); null: pages cannot start tasks here. */
    tasks?: TaskPort | null
    /** `ui_task_max_per_session`. */
    maxTasksPerSession?: number
    /** The keys of the cookies pages write. */
    cookieKeys?: CookieKeys | null
    /** `ui_user_storage_max_value_bytes` and `ui_user_storage_max_keys`. */
    userStorageLimits?: { maxValueBytes: number; maxKeys: number }
  }) {
    super()
    this.#directory = new PageDirectory(options.app.pages)
    this.#app = options.app
    this.#logger = options.logger
    this.#basePath = options.basePath
    this.#maxPendingUploadBytes = options.maxPendingUploadBytes
    this.#manager = new SessionManager({
      ttlMs: options.ttlMs,
      logger: options.logger,
      snapshots: options.snapshots,
      ...(options.onDrop ? { onDrop: options.onDrop } : {}),
      create: (id) =>
        new PageSession({
          id,
          directory: () => this.#directory,
          client: options.client,
          media: options.media,
          logger: options.logger,
          overrides: options.overrides,
          showErrorDetails: options.showErrorDetails,
          runTimeoutMs: options.runTimeoutMs,
          ...(this.#app.secrets ? { secrets: this.#app.secrets } : {}),
          navigation: () => this.#app.navigation ?? null,
          navigationPosition: () => this.#app.navigationPosition ?? 'sidebar',
          identity: () => this.#app.identity ?? null,
          tasks: options.tasks ?? null,
          cookieKeys: options.cookieKeys ?? null,
          basePath: options.basePath,
          userStore: () => this.#app.userStore ?? null,
          ...(options.userStorageLimits ? { userStorageLimits: options.userStorageLimits } : {}),
          ...(options.maxTasksPerSession === undefined ? {} : { maxTasksPerSession: options.maxTasksPerSession }),
        }),
    })
    this.#listenForSignOuts()
  }

  /** A sign-out anywhere reruns, at once, the open pages of that sign-in (every tab of the browser). */
  #listenForSignOuts(): void {
    this.#stopSignOut()
    this.#stopSignOut =
      this.#app.identity?.onSignOut((sid) => {
        for (const id of this.#sockets.keys()) this.#manager.get(id)?.signOut(sid)
      }) ?? (() => undefined)
  }

  get size(): number {
    return this.#manager.size
  }

  /** The page and query session `id` is on (log lines about its runs; where it continues on another thread); null when unknown. */
  locationOf(id: string): { path: string; query: string } | null {
    const session = this.#manager.get(id)
    return session ? { path: session.path, query: session.query.toString() } : null
  }

  /** Session `id` continues on another page thread, which keeps its snapshot: end it here, writing nothing. */
  forget(id: string): void {
    this.#sockets.delete(id)
    this.#manager.forget(id)
  }

  get directory(): PageDirectory {
    return this.#directory
  }

  async open(hello: { requestedId: string | null; path: string; query: string; storage?: BrowserStorageSnapshot }, context: SocketContext, out: SessionOutput): Promise<BoundSession> {
    const { session, restored } = await this.#manager.open(hello.requestedId)
    const previous = this.#sockets.get(session.id)
    this.#sockets.set(session.id, out)
    if (previous) {
      session.detach()
      previous.close(SESSION_TAKEN_OVER_CLOSE_CODE, 'the session continues on a newer connection')
      this.#logger.info('ui session taken over by a newer connection')
    }
    return runWithRequestId(context.requestId, () => {
      // Renders send what changed since this socket's last one (a new socket starts complete).
      const encoder = new RenderEncoder()
      const send = this.#manager.committing(session, (m) => out.send(encoder.encode(m)))
      session.attach((m) => {
        if (m.type === 'run_state') out.run?.(m.running)
        send(m)
      }, context)
      out.send({ v: UI_PROTOCOL_VERSION, type: 'session', sessionId: session.id, restored })
      this.#logger.info({ restored, session_count: this.#manager.size }, 'ui session connected')
      session.start(hello.path, hello.query, hello.storage)
      return {
        id: session.id,
        handle: (bytes: Uint8Array, done: () => void) => {
          try {
            const msg = parseClientMessage(bytes)
            if (msg === null) {
              this.#logger.debug('ui dropped a malformed page message')
              out.send(MALFORMED)
            } else {
              // Every hello is answered with the session, also one on a socket that holds it already (a Rerun after a stopped run).
              if (msg.type === 'hello') out.send({ v: UI_PROTOCOL_VERSION, type: 'session', sessionId: session.id, restored: true })
              runWithRequestId(context.requestId, () => session.handle(this.#relative(msg)))
            }
          } finally {
            done()
          }
        },
        release: () => {
          // A socket whose session was taken over no longer holds it.
          if (this.#sockets.get(session.id) !== out) return
          this.#sockets.delete(session.id)
          this.#manager.release(session)
        },
      }
    })
  }

  /** News of a task from the page server's task manager, for the session that owns the key. */
  taskUpdate(sessionId: string, key: string, record: TaskRecord | null): void {
    this.#manager.get(sessionId)?.tasks.apply(key, record)
  }

  async upload(upload: UploadIn): Promise<UploadOutcome> {
    const session = this.#manager.get(upload.sessionId)
    if (!session) return { ok: false, status: 404, message: 'no such page session here (it expired, or lives on another replica); reload the page' }
    const ref = session.uploads.add({ name: upload.name, type: upload.type, bytes: upload.bytes }, this.#maxPendingUploadBytes)
    if (ref === null) return { ok: false, status: 400, message: 'this session holds too many uploads its page has not taken yet; wait for the page to pick them up' }
    return { ok: true, ref }
  }

  /** A reloaded app module: sessions rerun with the new page functions (state kept). */
  replaceApp(app: PageApp): number {
    this.#directory = new PageDirectory(app.pages)
    this.#app = app
    this.#listenForSignOuts()
    return this.#manager.rerunAll()
  }

  /** Write every session's snapshot now (its thread is about to be replaced). */
  async handover(): Promise<void> {
    await this.#manager.flushSnapshots()
  }

  /** Sessions write their last snapshot, then end (`SessionManager`). */
  protected async drain(): Promise<void> {
    this.#stopSignOut()
    await this.#manager.close()
  }

  /** Sessions end now, without their last snapshot. */
  protected async abort(): Promise<void> {
    this.#stopSignOut()
    await this.#manager.destroy()
  }

  /** Paths travel as full browser paths; pages are registered without the base path. */
  #relative(msg: ClientMessage): ClientMessage {
    return msg.type === 'navigate' || msg.type === 'hello' ? { ...msg, path: stripBase(msg.path, this.#basePath) } : msg
  }
}
