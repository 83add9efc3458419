import { pageSideOf, type PageApp, type SvcApp } from '../ui/page-app.js'
import { isSvcApp } from '../internal/svc-brand.js'
import { getClient, type ApiClient } from '../client/api-client.js'
import type { ElementPropsMap, ElementType, UiElement, WidgetType } from '../ui/wire/elements.js'
import { isWidgetType } from '../ui/wire/elements.js'
import { overridesFromEnv } from '../ui/inject.js'
import { MediaStore } from '../ui/media-store.js'
import type { ClientMessage, PageInfo, ServerMessage } from '../ui/wire/protocol.js'
import { PageDirectory } from '../ui/page-directory.js'
import { PageSession } from '../ui/runtime/page-session.js'
import type { QueryParams, SessionState } from '../ui/st-types.js'
import { SvcError } from '../errors.js'
import { FIELDS } from '../settings/schema.js'
import { InlineTaskExecutor } from '../ui/tasks/inline-executor.js'
import { TaskManager } from '../ui/tasks/task-manager.js'
import type { RegisteredSecrets } from '../secrets/register.js'
import { CookieKeys } from '../ui/storage/cookie-keys.js'
import { MemoryUserStore, type UserStore } from '../ui/storage/user-store.js'
import type { StContext } from '../ui/st-types.js'
import { SIGNED_OUT, type SignedInUser } from '../auth/user.js'
import { UI_PROTOCOL_VERSION } from '../ui/wire/protocol.js'

/**
 * An in-process driver for pages, like Streamlit's AppTest: no server, no browser. Run the page,
 * read elements, interact with widgets, run again.
 *
 * ```ts
 * const at = await createUiTestHandle(app, { target: '/' }).run()
 * at.textInput('name').setValue('Ada')
 * await at.button('greet').click().run()
 * expect(at.markdown[0]!.value).toContain('Hello, Ada')
 * ```
 */

export interface UiTestOptions {
  /** Page path to run (default `/`). */
  target?: string
  queryParams?: Record<string, string | string[]>
  /** Values for the page's `inject` names (like `SVC_TEST_PAGE_OVERRIDES`, which is merged under these). */
  pageOverrides?: Record<string, unknown>
  headers?: Record<string, string>
  cookies?: Record<string, string>
  /** A run that takes longer fails the test (default 3000 ms, like AppTest). */
  timeoutMs?: number
  /** The client pages get (default: `getClient(app)`, the API at `SVC_INTERNAL_API_BASE`). */
  client?: ApiClient
  /** `st.secrets` for this test instead of the app's own. */
  secrets?: Readonly<Record<string, unknown>>
  /** `st.user` for this test: a signed-in user (`{ sub: 'ada', roles: ['admin'] }`) or `null` (signed out). See `setUser`. */
  user?: TestUser | null
  /** What the browser would tell `st.context`: `{ ipAddress: '203.0.113.9', locale: 'de-DE', timezone: 'Europe/Berlin' }`. */
  context?: Partial<Omit<StContext, 'headers' | 'cookies' | 'requestId'>>
  /** svc's entries of the browser's localStorage and sessionStorage (`st.localStorage`, `st.tabStorage`), as JSON-serialisable values. */
  localStorage?: Record<string, unknown>
  tabStorage?: Record<string, unknown>
  /** `st.userStorage`'s store (default: a fresh in-memory one; pass one `MemoryUserStore` to several handles to share it). */
  userStore?: UserStore
}

/** A signed-in user for the test handle: `sub` and whatever claims the page reads. */
export interface TestUser {
  sub: string
  name?: string
  email?: string
  roles?: readonly string[]
  provider?: string
  claims?: Record<string, unknown>
}

export const DEFAULT_UI_TEST_TIMEOUT_MS = 3000

export class ElementView<T extends ElementType = ElementType> {
  constructor(
    readonly node: UiElement,
    readonly children: ElementView[],
  ) {}
  get id(): string { return this.node.id }
  get type(): T { return this.node.type as T }
  get props(): ElementPropsMap[T] { return this.node.props as ElementPropsMap[T] }
  /** The main content: `text`, `html`, `markup`, `code`, `value` or `label`, whichever the element has. */
  get value(): unknown {
    const p = this.node.props as unknown as Record<string, unknown>
    for (const k of ['text', 'html', 'markup', 'code', 'value', 'label']) if (k in p) return p[k]
    return undefined
  }
}

