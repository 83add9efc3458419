import type { Logger } from 'pino'
import type { ApiClient } from '../../client/api-client.js'
import { runWithRequestId } from '../../logging/context.js'
import type { MediaStore } from '../media-store.js'
import type { PageApp } from '../page-app.js'
import type { ClientMessage, ServerMessage } from '../protocol.js'
import { PageDirectory } from '../runtime/page-directory.js'
import { PageSession } from '../runtime/page-session.js'
import type { StContext } from '../st-types.js'
import { kIdentity, kNavigation } from '../../internal/symbols.js'
import { RenderEncoder } from './render-diff.js'
import { SessionManager } from './session-manager.js'
import type { PageSnapshots } from './session-snapshots.js'

/** Where a page session's output goes: the browser's socket, or the main thread that holds it. */
export interface SessionOutput {
  /** A message, or one already encoded as JSON (relayed from a page thread). */
  send(message: ServerMessage | string): void
  /** Close the socket; the browser reconnects. */
  close(code: number, reason: string): void
}

/** One socket's hold on its session. */
export interface BoundSession {
  readonly id: string
  handle(msg: ClientMessage): void
  /** The socket closed: the session is kept for the TTL. */
  release(): void
}

/** What the page WebSocket talks to: sessions in this thread, or a pool of page threads. */
export interface SessionHost {
  readonly size: number
  /** Open or resume `requestedId`, send the `session` message, start the first run. */
  open(hello: { requestedId: string | null; path: string; query: string }, context: StContext, out: SessionOutput): Promise<BoundSession>
}

/**
 * Page sessions running in this thread: the sidecar's own event loop (`ui_page_threads: 0`) or
 * one page thread of the pool (page-thread-main.ts).
 */
export class LocalSessions implements SessionHost {
  readonly #manager: SessionManager
  #directory: PageDirectory
  #app: PageApp
  readonly #logger: Logger

  constructor(options: {
    app: PageApp
    client: ApiClient
    media: MediaStore
    logger: Logger
    ttlMs: number
    showErrorDetails: boolean
    overrides: Readonly<Record<string, unknown>>
    snapshots: PageSnapshots | null
    onDrop?: (id: string) => void
  }) {
    this.#directory = new PageDirectory(options.app.pages)
    this.#app = options.app
    this.#logger = options.logger
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
          ...(this.#app.secrets ? { secrets: this.#app.secrets } : {}),
          navigation: () => this.#app[kNavigation] ?? null,
          identity: () => this.#app[kIdentity] ?? null,
        }),
    })
  }

  get size(): number {
    return this.#manager.size
  }

  async open(hello: { requestedId: string | null; path: string; query: string }, context: StContext, out: SessionOutput): Promise<BoundSession> {
    const { session, restored } = await this.#manager.open(hello.requestedId)
    return runWithRequestId(context.requestId, () => {
      // Renders send what changed since this socket's last one (a new socket starts complete).
      const encoder = new RenderEncoder()
      session.attach(this.#manager.committing(session, (m) => out.send(encoder.encode(m))), context)
      out.send({ v: 1, type: 'session', sessionId: session.id, restored })
      this.#logger.info({ restored, session_count: this.#manager.size }, 'ui session connected')
      session.start(hello.path, hello.query)
      return {
        id: session.id,
        handle: (msg: ClientMessage) => runWithRequestId(context.requestId, () => session.handle(msg)),
        release: () => this.#manager.release(session),
      }
    })
  }

  /** A reloaded app module: sessions rerun with the new page functions (state kept). */
  replaceApp(app: PageApp): number {
    this.#directory = new PageDirectory(app.pages)
    this.#app = app
    return this.#manager.rerunAll()
  }

  async close(): Promise<void> {
    await this.#manager.flushSnapshots()
    this.#manager.closeAll()
  }
}
