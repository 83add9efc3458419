import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { ApiClient } from '../../client/api-client.js'
import { Lifecycle } from '../../internal/lifecycle.js'
import { runWithRequestId } from '../../logging/context.js'
import { scrubShownText } from '../../logging/secret-scrub.js'
import type { ExceptionProps, SortSpec, UiElement } from '../wire/elements.js'
import { resolveInjections } from '../inject.js'
import type { MediaStore } from '../media-store.js'
import { parseReturnedMeta, type PageMeta } from '../page-meta.js'
import type { ClientMessage, NavEntry, PageInfo, ServerMessage, UiNode } from '../wire/protocol.js'
import type { NavigationFn, NavigationPosition } from '../navigation.js'
import type { PageIdentity, StUser } from '../../auth/user.js'
import { pageView } from '../st/dataframe.js'
import { QueryState } from '../st/query-params.js'
import { createSt } from '../st/root.js'
import type { DownloadData, SocketContext, St, StContext } from '../st-types.js'
import { deferredMime, downloadBytes } from '../st/widgets.js'
import { fullContext } from './socket-context.js'
import { NOT_AVAILABLE_META, PageAccess } from './page-access.js'
import type { RegisteredSecrets } from '../../secrets/register.js'
import type { PageDirectory, ResolvedPage } from '../page-directory.js'
import { RunContext, type DeferredDownload, type FragmentSpec, type PagedTable, type RunHost } from '../st/run-context.js'
import { sessionRef } from '../session-ref.js'
import { pageStack } from './exception-stack.js'
import { RerunRequested, StopRequested, SwitchPageRequested } from '../st/signals.js'
import { UploadStore } from '../st/upload-store.js'
import { WidgetStore } from '../st/widget-store.js'
import { UI_PROTOCOL_VERSION } from '../wire/protocol.js'
import { SessionTasks } from '../tasks/session-tasks.js'
import type { TaskPort } from '../tasks/task-manager.js'
import type { TaskDefinition, TaskHandle, TaskOptions } from '../tasks/task-types.js'
import { BrowserStore, type BrowserStorageSnapshot } from '../storage/browser-storage.js'
import { CookieJar } from '../storage/cookie-jar.js'
import type { CookieKeys } from '../storage/cookie-keys.js'
import { UserStorage } from '../storage/user-storage.js'
import type { UserStore } from '../storage/user-store.js'

export type Send = (message: ServerMessage) => void

export interface PageSessionOptions {
  id: string
  /** Read on every run, so a reloaded app module takes effect on the next run. */
  directory: () => PageDirectory
  client: ApiClient
  media: MediaStore
  logger: Logger
  overrides: Readonly<Record<string, unknown>>
  /** Page exceptions show message and stack to the visitor; off: a generic message and the request ID. */
  showErrorDetails: boolean
  /** A slow run sends what it has so far this often (ms). */
  partialFlushMs?: number
  /** A run still going after this long (ms) is stopped (`ui_run_timeout_s`); 0 or absent: never. */
  runTimeoutMs?: number
  /** `st.secrets`. */
  secrets?: object
  /** `app.navigation(fn)` (read on every run, like `directory`). */
  navigation?: () => NavigationFn | null
  /** `app.navigation(…, { position })`; absent: the sidebar. */
  navigationPosition?: () => NavigationPosition
  /** The app's login (`st.user`, `st.login()`); read on every run. */
  identity?: () => PageIdentity | null
  /** Where `st.task` starts and cancels tasks (the page server's task manager); absent: tasks are refused. */
  tasks?: TaskPort | null
  /** `ui_task_max_per_session` (default 4). */
  maxTasksPerSession?: number
  /** The keys of the cookies pages write (`st.cookies`); absent: pages cannot write cookies. */
  cookieKeys?: CookieKeys | null
  /** The app's root path ('' or '/tools'): cookies' default path. */
  basePath?: string
  /** `st.userStorage`'s store (Redis or files); read on every call. */
  userStore?: () => UserStore | null
  /** `ui_user_storage_max_value_bytes` and `ui_user_storage_max_keys`. */
  userStorageLimits?: { maxValueBytes: number; maxKeys: number }
}

export const DEFAULT_PARTIAL_FLUSH_MS = 100

type Outcome = 'complete' | 'error' | 'rerun' | 'stop' | 'switch'

const NO_SECRETS: Readonly<Record<string, unknown>> = Object.freeze({})

const EMPTY_CONTEXT: StContext = fullContext({ headers: Object.freeze({}), cookies: Object.freeze({}), requestId: undefined })

