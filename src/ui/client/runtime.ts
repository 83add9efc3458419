import type { ClientMessage, DevLoadError, DevTypeErrors, NavEntry, PageInfo, ServerMessage, UiNode, WireServerMessage } from '../wire/protocol.js'
import { SESSION_TAKEN_OVER_CLOSE_CODE } from '../wire/close-codes.js'
import type { ClientConfig } from './config.js'
import { Connection, type ConnectionStatus } from './connection.js'
import { RenderDecoder } from './patch.js'
import { pageHref, pagePathFromLocation, streamUrl, stripQuestionMark } from './url.js'
import { UI_PROTOCOL_VERSION } from '../wire/protocol-version.js'
import { clientFacts, postCookieTicket, storedEntries, writeEntry } from './browser-state.js'

export interface Toast {
  id: string
  body: string
  icon: string | null
}

export type DataframeRows = Extract<ServerMessage, { type: 'dataframe_rows' }>
export type DownloadReady = Extract<ServerMessage, { type: 'download_ready' }>
/** Answers the server sends to one element's request, without a rerun. */
export type Answer = DataframeRows | DownloadReady

export interface ViewState {
  status: ConnectionStatus
  /** True once a session was established at least once: later drops show the reconnect banner. */
  everConnected: boolean
  running: boolean
  page: PageInfo | null
  nav: NavEntry[]
  /** Where the page links show (issue #36). */
  navPosition: 'sidebar' | 'top' | 'hidden'
  main: UiNode[]
  sidebar: UiNode[]
  notFound: boolean
  toasts: Toast[]
  error: string | null
  /** The last run took longer than the server's limit (`ui_run_timeout_s`) and was stopped: its seconds. */
  stoppedAfter: number | null
  /** `svc dev --reload`: the app's last save did not load (the page runs the previous version). */
  devError: DevLoadError | null
  /** `svc dev`'s type check: errors in the code that runs (null: none). */
  typeErrors: DevTypeErrors | null
  /** Current page path (relative to basePath); follows navigation before the server answers. */
  path: string
}

/** Messages we keep while the socket is down and send after the next `session`. */
const MAX_PENDING = 200
const TOAST_MS = 4_000

/**
 * The client runtime: owns the connection, the view state, and the browser history. UI
 * components subscribe to state changes and call the `send*` / `navigate` methods.
 */
export class Runtime {
  readonly config: ClientConfig
  readonly #connection: Connection
  readonly #listeners = new Set<() => void>()
  readonly #answerListeners = new Map<string, (answer: Answer) => void>()
  readonly #storageKey: string
  /** Held in memory while the page lives; see `#takeStoredSessionId`. */
  #sessionId: string | null
  /** Renders arrive as changes against the previous one on the same connection. */
  #decoder = new RenderDecoder()
  #pending: ClientMessage[] = []
  #inSession = false
  /** Messages sent after `hello`, over all sockets; `#socketBase` of them before the current one. */
  #sent = 0
  #socketBase = 0
  /** Per props object of the view: how many sent messages the render that brought it had seen. */
  readonly #seen = new WeakMap<object, number>()
  /** Cookie tickets that came before the session id they are for. */
  #tickets: string[] = []
  #state: ViewState