export class WidgetView<T extends WidgetType = WidgetType> extends ElementView<T> {
  readonly #handle: UiTestHandle
  constructor(node: UiElement, children: ElementView[], handle: UiTestHandle) {
    super(node, children)
    this.#handle = handle
  }
  /** The value the page saw in the last run (option values, Dates, files; not the wire form). */
  override get value(): unknown {
    return this.#handle.widgetValue(this.id)
  }
  get key(): string | null { return (this.node.props as { key: string | null }).key }
  get label(): string { return (this.node.props as { label: string }).label }
  /** Stage a new value; it applies on the next `run()`. */
  setValue(value: unknown): UiTestHandle {
    this.#handle.stage(this.id, value)
    return this.#handle
  }
  click(): UiTestHandle { return this.setValue(true) }
  check(): UiTestHandle { return this.setValue(true) }
  uncheck(): UiTestHandle { return this.setValue(false) }
}

export class UiTestHandle {
  readonly #session: PageSession
  /** Tasks (`st.task`) run in this thread, one at a time per key, as the page server would run them. */
  readonly #tasks: TaskManager
  /** What the browser would hold after the page's writes: `st.localStorage` and `st.tabStorage` entries (JSON text). */
  readonly #browser = { local: new Map<string, string>(), tab: new Map<string, string>() }
  readonly #options: UiTestOptions
  readonly #messages: ServerMessage[] = []
  #staged: { id: string; value: unknown }[] = []
  #started = false
  #render: Extract<ServerMessage, { type: 'render' }> | null = null