/** Keep the previous run's nodes after what a still-running run emitted, marked stale. */
function mergePartial(fresh: UiElement[], previous: UiElement[]): UiElement[] {
  return [...fresh, ...previous.slice(fresh.length).map((n) => ({ ...n, stale: true }))]
}

/**
 * One browser session: widget values, `st.sessionState`, query params, and the rerun engine.
 * Every interaction bumps `generation`; the run in progress turns stale (its next `st` call
 * throws `RunAborted`) and one new run starts on the next turn of the event loop, so bursts
 * of messages coalesce into one rerun. Transport-free: the WebSocket server and the test
 * handle both drive it through `handle()` and a `Send` function.
 */
export class PageSession extends Lifecycle implements RunHost {
  readonly id: string
  readonly widgets = new WidgetStore()
  /** Files posted to the upload endpoint for this session, until its `fileUploader` takes them. */
  readonly uploads = new UploadStore()
  readonly state: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  readonly query: QueryState
  readonly media: MediaStore
  readonly secrets: RegisteredSecrets
  context: StContext = EMPTY_CONTEXT
  generation = 0

  readonly #opts: PageSessionOptions
  #send: Send | null = null
  /** The number of the last client message handled since the socket attached (the browser numbers them). */
  #received = 0
  /**
   * The last message the run under way reflects: what it started from, plus values refused
   * while it ran (its render stamps them). A table page asked for meanwhile changed nothing the
   * run decided, so a form draft made before it must not count as overridden by this render.
   */
  #reflected = 0
  #path = '/'
  #runId = 0
  #renderedRunId = 0
  #scheduled = false
  /** What the scheduled run reruns: null for the page, else a fragment id. */
  #scheduledScope: string | null = null
  #runningScope: string | null = null
  #settled = true
  #waiters: (() => void)[] = []
  #previous: { main: UiElement[]; sidebar: UiElement[] } = { main: [], sidebar: [] }
  #dataframes = new Map<string, PagedTable>()
  #downloads = new Map<string, DeferredDownload>()
  /** Download buttons whose function is running now. */
  readonly #making = new Set<string>()
  readonly #dfViews = new Map<string, { page: number; sort: SortSpec | null }>()
  #lastError: unknown = null
  #lastTriggers: ReadonlySet<string> = new Set()
  #lastPage: ResolvedPage | undefined = undefined
  #lastMeta: PageMeta | null = null
  /** Fragments of the last page run, by node id, and which fragment each widget is in. */
  #fragments = new Map<string, FragmentSpec>()
  #widgetFragment = new Map<string, string>()
  readonly #timers = new Map<string, { ms: number; timer: NodeJS.Timeout }>()
  /** The sidebar of the last page run (the pages `app.navigation` let this session see). */
  #nav: NavEntry[] = []
  /** `st.user`, the pages this visitor may see, and the sign-in around them. */
  readonly #access: PageAccess
  /** How often each form was cleared on submit: the browser redraws its controls when it changes. */
  readonly #formClears = new Map<string, number>()
  /** This session's tasks (`st.task`). */
  readonly tasks: SessionTasks
  /** Task keys the last page run read at page level, and those each fragment read: who reruns when a task changes. */
  #pageTaskKeys: ReadonlySet<string> = new Set()
  readonly #fragmentTaskKeys = new Map<string, ReadonlySet<string>>()
  /** Keys whose task changed since the last rerun they caused (true: their status changed). */
  readonly #taskNews = new Map<string, boolean>()
  /** `st.cookies`, `st.localStorage`, `st.tabStorage`, `st.userStorage`. */
  readonly cookies: CookieJar
  readonly localStore: BrowserStore
  readonly tabStore: BrowserStore
  readonly userStorage: UserStorage
  /** Cookie tickets made while no socket was attached: they go out with the next one. */
  #tickets: string[] = []