  constructor(config: ClientConfig) {
    this.config = config
    this.#storageKey = `svc:session:${config.basePath || '/'}`
    this.#sessionId = this.#takeStoredSessionId()
    this.#state = {
      status: 'connecting',
      everConnected: false,
      running: false,
      page: null,
      nav: [],
      navPosition: 'sidebar',
      main: [],
      sidebar: [],
      notFound: false,
      toasts: [],
      error: null,
      stoppedAfter: null,
      devError: null,
      typeErrors: null,
      path: this.#locationPath(),
    }
    this.#connection = new Connection(streamUrl(location, config.basePath), {
      onOpen: () => {
        this.#decoder = new RenderDecoder()
        this.#socketBase = this.#sent
        this.#hello()
      },
      onMessage: (m) => this.#onMessage(m),
      onClose: (code) => {
        if (code !== SESSION_TAKEN_OVER_CLOSE_CODE) return
        // Another connection with this id holds the session now: this page starts its own.
        this.#sessionId = null
        this.#addToast({ id: 'svc-session-taken-over', body: 'This page was opened again elsewhere, so this tab started a new session.', icon: 'ℹ️' })
      },
      onStatus: (status) => {
        this.#inSession = false
        this.#set({ status, running: false })
      },
    })
  }

  get state(): ViewState {
    return this.#state
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  start(): void {
    window.addEventListener('popstate', this.#onPopState)
    window.addEventListener('pagehide', this.#persistSessionId)
    this.#connection.start()
  }

  stop(): void {
    window.removeEventListener('popstate', this.#onPopState)
    window.removeEventListener('pagehide', this.#persistSessionId)
    this.#connection.stop()
  }

  retryNow(): void {
    this.#connection.retryNow()
  }

  /** How many messages this page has sent so far: a local edit made now is newer than renders that saw no more. */
  get sentCount(): number {
    return this.#sent
  }

  /**
   * How many of the messages sent so far the render that brought these props had seen (see the
   * render's `seen`); a render that does not say counts as having seen everything.
   */
  seenBy(props: object): number {
    return this.#seen.get(props) ?? Infinity
  }

  sendWidget(id: string, value: unknown, trigger?: boolean): void {
    this.#send(trigger ? { v: UI_PROTOCOL_VERSION, type: 'widget', id, value, trigger: true } : { v: UI_PROTOCOL_VERSION, type: 'widget', id, value })
  }

  submitForm(formId: string, values: Record<string, unknown>): void {
    this.#send({ v: UI_PROTOCOL_VERSION, type: 'form_submit', formId, values })
  }

  rerun(): void {
    this.#send({ v: UI_PROTOCOL_VERSION, type: 'rerun' })
  }

  /** After a stopped run: run the page again (a `hello`, which also finds the session a new page thread). */
  rerunStopped(): void {
    this.#set({ stoppedAfter: null })
    this.#hello()
  }

  /**
   * Send one file to the page server (`POST {base}/_stcore/upload`, streamed from disk by the
   * browser); resolves with the reference the `fileUploader` message carries instead of the bytes.
   */
  async upload(file: File): Promise<string> {
    if (this.#sessionId === null || !this.#inSession) throw new Error('not connected; try again in a moment')
    const res = await fetch(`${this.config.basePath}/_stcore/upload`, {
      method: 'POST',
      body: file,
      headers: {
        'content-type': file.type || 'application/octet-stream',
        'x-svc-session': this.#sessionId,
        'x-svc-file-name': encodeURIComponent(file.name),
      },
    })
    const body = (await res.json().catch(() => null)) as { ref?: string; message?: string } | null
    if (!res.ok || typeof body?.ref !== 'string') throw new Error(body?.message ?? `the upload failed (HTTP ${res.status})`)
    return body.ref
  }

  /** Ask for another page or sort of a dataframe; the answer goes to the table's `onAnswer` listener. */
  requestDataframePage(id: string, page: number, sort: DataframeRows['sort']): void {
    this.#send({ v: UI_PROTOCOL_VERSION, type: 'dataframe_page', id, page, sort })
  }

  /** Ask a download button's function for its file; the `download_ready` answer goes to its `onAnswer` listener. */
  requestDownload(id: string): void {
    this.#send({ v: UI_PROTOCOL_VERSION, type: 'download', id })
  }

  /** The element `id`'s listener for the answers to its requests (`dataframe_rows`, `download_ready`). */
  onAnswer(id: string, listener: (answer: Answer) => void): () => void {
    this.#answerListeners.set(id, listener)
    return () => {
      if (this.#answerListeners.get(id) === listener) this.#answerListeners.delete(id)
    }
  }

  /** Client-side navigation to a page path (relative to basePath). */
  navigate(path: string, query = ''): void {
    history.pushState(null, '', pageHref(this.config.basePath, path, query))
    this.#set({ path })
    window.scrollTo(0, 0)
    // Keyboard and screen-reader users continue at the new page's content, not the old link.
    if (document.activeElement?.closest('.svc-sidebar, .svc-page-card, .svc-link')) {
      document.getElementById('svc-main')?.focus({ preventScroll: true })
    }
    // After a stopped run the session waits for a hello, which takes the new location along.
    if (this.#state.stoppedAfter !== null) this.rerunStopped()
    else this.#send({ v: UI_PROTOCOL_VERSION, type: 'navigate', path: this.href(path), query })
  }

  href(path: string, query = ''): string {
    return pageHref(this.config.basePath, path, query)
  }

  dismissToast(id: string): void {
    this.#set({ toasts: this.#state.toasts.filter((t) => t.id !== id) })
  }

  dismissError(): void {
    this.#set({ error: null })
  }

  readonly #onPopState = (): void => {
    const path = this.#locationPath()
    this.#set({ path })
    if (this.#state.stoppedAfter !== null) this.rerunStopped()
    else this.#send({ v: UI_PROTOCOL_VERSION, type: 'navigate', path: location.pathname, query: stripQuestionMark(location.search) })
  }

  #locationPath(): string {
    return pagePathFromLocation(location.pathname, this.config.basePath)
  }

  /**
   * Paths go to the server as the full browser path; it strips the base path itself, which keeps
   * a page path that happens to start with the base path unambiguous.
   */
  #hello(): void {
    const storage = storedEntries(this.config.basePath)
    this.#connection.send({
      v: UI_PROTOCOL_VERSION,
      type: 'hello',
      sessionId: this.#sessionId,
      path: location.pathname,
      query: stripQuestionMark(location.search),
      client: clientFacts(),
      ...(storage ? { storage } : {}),
    } satisfies ClientMessage)
  }

  #send(message: ClientMessage): void {
    if (this.#inSession && this.#sendNumbered(message)) return
    // Navigation is re-derived from the URL in the next hello and paging is re-asked by the
    // table, so only widget input is queued.
    if (message.type !== 'widget' && message.type !== 'form_submit') return
    this.#pending.push(message)
    if (this.#pending.length > MAX_PENDING) this.#pending.shift()
  }

  /** Sends with the message's number on this socket (see the render's `seen`). */
  #sendNumbered(message: ClientMessage): boolean {
    if (!this.#connection.send({ ...message, n: this.#sent - this.#socketBase + 1 })) return false
    this.#sent++
    return true
  }

  #onMessage(wire: WireServerMessage): void {
    const seen = wire.type === 'render' && wire.seen !== undefined ? this.#socketBase + wire.seen : Infinity
    const message = this.#decoder.decode(wire, (props) => this.#seen.set(props, seen))
    switch (message.type) {
      case 'session': {
        if (this.#sessionId !== null && !message.restored) {
          this.#addToast({ id: 'svc-session-expired', body: 'Your previous session had expired, so this page started a new one.', icon: 'ℹ️' })
        }
        this.#sessionId = message.sessionId
        this.#inSession = true
        this.#set({ status: 'connected', everConnected: true, error: null, stoppedAfter: null })
        const pending = this.#pending
        this.#pending = []
        for (const m of pending) this.#sendNumbered(m)
        for (const ticket of this.#tickets.splice(0)) void this.#cookie(ticket)
        return
      }
      case 'storage':
        writeEntry(this.config.basePath, message.area, message.key, message.value)
        return
      case 'cookie':
        if (this.#inSession) void this.#cookie(message.ticket)
        else this.#tickets.push(message.ticket)
        return
      case 'run_state':
        this.#set({ running: message.running })
        return
      case 'render':
        this.#onRender(message)
        return
      case 'query':
        this.#replaceUrl(this.#state.path, message.query)
        return
      case 'navigate':
        this.navigate(message.path, message.query)
        return
      case 'location':
        // Only a path of this app (the login and logout routes), never another origin.
        if (/^\/(?![/\\])/.test(message.url)) location.assign(this.config.basePath + message.url)
        return
      case 'toast':
        this.#addToast({ id: message.id, body: message.body, icon: message.icon })
        return
      case 'error':
        this.#set({ error: message.message })
        return
      case 'resume':
        // The session moved to another page thread: say hello again on this socket (no reconnect).
        // Its first render there is complete, so the decoder needs no reset.
        this.#inSession = false
        this.#hello()
        return
      case 'run_stopped':
        this.#inSession = false
        this.#set({ running: false, stoppedAfter: message.seconds })
        return
      case 'dev_error':
        this.#set({ devError: message.error })
        return
      case 'type_errors':
        this.#set({ typeErrors: message.total === 0 ? null : { errors: message.errors, total: message.total } })
        return
      case 'dataframe_rows':
      case 'download_ready':
        this.#answerListeners.get(message.id)?.(message)
        return
    }
  }

  async #cookie(ticket: string): Promise<void> {
    try {
      await postCookieTicket(this.config.basePath, this.#sessionId!, ticket)
    } catch (err) {
      console.warn(`svc: a cookie the page wrote was not set (${(err as Error).message})`)
    }
  }

  #onRender(message: Extract<ServerMessage, { type: 'render' }>): void {
    const path = message.notFound ? this.#locationPath() : message.page.path
    this.#replaceUrl(path, message.query)
    document.title = message.page.title === this.config.title ? message.page.title : `${message.page.title} · ${this.config.title}`
    this.#set({
      page: message.page,
      nav: message.nav,
      navPosition: message.navPosition ?? 'sidebar',
      main: message.main,
      sidebar: message.sidebar,
      notFound: message.notFound === true,
      path,
    })
  }

  #replaceUrl(path: string, query: string): void {
    const next = pageHref(this.config.basePath, path, query)
    if (next !== location.pathname + location.search) history.replaceState(history.state, '', next)
  }

  #addToast(toast: Toast): void {
    this.#set({ toasts: [...this.#state.toasts.filter((t) => t.id !== toast.id), toast] })
    setTimeout(() => this.dismissToast(toast.id), TOAST_MS)
  }

  /**
   * The session id survives a reload through sessionStorage, but only while the page is gone:
   * it is taken out on load and written back on `pagehide`, so "Duplicate tab" (which copies
   * sessionStorage) starts its own session instead of sharing this one.
   */
  #takeStoredSessionId(): string | null {
    try {
      const id = sessionStorage.getItem(this.#storageKey)
      sessionStorage.removeItem(this.#storageKey)
      return id
    } catch {
      return null
    }
  }

  readonly #persistSessionId = (): void => {
    if (this.#sessionId === null) return
    try {
      sessionStorage.setItem(this.#storageKey, this.#sessionId)
    } catch {
      // Storage can be disabled; the session then lasts as long as the page.
    }
  }

  #set(patch: Partial<ViewState>): void {
    this.#state = { ...this.#state, ...patch }
    for (const l of this.#listeners) l()
  }
}