  constructor(appOrPageSide: SvcApp | PageApp, options: UiTestOptions = {}) {
    this.#options = options
    const app = isSvcApp(appOrPageSide) ? pageSideOf(appOrPageSide) : appOrPageSide
    const directory = new PageDirectory(app.pages)
    const userStore = options.userStore ?? new MemoryUserStore()
    const client = options.client ?? getClient(app)
    const secrets = (options.secrets ?? app.secrets ?? {}) as RegisteredSecrets
    const settings = app.settings as Partial<Record<'ui_task_max_running' | 'ui_task_max_per_session' | 'ui_task_timeout_s' | 'ui_user_storage_max_value_bytes' | 'ui_user_storage_max_keys', number>>
    this.#tasks = new TaskManager({
      executor: new InlineTaskExecutor({ tasks: () => app.tasks ?? new Map(), client, secrets, logger: app.logger, showErrorDetails: app.settings.show_error_details ?? true }),
      deliver: (_id, key, record) => this.#session.tasks.apply(key, record),
      limits: {
        maxRunning: settings.ui_task_max_running ?? FIELDS.ui_task_max_running.default,
        maxPerSession: settings.ui_task_max_per_session ?? FIELDS.ui_task_max_per_session.default,
        timeoutMs: (settings.ui_task_timeout_s ?? FIELDS.ui_task_timeout_s.default) * 1000,
      },
      logger: app.logger,
    })
    this.#session = new PageSession({
      id: 'test-session',
      directory: () => directory,
      client,
      media: new MediaStore(),
      logger: app.logger,
      overrides: { ...overridesFromEnv(), ...options.pageOverrides },
      // A test wants to see what failed, unless the app turned details off explicitly.
      showErrorDetails: app.settings.show_error_details ?? true,
      ...(options.secrets ?? app.secrets ? { secrets: options.secrets ?? app.secrets } : {}),
      navigation: () => app.navigation ?? null,
      navigationPosition: () => app.navigationPosition ?? 'sidebar',
      identity: () => app.identity ?? null,
      tasks: this.#tasks,
      maxTasksPerSession: settings.ui_task_max_per_session ?? FIELDS.ui_task_max_per_session.default,
      cookieKeys: new CookieKeys((app.settings as { cookie_secret?: string }).cookie_secret ?? '', CookieKeys.randomFallback()),
      userStore: () => userStore,
      userStorageLimits: {
        maxValueBytes: settings.ui_user_storage_max_value_bytes ?? FIELDS.ui_user_storage_max_value_bytes.default,
        maxKeys: settings.ui_user_storage_max_keys ?? FIELDS.ui_user_storage_max_keys.default,
      },
    })
    for (const [area, values] of [['local', options.localStorage], ['tab', options.tabStorage]] as const) {
      for (const [k, v] of Object.entries(values ?? {})) this.#browser[area].set(k, typeof v === 'string' ? v : JSON.stringify(v))
    }
    if (options.user !== undefined) this.setUser(options.user)
    const headers = Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
    this.#session.attach((m) => {
      const copy = structuredClone(m)
      this.#messages.push(copy)
      if (copy.type === 'render' && !copy.partial) this.#render = copy
      if (copy.type === 'storage') {
        if (copy.value === null) this.#browser[copy.area].delete(copy.key)
        else this.#browser[copy.area].set(copy.key, copy.value)
      }
    }, { headers, cookies: { ...options.cookies }, requestId: undefined, ...options.context })
  }

  /** Apply staged interactions and run the page once; resolves when the run (and any st.rerun) is done. */
  async run(): Promise<this> {
    if (!this.#started) {
      this.#started = true
      const q = new URLSearchParams()
      for (const [k, v] of Object.entries(this.#options.queryParams ?? {})) for (const item of Array.isArray(v) ? v : [v]) q.append(k, item)
      this.#session.start(this.#options.target ?? '/', q.toString(), { local: Object.fromEntries(this.#browser.local), tab: Object.fromEntries(this.#browser.tab) })
    } else {
      // Taken first: a value the widget refuses throws here and is not staged again.
      const staged = this.#staged
      this.#staged = []
      for (const { id, value } of staged) {
        // A chat input's value is a submit: it reaches the page for one run, as from the browser.
        if (this.#session.widgets.metas.get(id)?.type === 'chatInput') this.#session.widgets.queue(id, value, true)
        else this.#session.widgets.queueValue(id, value)
      }
      // What was staged for one run goes in together, like one message from the browser.
      this.#session.widgets.seal()
      // Like the browser: changes that are all inside one fragment rerun only that fragment.
      if (staged.length > 0) this.#session.inputQueued(staged.map((s) => s.id))
      else this.#session.requestRerun()
    }
    const ms = this.#options.timeoutMs ?? DEFAULT_UI_TEST_TIMEOUT_MS
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_r, reject) => {
      timer = setTimeout(() => reject(new Error(`the page run did not finish within ${ms} ms (raise timeoutMs if it is slow on purpose)`)), ms)
    })
    try {
      await Promise.race([this.#session.idle(), timeout])
    } finally {
      clearTimeout(timer)
    }
    return this
  }

  /**
   * Deliver a raw page-protocol message as the browser would (wire values: option indices,
   * base64 files, `dataframe_page`), then wait until the session is idle again.
   */
  async send(message: ClientMessage): Promise<this> {
    this.#session.handle(message)
    await new Promise((resolve) => setImmediate(resolve))
    await this.#session.idle()
    return this
  }

  /**
   * Wait until no task of this session (`st.task`) is queued or running, and the reruns their news
   * caused are done: the page then shows how each ended. Fails after `timeoutMs` (default 10 s).
   */
  async waitForTasks(timeoutMs = 10_000): Promise<this> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_r, reject) => {
      timer = setTimeout(() => reject(new Error(`the page's tasks did not end within ${timeoutMs} ms (raise the timeout if they are slow on purpose)`)), timeoutMs)
    })
    try {
      await Promise.race([this.#tasks.idle(this.#session.id), timeout])
      // The last news reaches the session on the next turn; its rerun follows.
      await new Promise((resolve) => setImmediate(resolve))
      await Promise.race([this.#session.idle(), timeout])
    } finally {
      clearTimeout(timer)
    }
    return this
  }

  /** Cancel every task still going (a test's teardown): they end as `cancelled`. */
  async closeTasks(): Promise<void> {
    await this.#tasks.close()
  }

  /** Go to another page; call `run()` next. */
  switchPage(path: string): this {
    const [p, q = ''] = path.split('?', 2) as [string, string?]
    this.#session.handle({ v: UI_PROTOCOL_VERSION, type: 'navigate', path: p, query: q })
    return this
  }

  /** Sign the session in as `user` (or out with `null`) for the next `run()`, whatever the app's login says. */
  setUser(user: TestUser | null): this {
    this.#session.setTestUser(user === null ? SIGNED_OUT : signedIn(user))
    return this
  }

  /** Where `st.login()` / `st.logout()` of the last run sent the browser (an app URL), or null. */
  get redirect(): string | null {
    for (let i = this.#messages.length - 1; i >= 0; i--) {
      const m = this.#messages[i]!
      if (m.type === 'location') return m.url
      if (m.type === 'run_state' && m.running) return null
    }
    return null
  }

  stage(id: string, value: unknown): void {
    this.#staged.push({ id, value })
  }

  widgetValue(id: string): unknown {
    const w = this.#session.widgets
    const meta = w.metas.get(id)
    if (meta?.trigger) return this.#session.lastTriggers.has(id)
    return w.values.get(id)
  }

  get sessionState(): SessionState { return this.#session.state }
  /** The cookies as the page sees them after its writes (`st.cookies.toObject()`; signed values with their signature). */
  get cookies(): Record<string, string> { return this.#session.cookies.toObject() }
  /** svc's entries of the browser's localStorage after the page's writes (JSON text). */
  get localStorage(): Record<string, string> { return Object.fromEntries(this.#browser.local) }
  /** svc's entries of the browser's sessionStorage after the page's writes (JSON text). */
  get tabStorage(): Record<string, string> { return Object.fromEntries(this.#browser.tab) }
  get queryParams(): QueryParams { return this.#session.query }
  get page(): PageInfo | null { return this.#render?.page ?? null }
  get notFound(): boolean { return this.#render?.notFound === true }
  get messages(): readonly ServerMessage[] { return this.#messages }
  get toasts(): string[] {
    return this.#messages.flatMap((m) => (m.type === 'toast' ? [m.body] : []))
  }
  get main(): ElementView[] { return this.#views((this.#render?.main ?? []) as unknown as UiElement[]) }
  get sidebar(): ElementView[] { return this.#views((this.#render?.sidebar ?? []) as unknown as UiElement[]) }

  #views(nodes: UiElement[]): ElementView[] {
    return nodes.map((n) => {
      const children = this.#views(n.children ?? [])
      return isWidgetType(n.type) ? new WidgetView(n, children, this) : new ElementView(n, children)
    })
  }

  /** Every element of `type`, main area first, depth-first. */
  get<T extends ElementType>(type: T): ElementView<T>[] {
    const out: ElementView<T>[] = []
    const walk = (views: ElementView[]): void => {
      for (const v of views) {
        if (v.type === type) out.push(v as unknown as ElementView<T>)
        walk(v.children)
      }
    }
    walk(this.main)
    walk(this.sidebar)
    return out
  }

  /** The widget of `type` with this key (or, failing that, this label). */
  widget<T extends WidgetType>(type: T, keyOrLabel: string): WidgetView<T> {
    const all = this.get(type) as unknown as WidgetView<T>[]
    const found = all.find((w) => w.key === keyOrLabel) ?? all.find((w) => w.label === keyOrLabel)
    if (!found) {
      const have = all.map((w) => w.key ?? w.label)
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `no ${type} with key or label "${keyOrLabel}" in the last run (found: ${have.join(', ') || 'none'})`)
    }
    return found
  }

  get title(): ElementView<'title'>[] { return this.get('title') }
  get header(): ElementView<'header'>[] { return this.get('header') }
  get subheader(): ElementView<'subheader'>[] { return this.get('subheader') }
  get caption(): ElementView<'caption'>[] { return this.get('caption') }
  get markdown(): ElementView<'markdown'>[] { return this.get('markdown') }
  get text(): ElementView<'text'>[] { return this.get('text') }
  get code(): ElementView<'code'>[] { return this.get('code') }
  get json(): ElementView<'json'>[] { return this.get('json') }
  get divider(): ElementView<'divider'>[] { return this.get('divider') }
  get success(): ElementView<'success'>[] { return this.get('success') }
  get info(): ElementView<'info'>[] { return this.get('info') }
  get warning(): ElementView<'warning'>[] { return this.get('warning') }
  get error(): ElementView<'error'>[] { return this.get('error') }
  get exception(): ElementView<'exception'>[] { return this.get('exception') }
  get metric(): ElementView<'metric'>[] { return this.get('metric') }
  get table(): ElementView<'table'>[] { return this.get('table') }
  get dataframe(): ElementView<'dataframe'>[] { return this.get('dataframe') }
  get dataEditor(): ElementView<'dataEditor'>[] { return this.get('dataEditor') }
  get image(): ElementView<'image'>[] { return this.get('image') }
  get link(): ElementView<'link'>[] { return this.get('link') }
  get progress(): ElementView<'progress'>[] { return this.get('progress') }
  get columns(): ElementView<'columns'>[] { return this.get('columns') }
  get tabs(): ElementView<'tabs'>[] { return this.get('tabs') }
  get expander(): ElementView<'expander'>[] { return this.get('expander') }

  button(key: string): WidgetView<'button'> { return this.widget('button', key) }
  formSubmitButton(key: string): WidgetView<'formSubmitButton'> { return this.widget('formSubmitButton', key) }
  checkbox(key: string): WidgetView<'checkbox'> { return this.widget('checkbox', key) }
  toggle(key: string): WidgetView<'toggle'> { return this.widget('toggle', key) }
  radio(key: string): WidgetView<'radio'> { return this.widget('radio', key) }
  selectbox(key: string): WidgetView<'selectbox'> { return this.widget('selectbox', key) }
  multiselect(key: string): WidgetView<'multiselect'> { return this.widget('multiselect', key) }
  slider(key: string): WidgetView<'slider'> { return this.widget('slider', key) }
  textInput(key: string): WidgetView<'textInput'> { return this.widget('textInput', key) }
  textArea(key: string): WidgetView<'textArea'> { return this.widget('textArea', key) }
  numberInput(key: string): WidgetView<'numberInput'> { return this.widget('numberInput', key) }
  dateInput(key: string): WidgetView<'dateInput'> { return this.widget('dateInput', key) }
  fileUploader(key: string): WidgetView<'fileUploader'> { return this.widget('fileUploader', key) }
  downloadButton(key: string): WidgetView<'downloadButton'> { return this.widget('downloadButton', key) }
  /** `setValue(text)` submits the text for the next `run()`; with attachments, `setValue({ text, files, audio })`. */
  chatInput(keyOrPlaceholder: string): WidgetView<'chatInput'> { return this.widget('chatInput', keyOrPlaceholder) }
  /** `setValue(date)` with a `Date` (its UTC fields) or `"YYYY-MM-DDTHH:MM"`, or null. */
  datetimeInput(key: string): WidgetView<'datetimeInput'> { return this.widget('datetimeInput', key) }
  /** `setValue({ name, type: 'audio/wav', bytes })` or null; the bytes must be a WAV of the widget's rate. */
  audioInput(key: string): WidgetView<'audioInput'> { return this.widget('audioInput', key) }
  /** `setValue({ name, type: 'image/jpeg', bytes })` or null. */
  cameraInput(key: string): WidgetView<'cameraInput'> { return this.widget('cameraInput', key) }
  get badge(): ElementView<'badge'>[] { return this.get('badge') }
  get latex(): ElementView<'latex'>[] { return this.get('latex') }
  get graphvizChart(): ElementView<'graphvizChart'>[] { return this.get('graphvizChart') }
  get help(): ElementView<'help'>[] { return this.get('help') }
  /** Where the page links show this run: `sidebar`, `top` or `hidden` (`app.navigation(…, { position })`). */
  get navPosition(): 'sidebar' | 'top' | 'hidden' { return this.#render?.navPosition ?? 'sidebar' }

  /**
   * Click a download button whose data is made on click and get the file its function made (the
   * click's rerun, unless `onClick: 'ignore'`, comes with the next `click().run()`).
   */
  async download(keyOrLabel: string): Promise<{ fileName: string; type: string; bytes: Uint8Array }> {
    const button = this.downloadButton(keyOrLabel)
    const made = await this.#session.makeDownload(button.id)
    if (!made) throw new SvcError('SVC_ERR_UI_BAD_CALL', `downloadButton "${keyOrLabel}" has its data already (it is not a function): read it from the button's url`)
    if (made.url === null) throw new SvcError('SVC_ERR_UI_BAD_CALL', `downloadButton "${keyOrLabel}": its function failed: ${made.message ?? ''}`)
    const file = this.#session.media.get(made.url.slice(made.url.lastIndexOf('/') + 1))
    if (!file) throw new SvcError('SVC_ERR_UI_BAD_CALL', `downloadButton "${keyOrLabel}": the file is gone from the media store`)
    return { fileName: made.fileName, type: made.type, bytes: file.bytes }
  }
}

function signedIn(user: TestUser): SignedInUser {
  return Object.freeze({
    isLoggedIn: true,
    sub: user.sub,
    provider: user.provider ?? 'default',
    name: user.name ?? null,
    email: user.email ?? null,
    roles: Object.freeze([...(user.roles ?? [])]),
    claims: Object.freeze({ sub: user.sub, ...(user.name ? { name: user.name } : {}), ...(user.email ? { email: user.email } : {}), ...user.claims }),
    expiresAt: new Date(Date.now() + 3_600_000),
  })
}

export function createUiTestHandle(app: SvcApp | PageApp, options: UiTestOptions = {}): UiTestHandle {
  return new UiTestHandle(app, options)
}