  constructor(options: PageSessionOptions) {
    super()
    this.#opts = options
    this.id = options.id
    this.media = options.media
    this.secrets = (options.secrets ?? NO_SECRETS) as RegisteredSecrets
    this.#access = new PageAccess({ identity: options.identity, client: options.client, logger: options.logger })
    this.query = new QueryState('', () => this.#emit({ v: UI_PROTOCOL_VERSION, type: 'query', query: this.query.toString() }))
    const invalid = (what: string) => (key: string, reason: string): void => this.#opts.logger.debug({ key, reason }, `ui ${what} value refused by its schema; read as absent`)
    this.cookies = new CookieJar({
      keys: options.cookieKeys ?? null,
      basePath: options.basePath ?? '',
      sessionId: this.id,
      handshake: () => this.context.cookies,
      https: () => this.context.headers['x-forwarded-proto'] === 'https',
      reserved: () => this.identity?.cookieName ?? null,
      deliver: (ticket) => {
        if (this.#send) this.#emit({ v: UI_PROTOCOL_VERSION, type: 'cookie', ticket })
        else this.#tickets.push(ticket)
      },
      invalid: invalid('cookie'),
    })
    const emitStorage = (area: 'local' | 'tab', key: string, value: string | null): void => this.#emit({ v: UI_PROTOCOL_VERSION, type: 'storage', area, key, value })
    this.localStore = new BrowserStore('local', emitStorage, invalid('localStorage'))
    this.tabStore = new BrowserStore('tab', emitStorage, invalid('tabStorage'))
    this.userStorage = new UserStorage({
      store: () => options.userStore?.() ?? null,
      user: () => this.user,
      maxValueBytes: options.userStorageLimits?.maxValueBytes ?? 64 * 1024,
      maxKeys: options.userStorageLimits?.maxKeys ?? 64,
      invalid: invalid('userStorage'),
    })
    this.tasks = new SessionTasks({ sessionId: this.id, port: options.tasks ?? null, maxPerSession: options.maxTasksPerSession ?? 4, changed: (key, status) => this.#taskChanged(key, status) })
  }

  task<I, R, P>(key: string, task: TaskDefinition<I, R, P>, options: TaskOptions<I>): TaskHandle<I, R, P> {
    return this.tasks.handle(key, task, options, this.context.requestId ?? null)
  }

  /**
   * A task changed. Between runs the part of the page that shows it reruns now: the page when its
   * status changed and the page read it, else the fragment that read it (progress, partial
   * results: the page does not rerun). During a run it waits for the run's end.
   */
  #taskChanged(key: string, statusChanged: boolean): void {
    this.#taskNews.set(key, (this.#taskNews.get(key) ?? false) || statusChanged)
    if (this.#settled && !this.#scheduled) this.#flushTaskNews()
  }

  #flushTaskNews(): void {
    let scope: string | null | undefined
    let statusChanged = false
    for (const [key, status] of this.#taskNews) {
      statusChanged ||= status
      const fragments = [...this.#fragmentTaskKeys].filter(([, keys]) => keys.has(key)).map(([id]) => id)
      const here = status && this.#pageTaskKeys.has(key) ? null : fragments.length === 1 ? fragments[0]! : fragments.length > 1 ? null : undefined
      if (here === undefined) continue
      scope = scope === undefined || scope === here ? here : null
    }
    this.#taskNews.clear()
    if (scope !== undefined && this.attached) this.#schedule(scope)
    // Nobody shows it now: a changed status still makes the session's snapshot due.
    else if (statusChanged) this.generation++
  }

  get path(): string {
    return this.#path
  }

  get identity(): PageIdentity | null {
    return this.#access.identity
  }

  /** `st.user` of the current run, read from the socket's identity cookie at the start of each page run. */
  get user(): StUser {
    return this.#access.user
  }

  /** The test handle's `user` option: this user instead of the identity cookie (null: the cookie again). */
  setTestUser(user: StUser | null): void {
    this.#access.setTestUser(user)
  }

  /**
   * Sign-in `sid` was signed out (in another tab, on another replica): if it is this session's,
   * its API token goes and the page runs again now, signed out, without waiting for a click.
   */
  signOut(sid: string): void {
    if (this.#access.signedOut(sid, this.state)) this.requestRerun()
  }

  redirect(url: string): void {
    this.#emit({ v: UI_PROTOCOL_VERSION, type: 'location', url })
  }

  get attached(): boolean {
    return this.#send !== null
  }

  /** Buttons that were true in the last finished run. */
  get lastTriggers(): ReadonlySet<string> {
    return this.#lastTriggers
  }

  /** The error of the last run, if it failed (the test handle's `exception`). */
  get lastError(): unknown {
    return this.#lastError
  }

  attach(send: Send, context: SocketContext): void {
    this.#send = send
    this.#received = 0
    this.#reflected = 0
    this.context = fullContext(context)
    this.cookies.reset()
    for (const ticket of this.#tickets.splice(0)) send({ v: UI_PROTOCOL_VERSION, type: 'cookie', ticket })
  }

  detach(): void {
    this.#send = null
    // Nobody sees timed fragments now; the first run after the next attach starts them again.
    this.#syncTimers(new Map())
  }

  /** First message of a connection: where the browser is. */
  start(path: string, query: string, storage?: BrowserStorageSnapshot): void {
    // The browser's storage as it is now (another tab may have changed localStorage meanwhile).
    this.localStore.load(storage?.local)
    this.tabStore.load(storage?.tab)
    this.#path = path
    this.query.reset(query)
    this.requestRerun()
  }

  handle(msg: ClientMessage): void {
    // A message without a number (the test handle's) is the next one.
    const seq = (this.#received = ('n' in msg ? msg.n : undefined) ?? this.#received + 1)
    switch (msg.type) {
      case 'hello':
        this.start(msg.path, msg.query, msg.storage)
        return
      case 'widget': {
        const queued = this.widgets.queue(msg.id, msg.value, msg.trigger === true, null, seq)
        this.widgets.seal()
        if (queued) this.inputQueued([msg.id])
        else {
          this.#opts.logger.debug({ widget: msg.id }, 'ui widget message for an unknown widget or with an invalid value dropped')
          this.#resync()
        }
        return
      }
      case 'form_submit': {
        const queued = Object.entries(msg.values).filter(([id, value]) => this.widgets.queue(id, value, false, msg.formId, seq))
        this.widgets.seal()
        if (queued.length > 0) this.inputQueued(queued.map(([id]) => id))
        else this.#resync()
        return
      }
      case 'navigate':
        this.#path = msg.path
        this.query.reset(msg.query)
        this.requestRerun()
        return
      case 'rerun':
        this.requestRerun()
        return
      case 'dataframe_page':
        this.#dataframePage(msg.id, msg.page, msg.sort)
        return
      case 'download':
        void this.makeDownload(msg.id).then((made) => made && this.#emit({ v: UI_PROTOCOL_VERSION, type: 'download_ready', id: msg.id, url: made.url, fileName: made.fileName, message: made.message }))
        return
      default: {
        const never: never = msg
        return never
      }
    }
  }

  /** Make the current run stale and start a fresh one on the next turn (coalescing bursts). */
  requestRerun(): void {
    this.#schedule(null)
  }

  /**
   * Input was queued. Behind a click whose run has not completed it waits: that run goes on and
   * the input's run follows it (`#tail`). Otherwise it is news for the run under way, which turns
   * stale and is replaced.
   */
  inputQueued(ids: string[]): void {
    if (!this.widgets.waiting) this.rerunFor(ids)
  }

  /** Widgets changed: rerun their fragment alone when they all live in one, else the page. */
  rerunFor(ids: string[]): void {
    const scopes = new Set(ids.map((id) => this.#widgetFragment.get(id) ?? null))
    this.#schedule(scopes.size === 1 ? [...scopes][0]! : null)
  }

  /**
   * A fragment rerun only replaces a settled page or a run of the same fragment; when the page
   * (or another fragment) is still running or due, it becomes a page rerun, which draws the
   * fragment too.
   */
  #schedule(scope: string | null): void {
    const wasSettled = this.#settled
    this.generation++
    this.#settled = false
    if (this.#scheduled) {
      if (this.#scheduledScope !== scope) this.#scheduledScope = null
      return
    }
    this.#scheduled = true
    this.#scheduledScope = !wasSettled && this.#runningScope !== scope ? null : scope
    setImmediate(() => {
      this.#scheduled = false
      const target = this.#scheduledScope
      void runWithRequestId(this.context.requestId, () => (target === null ? this.#run() : this.#runFragment(target)))
    })
  }

  /** Resolves once the newest requested run has finished. */
  idle(): Promise<void> {
    if (this.#settled) return Promise.resolve()
    return new Promise((resolve) => this.#waiters.push(resolve))
  }

  /**
   * Nothing is worth finishing once the session ends (nobody will see the run under way): close
   * stops it as destroy does. Both take effect at the call; the promise only reports it.
   */
  protected async drain(): Promise<void> {
    this.#stop()
  }

  protected async abort(): Promise<void> {
    this.#stop()
  }

  /** Stop for good: the running run turns stale, nothing more is sent. */
  #stop(): void {
    this.generation++
    this.#send = null
    this.#syncTimers(new Map())
    this.uploads.clear()
    this.#settle()
  }

  /**
   * Stop the run of `ctx` when it is still going after `runTimeoutMs`: it turns stale (its next
   * `st` call ends it) and the visitor is told. A run that never yields never lets this timer
   * fire; the page server replaces its thread instead (page-thread-pool.ts).
   */
  #watchRun(ctx: RunContext, runId: number): NodeJS.Timeout | undefined {
    const ms = this.#opts.runTimeoutMs ?? 0
    if (ms <= 0) return undefined
    return setTimeout(() => {
      if (!ctx.current) return
      const seconds = Math.round(ms / 100) / 10
      this.#opts.logger.warn({ code: 'SVC_ERR_UI_RUN_TIMEOUT', page: this.#path, seconds }, `ui page run took longer than ${seconds} s and was stopped`)
      this.generation++
      // The click that started it is spent: the next run (the visitor's Rerun) must not repeat it.
      this.widgets.activeTriggers.clear()
      this.#emit({ v: UI_PROTOCOL_VERSION, type: 'run_state', runId, running: false })
      this.#emit({ v: UI_PROTOCOL_VERSION, type: 'run_stopped', seconds })
      if (!this.#scheduled) this.#settle()
    }, ms)
  }

  hasPage(path: string): boolean {
    return this.#opts.directory().has(path)
  }

  toast(body: string, icon: string | null): void {
    this.#emit({ v: UI_PROTOCOL_VERSION, type: 'toast', id: randomUUID(), body, icon })
  }

  dataframeView(id: string): { page: number; sort: SortSpec | null } | undefined {
    return this.#dfViews.get(id)
  }

  formClears(formId: string): number {
    return this.#formClears.get(formId) ?? 0
  }

  exceptionProps(error: unknown): ExceptionProps {
    const e = error instanceof Error ? error : new Error(String(error))
    const requestId = this.context.requestId ?? null
    // Runs execute under the socket's request ID (requestRerun), so the line carries the ID shown here.
    this.#opts.logger.error({ err: e, session_ref: sessionRef(this.id), page: this.#path }, 'ui page exception')
    // The log line is scrubbed by the logger; what the visitor may see is scrubbed here.
    if (this.#opts.showErrorDetails) {
      const stack = pageStack(e)
      return { name: e.name, message: scrubShownText(e.message), stack: stack === null ? null : scrubShownText(stack), hidden: false, requestId }
    }
    return { name: 'Error', message: 'This page hit an error.', stack: null, hidden: true, requestId }
  }

  #emit(message: ServerMessage): void {
    this.#send?.(message)
  }

  /**
   * A refused value left its control showing what the server does not hold. Between runs, the
   * last render goes out again with the widget's new revision (no rerun: nothing changed); a run
   * under way stamps it into its own final render.
   */
  #resync(): void {
    if (!this.widgets.revisions.hasUnstamped) return
    if (!this.#settled) {
      this.#reflected = this.#received
      return
    }
    if (this.#renderedRunId === 0) return
    this.widgets.revisions.stamp([...this.#previous.main, ...this.#previous.sidebar])
    this.#reflected = this.#received
    this.#emit(this.#render(this.#renderedRunId, this.#lastPage, this.#lastMeta, this.#previous.main, this.#previous.sidebar, false))
  }

  #settle(): void {
    this.#settled = true
    if (this.#taskNews.size > 0 && this.#send !== null) {
      this.#flushTaskNews()
      if (!this.#settled) return
    }
    const waiters = this.#waiters
    this.#waiters = []
    for (const w of waiters) w()
  }

  #resolvePage(dir: PageDirectory, visible: readonly ResolvedPage[]): ResolvedPage | undefined {
    const deepLink = this.query.get('page')
    if (deepLink !== undefined) {
      const target = dir.byDeepLink(deepLink)
      if (target) {
        this.#path = target.path
        const rest = new URLSearchParams(this.query.toString())
        rest.delete('page')
        this.query.reset(rest.toString())
        return target
      }
    }
    // `/` without a page of its own shows the first page this session may see.
    return dir.get(this.#path) ?? (this.#path.replace(/\/+$/, '') === '' ? visible[0] : undefined)
  }

  async #run(): Promise<void> {
    this.#runningScope = null
    this.#reflected = this.#received
    const ctx = new RunContext(this.generation, this)
    const runId = ++this.#runId
    this.#emit({ v: UI_PROTOCOL_VERSION, type: 'run_state', runId, running: true })
    const dir = this.#opts.directory()
    const st = createSt(ctx)
    let page: ResolvedPage | undefined
    let available = true
    let meta: PageMeta | null = null
    let outcome: Outcome = 'complete'
    let switchTo = ''
    let flushed = 0
    const flushMs = this.#opts.partialFlushMs ?? DEFAULT_PARTIAL_FLUSH_MS
    const watch = this.#watchRun(ctx, runId)
    const timer = setInterval(() => {
      if (!ctx.current || ctx.version === flushed) return
      flushed = ctx.version
      this.#emit(this.#render(runId, page, meta, mergePartial(ctx.main, this.#previous.main), mergePartial(ctx.sidebar, this.#previous.sidebar), true))
    }, flushMs)
    try {
      for (const change of this.widgets.applyPending(this.state)) {
        if (change.meta.onChange) await change.meta.onChange(change.value)
      }
      ctx.check()
      await this.#access.beginRun(this)
      ctx.check()
      // Hidden pages stay hidden when the navigation function fails: nothing is visible then.
      this.#nav = []
      const visible = await this.#access.visiblePages(dir, this.#opts.navigation?.() ?? null, this)
      ctx.check()
      this.#nav = dir.nav(visible)
      page = this.#resolvePage(dir, visible)
      available = page === undefined || visible.some((p) => p.path === page!.path)
      if (!page) this.#notFound(st, visible)
      else if (!available) {
        meta = NOT_AVAILABLE_META
        this.#access.notAvailable(st, this.#path, this.#nav[0])
      }
      else {
        const deps = await resolveInjections(page.inject, st, this.#opts.overrides)
        ctx.check()
        meta = parseReturnedMeta(await page.handler(st, this.#opts.client, deps as never))
      }
    } catch (err) {
      ;({ outcome, switchTo } = this.#failed(err, ctx, st))
    } finally {
      clearInterval(timer)
      clearTimeout(watch)
    }
    if (!ctx.current) return
    if (outcome !== 'error') this.#lastError = null
    this.#finish(ctx, outcome)
    this.#lastPage = page
    this.#lastMeta = meta
    this.#fragments = ctx.fragments
    this.#widgetFragment = new Map()
    for (const id of ctx.fragments.keys()) this.#claimWidgets(id, ctx.rendered)
    this.#pageTaskKeys = keysIn(ctx.taskReads, null)
    this.#fragmentTaskKeys.clear()
    for (const id of ctx.fragments.keys()) this.#fragmentTaskKeys.set(id, keysIn(ctx.taskReads, id))
    if (this.attached) this.#syncTimers(ctx.fragments)
    this.#tail(runId, page, meta, outcome, switchTo)
  }

  /** How a run that threw ended; a page error is shown where the run got to. */
  #failed(err: unknown, ctx: RunContext, st: St): { outcome: Outcome; switchTo: string } {
    if (!ctx.current) return { outcome: 'complete', switchTo: '' }
    if (err instanceof RerunRequested) return { outcome: 'rerun', switchTo: '' }
    if (err instanceof StopRequested) return { outcome: 'stop', switchTo: '' }
    if (err instanceof SwitchPageRequested) return { outcome: 'switch', switchTo: err.path }
    this.#lastError = err
    st.exception(err)
    return { outcome: 'error', switchTo: '' }
  }

  /** After a run that was not replaced: follow its signal, or send its final render. */
  #tail(runId: number, page: ResolvedPage | undefined, meta: PageMeta | null, outcome: Outcome, switchTo: string): void {
    if (outcome === 'rerun') {
      this.requestRerun()
      return
    }
    if (outcome === 'switch') {
      const [path, query = ''] = switchTo.split('?', 2) as [string, string?]
      this.#path = path
      this.query.reset(query)
      this.#emit({ v: UI_PROTOCOL_VERSION, type: 'navigate', path, query })
      this.requestRerun()
      return
    }
    this.#renderedRunId = runId
    this.#emit(this.#render(runId, page, meta, this.#previous.main, this.#previous.sidebar, false))
    // Input that waited behind this run's click runs next; until then the page is still running.
    const next = this.widgets.nextBatch()
    if (next) {
      this.rerunFor(next)
      return
    }
    this.#emit({ v: UI_PROTOCOL_VERSION, type: 'run_state', runId, running: false })
    if (!this.#scheduled) this.#settle()
  }

  /**
   * Rerun one fragment: its function runs again into a fresh child list that replaces the
   * fragment's children in the last tree; widgets outside it keep their values and the page
   * function does not run. The render holds the whole tree; the connection's encoder turns
   * everything outside the fragment into references.
   */
  async #runFragment(id: string): Promise<void> {
    const spec = this.#fragments.get(id)
    const slot = spec && findNode([...this.#previous.main, ...this.#previous.sidebar], id)
    if (!spec || !slot) return this.#run()
    this.#runningScope = id
    this.#reflected = this.#received
    const ctx = new RunContext(this.generation, this, id)
    const runId = ++this.#runId
    this.#emit({ v: UI_PROTOCOL_VERSION, type: 'run_state', runId, running: true })
    const children: UiElement[] = []
    const st = createSt(ctx, { id, list: children })
    let outcome: Outcome = 'complete'
    let switchTo = ''
    const watch = this.#watchRun(ctx, runId)
    try {
      for (const change of this.widgets.applyPending(this.state)) {
        if (change.meta.onChange) await change.meta.onChange(change.value)
      }
      ctx.check()
      await spec.fn(st)
    } catch (err) {
      ;({ outcome, switchTo } = this.#failed(err, ctx, st))
    } finally {
      clearTimeout(watch)
    }
    if (!ctx.current) return
    if (outcome !== 'error') this.#lastError = null
    const submitted = this.#takeTriggers()
    if (outcome === 'complete') {
      const keep = new Set(this.widgets.metas.keys())
      for (const [w, f] of this.#widgetFragment) if (f === id && !ctx.rendered.has(w)) keep.delete(w)
      this.widgets.dropUnrendered(keep, this.state)
    }
    this.#resetWidgets(submitted, ctx, children)
    for (const [df, table] of ctx.dataframes) this.#dataframes.set(df, table)
    for (const [id, download] of ctx.downloads) this.#downloads.set(id, download)
    slot.children = children
    this.widgets.revisions.stamp([...this.#previous.main, ...this.#previous.sidebar])
    for (const [w, f] of this.#widgetFragment) if (f === id) this.#widgetFragment.delete(w)
    this.#claimWidgets(id, ctx.rendered)
    this.#fragmentTaskKeys.set(id, keysIn(ctx.taskReads, id))
    this.#tail(runId, this.#lastPage, this.#lastMeta, outcome, switchTo)
  }

  /** Remember which of `rendered` are drawn inside fragment `id` (their messages rerun it alone). */
  #claimWidgets(id: string, rendered: ReadonlySet<string>): void {
    const node = findNode([...this.#previous.main, ...this.#previous.sidebar], id)
    const walk = (nodes: readonly UiElement[]): void => {
      for (const n of nodes) {
        if (rendered.has(n.id)) this.#widgetFragment.set(n.id, id)
        if (n.children) walk(n.children)
      }
    }
    if (node?.children) walk(node.children)
  }

  /** Keep one interval per timed fragment of the page; stop those that are gone or changed. */
  #syncTimers(fragments: ReadonlyMap<string, FragmentSpec>): void {
    for (const [id, t] of this.#timers) {
      if (fragments.get(id)?.runEveryMs === t.ms) continue
      clearInterval(t.timer)
      this.#timers.delete(id)
    }
    for (const [id, f] of fragments) {
      if (f.runEveryMs === null || this.#timers.has(id)) continue
      // A tick while something else runs is skipped: that run is newer than the tick.
      const timer = setInterval(() => {
        if (this.#settled && this.attached) this.#schedule(id)
      }, f.runEveryMs)
      timer.unref()
      this.#timers.set(id, { ms: f.runEveryMs, timer })
    }
  }

  /** Bookkeeping of a run that was not replaced: triggers, dropped widgets, cleared forms. */
  #finish(ctx: RunContext, outcome: Outcome): void {
    const submitted = this.#takeTriggers()
    if (outcome === 'complete') {
      this.widgets.dropUnrendered(ctx.rendered, this.state)
      for (const id of this.#dfViews.keys()) if (!ctx.dataframes.has(id)) this.#dfViews.delete(id)
    }
    this.#resetWidgets(submitted, ctx, [...ctx.main, ...ctx.sidebar])
    this.widgets.revisions.stamp([...ctx.main, ...ctx.sidebar])
    this.#dataframes = ctx.dataframes
    this.#downloads = ctx.downloads
    this.#previous = { main: ctx.main, sidebar: ctx.sidebar }
  }

  /** The run's triggers become `lastTriggers`; returns the forms they submitted. */
  #takeTriggers(): Set<string> {
    const submitted = new Set<string>()
    for (const id of this.widgets.activeTriggers) {
      const meta = this.widgets.metas.get(id)
      if (meta?.type === 'formSubmitButton' && meta.formId !== null) submitted.add(meta.formId)
    }
    this.#lastTriggers = new Set(this.widgets.activeTriggers)
    this.widgets.activeTriggers.clear()
    return submitted
  }

  /**
   * Widgets that end this run at their default although it drew them with a value: those of
   * forms submitted with `clearOnSubmit`, and keyed ones whose `st.sessionState` key the page
   * deleted after drawing them. Their values are forgotten and the render shows the defaults.
   */
  #resetWidgets(submitted: ReadonlySet<string>, ctx: RunContext, nodes: UiElement[]): void {
    const ids = new Set(ctx.resetAfterDraw)
    const forms = new Set<string>()
    for (const formId of submitted) {
      if (!ctx.forms.get(formId)?.clearOnSubmit) continue
      for (const id of this.widgets.clearForm(formId, this.state)) ids.add(id)
      this.#formClears.set(formId, this.formClears(formId) + 1)
      forms.add(formId)
    }
    for (const id of ctx.resetAfterDraw) this.widgets.reset(id, this.state)
    if (ids.size > 0) resetNodes(nodes, ids, forms, ctx, this.#formClears)
  }

  #navPosition(): { navPosition?: 'top' | 'hidden' } {
    const position = this.#opts.navigationPosition?.() ?? 'sidebar'
    return position === 'sidebar' ? {} : { navPosition: position }
  }

  #render(runId: number, page: ResolvedPage | undefined, meta: PageMeta | null, main: UiElement[], sidebar: UiElement[], partial: boolean): ServerMessage {
    const m = meta ?? page?.pageMeta ?? null
    const info: PageInfo = page
      ? { path: page.path, title: m?.pageTitle ?? page.title, icon: m?.pageIcon ?? page.icon, layout: m?.layout ?? 'centered', breadcrumb: m?.breadcrumb ?? null }
      : { path: this.#path, title: 'Page not found', icon: null, layout: 'centered', breadcrumb: null }
    return {
      v: UI_PROTOCOL_VERSION,
      type: 'render',
      runId,
      page: info,
      nav: this.#nav,
      ...this.#navPosition(),
      main: asNodes(main),
      sidebar: asNodes(sidebar),
      query: this.query.toString(),
      ...(page ? {} : { notFound: true }),
      ...(partial ? { partial: true } : {}),
      // Input still queued behind a click is not in this render, nor anything sent after it.
      seen: Math.min(this.#reflected, (this.widgets.oldestQueuedSeq ?? Infinity) - 1),
    }
  }

  #notFound(st: St, pages: readonly ResolvedPage[]): void {
    st.title('Page not found')
    st.markdown(pages.length ? `There is no page at \`${this.#path}\`. These pages exist:` : 'This app has no pages yet: register one with `app.page("/", (st) => { ... })`.')
    for (const p of pages) st.link(p.title, p.path, { newTab: false, ...(p.icon ? { icon: p.icon } : {}) })
  }

  /**
   * Run the function of a download button the last run drew (`data` made on click) and put its
   * bytes in the media store; null for an id that names no such button. A failing function is
   * logged like a page exception, and the visitor reads what `show_error_details` allows.
   */
  async makeDownload(id: string): Promise<{ url: string | null; fileName: string; type: string; message: string | null } | null> {
    const download = this.#downloads.get(id)
    // One at a time per button: repeated clicks (or messages) while it works are dropped.
    if (!download || this.#making.has(id)) return null
    this.#making.add(id)
    const call = `downloadButton(${JSON.stringify(download.fileName)})`
    try {
      const data = (await download.make()) as DownloadData
      const type = deferredMime(download.mime, data)
      return { url: this.media.add(downloadBytes(call, data), type, download.fileName), fileName: download.fileName, type, message: null }
    } catch (err) {
      const shown = this.exceptionProps(err)
      return { url: null, fileName: download.fileName, type: '', message: shown.hidden ? shown.message : `${shown.name}: ${shown.message}` }
    } finally {
      this.#making.delete(id)
    }
  }

  #dataframePage(id: string, page: number, sort: SortSpec | null): void {
    const table = this.#dataframes.get(id)
    if (!table) return
    const view = pageView(table, page, sort)
    this.#dfViews.set(id, { page: view.page, sort: view.sort })
    this.#emit({
      v: UI_PROTOCOL_VERSION, type: 'dataframe_rows', id, runId: this.#renderedRunId, page: view.page, pageSize: table.pageSize,
      totalRows: table.rows.length, sort: view.sort, rows: view.rows, rowIds: view.rowIds,
    })
  }
}

/** The task keys a run read in `scope` (null: at page level). */
function keysIn(reads: ReadonlyMap<string, ReadonlySet<string | null>>, scope: string | null): ReadonlySet<string> {
  const out = new Set<string>()
  for (const [key, where] of reads) if (where.has(scope)) out.add(key)
  return out
}

/** Element props are closed interfaces; on the wire they are the protocol's open records. */
function asNodes(list: UiElement[]): UiNode[] {
  return list as unknown as UiNode[]
}

function findNode(nodes: readonly UiElement[], id: string): UiElement | undefined {
  for (const n of nodes) {
    if (n.id === id) return n
    const inner = n.children ? findNode(n.children, id) : undefined
    if (inner) return inner
  }
  return undefined
}

function resetNodes(nodes: UiElement[], ids: ReadonlySet<string>, forms: ReadonlySet<string>, ctx: RunContext, clears: ReadonlyMap<string, number>): void {
  for (const n of nodes) {
    const props = n.props as unknown as Record<string, unknown>
    if (n.type === 'form' && forms.has(n.props.formId)) n.props.clears = clears.get(n.props.formId) ?? 0
    else if (ids.has(n.id)) {
      const reset = ctx.nodeResets.get(n.id)
      if (reset) reset(props)
      else if (ctx.widgetDefaults.has(n.id)) props.value = ctx.widgetDefaults.get(n.id)
    }
    if (n.children) resetNodes(n.children, ids, forms, ctx, clears)
  }
}
