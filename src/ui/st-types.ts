import type { BadgeColor, Cell, ContainerGap, EditingState, Gap, LabelVisibility, PlotlyRegion, RowId } from './wire/elements.js'
import type { ColumnConfigInput } from './column-config.js'
import type { RegisteredSecrets } from '../secrets/register.js'
import type { StUser } from '../auth/user.js'
import type { Component } from './components.js'
import type { TaskDefinition, TaskHandle, TaskOptions } from './tasks/task-types.js'
import type { Output, ZodSchema } from './storage/checked-value.js'
import type { CookieOptions, CookieReadOptions } from './storage/cookie-jar.js'

/**
 * The typed surface of `st`, the object a page function receives. Element methods live on
 * `StContainer` (so `st.sidebar`, columns, tabs, expanders and forms all have them); `St` adds
 * the session-level members.
 */

export type Callback<T> = (value: T) => void | Promise<void>

export interface WidgetOptions {
  /** Stable identity and the `st.sessionState` key that mirrors the value. */
  key?: string
  help?: string
  disabled?: boolean
  labelVisibility?: LabelVisibility
}

export interface ButtonOptions extends WidgetOptions {
  type?: 'primary' | 'secondary' | 'tertiary'
  icon?: string
  useContainerWidth?: boolean
  /** Runs before the rerun the click causes. */
  onClick?: () => void | Promise<void>
}
export interface CheckboxOptions extends WidgetOptions { value?: boolean; onChange?: Callback<boolean> }
export interface ChoiceOptions<T> extends WidgetOptions {
  /** Initially selected option index; `null` starts with nothing selected. Default 0. */
  index?: number | null
  formatFunc?: (option: T) => string
  onChange?: Callback<T | null>
}
export interface RadioOptions<T> extends ChoiceOptions<T> { horizontal?: boolean; captions?: string[] }
export interface SelectboxOptions<T> extends ChoiceOptions<T> { placeholder?: string }
export interface MultiselectOptions<T> extends WidgetOptions {
  default?: readonly T[]
  maxSelections?: number
  placeholder?: string
  formatFunc?: (option: T) => string
  onChange?: Callback<T[]>
}
export interface SliderOptions<V> extends WidgetOptions {
  min?: number
  max?: number
  step?: number
  value?: V
  /** printf-like, e.g. "%d items", "%.1f%%". */
  format?: string
  onChange?: Callback<V>
}
export interface TextInputOptions extends WidgetOptions {
  value?: string
  placeholder?: string
  maxChars?: number
  type?: 'default' | 'password'
  onChange?: Callback<string>
}
export interface TextAreaOptions extends WidgetOptions {
  value?: string
  placeholder?: string
  maxChars?: number
  height?: number
  onChange?: Callback<string>
}
export interface NumberInputOptions<V> extends WidgetOptions {
  value?: V
  min?: number
  max?: number
  step?: number
  format?: string
  placeholder?: string
  onChange?: Callback<V>
}
/** A day: a `Date` (its UTC day) or `"YYYY-MM-DD"`. */
export type DateValue = Date | string
export interface DateInputOptions<V, R = Date | null> extends WidgetOptions {
  /** A day (default today), `null` for none, or a pair `[from, to]` for a range. */
  value?: V
  /** Earliest day the user can pick (the server refuses earlier ones). */
  min?: DateValue
  max?: DateValue
  onChange?: Callback<R>
}

/** A file the user uploaded through `fileUploader`. */
export interface UploadedFile {
  readonly name: string
  readonly type: string
  readonly size: number
  readonly bytes: Uint8Array
  text(): string
}
export interface FileUploaderOptions extends WidgetOptions {
  /** Extensions (`.csv`) or MIME types (`image/*`). */
  accept?: string | string[]
  /** Default 10 MiB per file. */
  maxBytes?: number
  onChange?: Callback<UploadedFile[]>
}
export interface DownloadButtonOptions extends Omit<ButtonOptions, 'onClick'> {
  fileName?: string
  mime?: string
  /** A function runs before the rerun the click causes; `'ignore'`: the click does not rerun the page (default `'rerun'`). */
  onClick?: 'rerun' | 'ignore' | (() => void | Promise<void>)
}
/** What a download holds: text, bytes, or a function that makes them when the visitor clicks (issue #36). */
export type DownloadData = string | Uint8Array | ArrayBuffer
export type DownloadSource = DownloadData | (() => DownloadData | Promise<DownloadData>)

export interface TextOptions { unsafeAllowHtml?: boolean }
export interface AlertOptions extends TextOptions { icon?: string }
export interface HeadingOptions { anchor?: string; help?: string; divider?: boolean }
export interface MetricOptions {
  delta?: number | string | null
  deltaColor?: 'normal' | 'inverse' | 'off'
  help?: string
  border?: boolean
  /** Numbers drawn as a small chart under the value (a sparkline), oldest first. */
  chartData?: readonly (number | null)[]
  /** Default `line`. */
  chartType?: 'line' | 'bar' | 'area'
}

/**
 * Tabular data: an array of records (`[{ a: 1, b: 'x' }]`), an object of columns
 * (`{ a: [1, 2], b: ['x', 'y'] }`), or an array of arrays (column names from `columns`, else `0`, `1`, ...).
 */
export type TableData = readonly object[] | Readonly<Record<string, readonly unknown[]>> | readonly (readonly unknown[])[]

/** Column-oriented data whose rows are `R`: one array of values per column (`{ a: [1, 2], b: ['x', 'y'] }`). */
export type ColumnsOf<R> = { readonly [K in keyof R]: readonly R[K][] }

/**
 * The record type of a row, from the `R` inferred from the data: records as they are, a column's
 * values as its field; arrays of arrays (names known only at run time) and data typed only as
 * `TableData` give `Record<string, unknown>`.
 */
export type RowRecord<R> = [R] extends [never] ? Record<string, unknown> : [R] extends [readonly unknown[]] ? Record<string, unknown> : object extends R ? Record<string, unknown> : R

/**
 * Table data whose rows are `R`, for the calls that type their options and results by the row:
 * `R` is inferred from an array of records or an object of columns; any `TableData` is accepted.
 */
export type RowsOf<R extends object> = readonly R[] | ColumnsOf<R> | TableData

/** A column name of rows `R`. */
export type ColumnOf<R> = keyof R & string

export interface TableOptions { columns?: string[] }
/** `R`: the row type, inferred from the data (see `RowsOf`); `rowKey`, `columnConfig` and `columnOrder` name its columns. */
export interface DataframeOptions<R = Record<string, unknown>> extends TableOptions {
  /** Rows per page (default 25). */
  pageSize?: number
  height?: number
  hideIndex?: boolean
  /** Gives the table a stable identity so its page/sort (and selection) survive layout changes. */
  key?: string
  /**
   * What identifies a row: a column name (`'id'`) or a function of the row. Selections and edits
   * are then held by this key, so they stay with their rows when the data is filtered, re-sorted
   * or changes between runs, and are dropped (see `dropped`) when their row is gone. Keys must be
   * unique strings or numbers; they are compared as strings. Without a `rowKey`, a selection or
   * edits are cleared whenever the rows change.
   */
  rowKey?: RowKey<R>
  /** Per column: a `columnConfig.*()` entry, a label, or `null` to hide it. */
  columnConfig?: { readonly [K in ColumnOf<R>]?: ColumnConfigInput }
  /** Shown columns in this order; columns not listed are hidden. */
  columnOrder?: readonly ColumnOf<R>[]
  /** Stretch to the width of the container. */
  useContainerWidth?: boolean
  /**
   * What the visitor can select: rows, columns or cells, one or several (`'multi-cell'`), or a
   * list combining them (`['multi-row', 'multi-column']`). The call then returns a `DataframeSelection`.
   */
  selectionMode?: DataframeSelectionMode | readonly DataframeSelectionMode[]
  /** Runs before the rerun a selection change causes. */
  onSelect?: Callback<DataframeSelection<R>>
}
export interface ChartOptions extends TableOptions {
  /** Column used for x (default: the row index). */
  x?: string
  /** Column(s) plotted (default: every numeric column except x). */
  y?: string | string[]
  xLabel?: string
  yLabel?: string
  /** CSS colours, one per series. */
  color?: string | string[]
  /** Plot height in pixels (default 300). */
  height?: number
  /** Plot width in pixels; only used with `useContainerWidth: false`. */
  width?: number
  /** Stretch to the width of the container (default true). */
  useContainerWidth?: boolean
  stacked?: boolean
}
export interface ImageOptions { caption?: string; width?: number; alt?: string; mime?: string }
export interface LinkOptions { newTab?: boolean; icon?: string }
export interface ColumnsOptions { gap?: Gap; verticalAlign?: 'top' | 'center' | 'bottom'; border?: boolean }
export interface ExpanderOptions { expanded?: boolean; icon?: string }
export interface ContainerOptions {
  border?: boolean
  height?: number
  /** Lay the children out side by side, wrapping onto new lines when they do not fit (default false). */
  horizontal?: boolean
  /** Space between the children (default `small`; null: none). */
  gap?: ContainerGap | null
  /** Where the children sit across the width (default `left`; `distribute` spreads them out). */
  horizontalAlignment?: 'left' | 'center' | 'right' | 'distribute'
  /** Where the children sit along the height (default `top`). */
  verticalAlignment?: 'top' | 'center' | 'bottom' | 'distribute'
}
export interface FormOptions { clearOnSubmit?: boolean; border?: boolean }
export interface ToastOptions { icon?: string }

/** Handle returned by `progress()`: update the bar in place during a run. */
export interface ProgressBar {
  progress(value: number, text?: string): void
}

/** Largest literal column count typed as a tuple; above it (or for a `number` variable) an array. */
type MaxTupleLength = 24
type TupleOf<N extends number, Acc extends StContainer[] = []> = Acc['length'] extends N ? Acc : Acc['length'] extends MaxTupleLength ? StContainer[] : TupleOf<N, [...Acc, StContainer]>
/**
 * What `columns(spec)` and `tabs(labels)` return: one container per column or tab. A literal count
 * (`2`) or a list whose length is known (`[2, 1]`, `['Chart', 'Table']`) gives a tuple, so
 * `const [left, right] = st.columns(2)` needs no `!` under `noUncheckedIndexedAccess`.
 */
export type Containers<S extends number | readonly unknown[]> = S extends readonly unknown[]
  ? number extends S['length'] ? StContainer[] : { -readonly [K in keyof S]: StContainer }
  : number extends S ? StContainer[] : TupleOf<S & number>

/** Element and layout methods, on `st` and on every container. */
export interface StContainer extends StChatMethods, StMoreElements, StPlusElements, StTailElements {
  /**
   * A part of the page that reruns on its own: a widget inside it reruns only `fn`, and
   * `runEvery` reruns it on a timer. `fn` gets an `st` that writes into the fragment. Await it
   * when `fn` is async.
   */
  fragment(fn: (st: St) => Promise<void>, options?: FragmentOptions): Promise<void>
  fragment(fn: (st: St) => void, options?: FragmentOptions): void
  title(text: string, options?: HeadingOptions): void
  header(text: string, options?: HeadingOptions): void
  subheader(text: string, options?: HeadingOptions): void
  caption(markdown: string, options?: TextOptions): void
  markdown(markdown: string, options?: TextOptions): void
  text(text: string): void
  code(code: string, options?: { language?: string; lineNumbers?: boolean }): void
  json(value: unknown, options?: { expanded?: boolean }): void
  /** Picks the element by value: strings → markdown, records → dataframe, objects → json, errors → exception. */
  write(...values: unknown[]): void
  divider(): void

  success(markdown: string, options?: AlertOptions): void
  info(markdown: string, options?: AlertOptions): void
  warning(markdown: string, options?: AlertOptions): void
  error(markdown: string, options?: AlertOptions): void
  /** Logs `error` at level error (stack, page, request ID); the visitor sees name, message and stack only when `show_error_details` is on. */
  exception(error: unknown): void

  metric(label: string, value: string | number | null, options?: MetricOptions): void
  table(data: TableData, options?: TableOptions): void
  /**
   * With `selectionMode`, returns the selected rows (indexes into `data`, and the rows themselves).
   * The row type comes from the data (records, or an object of columns).
   */
  dataframe<R extends object = Record<string, unknown>>(data: RowsOf<R>, options: DataframeOptions<RowRecord<R>> & { selectionMode: DataframeSelectionMode | readonly DataframeSelectionMode[] }): DataframeSelection<RowRecord<R>>
  dataframe<R extends object = Record<string, unknown>>(data: RowsOf<R>, options?: DataframeOptions<RowRecord<R>>): void
  /**
   * An editable table: returns the rows with the user's edits (records, in the data's order, added
   * rows last); `.dropped` lists edits whose rows are gone from this run's data. The row type
   * comes from the data (records, or an object of columns): no annotation needed.
   */
  dataEditor<R extends object = Record<string, unknown>>(data: RowsOf<R>, options?: DataEditorOptions<RowRecord<R>>): EditedRows<RowRecord<R>>
  lineChart(data: TableData, options?: ChartOptions): void
  barChart(data: TableData, options?: ChartOptions): void
  areaChart(data: TableData, options?: ChartOptions): void
  scatterChart(data: TableData, options?: ChartOptions): void
  /** Renders any Vega-Lite spec; `options.data` fills `spec.data` from table data. */
  vegaLiteChart(spec: Record<string, unknown>, options?: VegaLiteChartOptions): void
  /** A URL (`https://…`, `data:`) or bytes (served from `/_stcore/media`). */
  image(source: string | Uint8Array | ArrayBuffer, options?: ImageOptions): void
  /** `href` starting with `/` that names a page of this app navigates in-app. */
  link(label: string, href: string, options?: LinkOptions): void
  /** `value` in 0..1, or 0..100 when greater than 1. */
  progress(value: number, text?: string): ProgressBar
  /** Shows `text` with a spinner while `fn` runs, then removes it. */
  spinner<T>(text: string, fn: () => T | Promise<T>): Promise<T>

  /** One container per column: a tuple for a literal count or weight list (`const [a, b] = st.columns(2)`). */
  columns<const S extends number | readonly number[]>(spec: S, options?: ColumnsOptions): Containers<S>
  /** One container per label: a tuple for a literal list (`const [chart, table] = st.tabs(['Chart', 'Table'])`). */
  tabs<const L extends readonly string[]>(labels: L): Containers<L>
  expander(label: string, options?: ExpanderOptions): StContainer
  container(options?: ContainerOptions): StContainer
  form(key: string, options?: FormOptions): StContainer
  /** A single-element placeholder: each call on it replaces its content; `.empty()` clears it. */
  empty(): StContainer

  button(label: string, options?: ButtonOptions): boolean
  /** Only inside `st.form(...)`: submits the form's values in one rerun. */
  formSubmitButton(label: string, options?: ButtonOptions): boolean
  checkbox(label: string, options?: CheckboxOptions): boolean
  toggle(label: string, options?: CheckboxOptions): boolean
  radio<T>(label: string, options: readonly T[], opts: RadioOptions<T> & { index: null }): T | null
  radio<T>(label: string, options: readonly T[], opts?: RadioOptions<T> & { index?: number }): T
  selectbox<T>(label: string, options: readonly T[], opts: SelectboxOptions<T> & { index: null }): T | null
  selectbox<T>(label: string, options: readonly T[], opts?: SelectboxOptions<T> & { index?: number }): T
  multiselect<T>(label: string, options: readonly T[], opts?: MultiselectOptions<T>): T[]
  slider(label: string, opts: SliderOptions<[number, number]> & { value: [number, number] }): [number, number]
  slider(label: string, opts?: SliderOptions<number>): number
  textInput(label: string, options?: TextInputOptions): string
  textArea(label: string, options?: TextAreaOptions): string
  numberInput(label: string, opts: NumberInputOptions<number | null> & { value: null }): number | null
  numberInput(label: string, opts?: NumberInputOptions<number>): number
  dateInput(label: string, opts: DateInputOptions<DateValue | null> & { value: null }): Date | null
  /** A range: the user picks a first and a last day; returns `[from, to]` with `from <= to`. */
  dateInput(label: string, opts: DateInputOptions<readonly [DateValue, DateValue], [Date, Date]> & { value: readonly [DateValue, DateValue] }): [Date, Date]
  dateInput(label: string, opts?: DateInputOptions<DateValue>): Date
  fileUploader(label: string, opts: FileUploaderOptions & { multiple: true }): UploadedFile[]
  fileUploader(label: string, opts?: FileUploaderOptions & { multiple?: false }): UploadedFile | null
  /** `data` may be a function: it runs when the visitor clicks, and its result is what they get. */
  downloadButton(label: string, data: DownloadSource, options?: DownloadButtonOptions): boolean
  /**
   * A custom component (`declareComponent`) in a sandboxed iframe: `args` go to it, and the value
   * it sets comes back like a widget value (rerun on change, checked by its schema); `default`
   * (null unless given) until it sets one.
   */
  component<A, V, D = null>(component: Component<A, V>, args: A, options?: ComponentOptions<V, D>): V | D
}

export interface ComponentOptions<V, D = null> {
  /** Identity and the `st.sessionState` key; keeps the value when `args` change. */
  key?: string
  /** The value until the component sets one (default null). */
  default?: D
  /** Pixels until the component reports its own height (svc/component sizes it to its content). */
  height?: number
  /** Passed to the component (`disabled` of its render event). */
  disabled?: boolean
  /** Runs with the new value before the rerun it causes. */
  onChange?: Callback<V | D>
}

/** Query parameters of the page URL. Changes update the URL without a rerun. */
export interface QueryParams {
  /** The last value of `name` (repeated keys: last wins), or undefined. */
  get(name: string): string | undefined
  getAll(name: string): string[]
  has(name: string): boolean
  set(name: string, value: string | number | boolean | readonly (string | number | boolean)[]): void
  delete(name: string): void
  clear(): void
  /** Replace several keys at once. */
  update(values: Record<string, string | number | boolean | readonly (string | number | boolean)[]>): void
  /** Each key with its last value. */
  toObject(): Record<string, string>
  toString(): string
}

export interface StContext {
  /** WebSocket handshake headers (lower-case names). */
  readonly headers: Readonly<Record<string, string>>
  readonly cookies: Readonly<Record<string, string>>
  /** `X-Request-ID` of the handshake (set by the gateway). */
  readonly requestId: string | undefined
  /**
   * The visitor's IP address: the peer the gateway saw, or with `trust_proxy` the address the
   * proxy in front of svc reported (the last `X-Forwarded-For` entry it added); null when unknown.
   */
  readonly ipAddress: string | null
  /** The browser's language (`navigator.language`, BCP 47, e.g. `en-GB`); null when it did not say. */
  readonly locale: string | null
  /** The browser's time zone (IANA, e.g. `Europe/Berlin`); null when it did not say or named no zone. */
  readonly timezone: string | null
  /** Minutes between UTC and the browser's local time, as `Date#getTimezoneOffset()` (UTC − local). */
  readonly timezoneOffset: number | null
  /** The page's URL as the browser shows it (same host as the page socket, else null). */
  readonly url: string | null
  /** The light or dark theme the page showed when it connected. */
  readonly theme: 'light' | 'dark' | null
  /** The page runs inside a frame of another page. */
  readonly isEmbedded: boolean
}

/**
 * `st.cookies`: read the browser's cookies, write and delete them. A write reaches the browser
 * through the page server (`HttpOnly` and `Secure` work); reads in this session see it at once.
 */
export interface StCookies {
  /** The cookie's value as the browser sent it (or as this session wrote it). */
  get(name: string): string | undefined
  /** `signed`: only a value this app signed; `schema`: the value checked (JSON, or the plain string). Anything else reads as absent. */
  get<S extends ZodSchema | undefined = undefined>(name: string, options: CookieReadOptions<S>): (S extends ZodSchema ? Output<S> : string) | undefined
  /** Strings are written as they are, anything else as JSON (at most 4096 bytes with the attributes). */
  set(name: string, value: unknown, options?: CookieOptions): void
  delete(name: string, options?: Pick<CookieOptions, 'path' | 'secure' | 'sameSite'>): void
  toObject(): Record<string, string>
}

/** `st.localStorage` (every tab of the browser) and `st.tabStorage` (this tab): svc's entries of the browser's storage. */
export interface StBrowserStorage {
  /** The value (JSON-parsed); with a schema, checked: a value it refuses reads as absent. */
  get(key: string): unknown
  get<S extends ZodSchema>(key: string, schema: S): Output<S> | undefined
  has(key: string): boolean
  keys(): string[]
  /** JSON-serialisable values; at most 16 KiB of keys and values per area. */
  set(key: string, value: unknown): void
  delete(key: string): void
}

/** `st.userStorage`: values kept per signed-in user across sessions (Redis with `redis_url`, else files). */
export interface StUserStorage {
  get(key: string): Promise<unknown>
  get<S extends ZodSchema>(key: string, schema: S): Promise<Output<S> | undefined>
  /** At most `ui_user_storage_max_value_bytes` as JSON, `ui_user_storage_max_keys` keys per user. */
  set(key: string, value: unknown): Promise<void>
  delete(key: string): Promise<void>
  keys(): Promise<string[]>
}

/** `st.context` as a page socket knows it; what it does not say reads as null (and `isEmbedded` false). */
export type SocketContext = Pick<StContext, 'headers' | 'cookies' | 'requestId'> & Partial<Omit<StContext, 'headers' | 'cookies' | 'requestId'>>

// Widget values and user keys share one bag whose shape the page decides; `any` keeps
// `st.sessionState.count += 1` as short as in Streamlit.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SessionState = Record<string, any>

export interface St extends StContainer {
  readonly sidebar: StContainer
  /** Per-browser-session state; survives reruns and WebSocket reconnects (within the TTL). */
  readonly sessionState: SessionState
  readonly queryParams: QueryParams
  readonly context: StContext
  /** The app's secrets (`app.secrets`); type them with `interface Register { secrets: ... }` (docs/configuration.md#secrets). */
  readonly secrets: RegisteredSecrets
  toast(body: string, options?: ToastOptions): void
  /** The app's logo above the page navigation (or at the top left when there is no sidebar). The last call of a run wins. */
  logo(image: MediaSource, options?: LogoOptions): void
  /** Balloons float up the page once (not when the visitor's system asks for reduced motion). */
  balloons(): void
  /** Snow falls over the page once (not when the visitor's system asks for reduced motion). */
  snow(): void
  /** End this run now and start a new one. */
  rerun(): never
  /** End this run now; what was rendered stays. */
  stop(): never
  /** Show another page of the app (`path` as given to `app.page`). A page `app.navigation` hides from this session shows "not available". */
  switchPage(path: string): never
  /** Who is signed in to this browser (the OIDC login's identity cookie); `isLoggedIn` narrows it. */
  readonly user: StUser
  /**
   * Send the browser to the login of `provider` (default: the first `app.attachOidcLogin`); it
   * comes back to this page signed in. Ends the run.
   */
  login(provider?: string): never
  /** Sign this browser out (the identity cookie and the session's API token) and come back to this page. Ends the run. */
  logout(): never
  /**
   * Put the widget with this key back to its default, as `delete st.sessionState[key]` does:
   * drawn later in this run it starts at its default; drawn already, this run's render shows the
   * default (elements computed from the old value update on the next run: call `st.rerun()`).
   * Throws when no widget with that key was drawn in this run or the last one.
   */
  resetWidget(key: string): void
  /**
   * The task of `key` in this session: work that runs outside the page run (on the page server's
   * task threads) and outlives it, a tab reload and a reconnect. With `options.input` it starts
   * once per key (when the key has no task yet); else `handle.start(input)` starts it. The page
   * reruns when the task's status changes; a fragment that called `task` reruns on its progress
   * and partial results too (docs/pages.md#tasks).
   */
  task<I, R, P>(key: string, task: TaskDefinition<I, R, P>, options?: TaskOptions<I>): TaskHandle<I, R, P>
  /** The browser's cookies, and writes to them (docs/pages.md#storage). */
  readonly cookies: StCookies
  /** svc's entries of the browser's localStorage: every tab of this browser, until cleared. */
  readonly localStorage: StBrowserStorage
  /** svc's entries of the browser's sessionStorage: this tab, across reloads. */
  readonly tabStorage: StBrowserStorage
  /** Values kept for the signed-in user (`st.user`) across sessions; throws when signed out. */
  readonly userStorage: StUserStorage
}

// ---- data: selection and editor ----------------------------------------------------------------

/** A column name of rows `R`, or a function returning the key of a row (a record of the data). */
export type RowKey<R = Record<string, unknown>> = ColumnOf<R> | ((row: R, index: number) => string | number)

/** Streamlit's selection modes; a dataframe takes one or a list (at most one per kind). */
export type DataframeSelectionMode = 'single-row' | 'multi-row' | 'single-column' | 'multi-column' | 'single-cell' | 'multi-cell'

/** What `st.dataframe(data, { selectionMode })` returns; `R`: the row type. */
export interface DataframeSelection<R = Record<string, unknown>> {
  selection: {
    /** Indexes into `data` of the selected rows, ascending (independent of the table's sort and page). */
    rows: number[]
    /** The same rows' ids: their `rowKey` as a string, or without one their index. */
    ids: RowId[]
    /** Names of the selected columns, in the table's column order. */
    columns: string[]
    /** Selected cells as `[row index into data, column name]`, by row then column. */
    cells: [number, string][]
  }
  /** The selected rows as records (column name → value), in the same order. */
  rows: R[]
  /**
   * Rows that were selected but are gone from this run's data, never moved to another row: their
   * keys, or without a `rowKey` their indexes in the earlier data (whose rows changed).
   */
  dropped: RowId[]
}

/** The edits a `dataEditor` could not keep because their rows are gone from the data. */
export interface DroppedEdits {
  /** Row id → the cells that had been edited. */
  editedRows: Record<string, Record<string, Cell>>
  /** Ids of rows that had been deleted. */
  deletedRows: RowId[]
  /** Rows that had been added: without a `rowKey` all of them when the data's rows changed; with one, those whose key the data now holds. */
  addedRows: Record<string, Cell>[]
}

/** What `st.dataEditor` returns: the rows with the edits applied, plus what was dropped this run. */
export type EditedRows<R> = R[] & { readonly dropped: DroppedEdits }

export interface DataEditorOptions<R = Record<string, unknown>> extends Omit<DataframeOptions<R>, 'selectionMode' | 'onSelect'> {
  /** `dynamic`: rows can be added and deleted. Default `fixed`. */
  numRows?: 'fixed' | 'dynamic'
  /** `true`: nothing editable, added or deleted; a list: those columns are read-only. */
  disabled?: boolean | readonly ColumnOf<R>[]
  /** Runs before the rerun an edit causes, with the whole editing state. */
  onChange?: Callback<EditingState>
}

// ---- chat, streaming, overlays, status ----

export interface ChatMessageOptions {
  /** An emoji or short text, an image URL (`https:`, `data:image/`, `/path`) or image bytes. Default: the role's icon. */
  avatar?: string | Uint8Array | ArrayBuffer
}
export interface ChatInputOptions<V = string> {
  key?: string
  disabled?: boolean
  /** Longer submissions are cut to this many characters. */
  maxChars?: number
  /** Runs with the submitted text (or `ChatInputValue`) before the rerun the submit causes. */
  onSubmit?: Callback<V>
  /** Let the visitor attach files: one (`true`), several (`'multiple'`) or a folder's (`'directory'`). */
  acceptFile?: boolean | 'multiple' | 'directory'
  /** Extensions (`.csv`) or MIME types (`image/*`) the attached files may have (default any). */
  fileType?: string | readonly string[]
  /** Per attached file (default 10 MiB), like `fileUploader`'s. */
  maxBytes?: number
  /** Let the visitor record a voice message (a WAV file). */
  acceptAudio?: boolean
  /** Hz of the recording (default 16000; null: the browser's own rate). */
  audioSampleRate?: number | null
}

/** What a chat input with `acceptFile` or `acceptAudio` returns for a submit. */
export interface ChatInputValue {
  readonly text: string
  readonly files: readonly UploadedFile[]
  readonly audio: UploadedFile | null
}

/**
 * What `writeStream` renders: an async iterable of strings (or bytes), a web `ReadableStream`
 * of strings or bytes, or a response (`fetch`'s `Response` or the API client's) whose body is
 * read as it arrives (`text/event-stream` bodies: the `data:` of each event).
 */
export type StreamSource =
  | AsyncIterable<string | Uint8Array>
  | Iterable<string>
  | ReadableStream<string | Uint8Array>
  | { readonly body: ReadableStream<Uint8Array> | null; readonly headers?: { get(name: string): string | null } }

export interface WriteStreamOptions {
  /** `sse` parses Server-Sent Events; `text` takes the bytes as they are; `auto` (default) decides by content type, else by the first bytes. */
  format?: 'auto' | 'text' | 'sse'
}

export interface DialogOptions {
  /** Identity of the dialog (default: its title); needed when two dialogs share a title. */
  key?: string
  width?: 'small' | 'medium' | 'large'
  /** Closable by ✕, Escape and a click on the backdrop (default true). */
  dismissible?: boolean
  /** Runs when the user dismisses the dialog, before the rerun. */
  onDismiss?: () => void | Promise<void>
}

/** Handle of one `st.dialog`. */
export interface Dialog {
  readonly isOpen: boolean
  /** Open the dialog now: its body runs at this point of the run and on every rerun until closed. */
  open(): Promise<void>
  /** Close the dialog and rerun the page without it (like `st.rerun()`, this ends the run). */
  close(): never
}

export interface PopoverOptions {
  icon?: string
  help?: string
  disabled?: boolean
  useContainerWidth?: boolean
}

export type StatusState = 'running' | 'complete' | 'error'
export interface StatusOptions {
  /** Default false. */
  expanded?: boolean
  /** Default `running`. */
  state?: StatusState
}
/** The container of `st.status`: write into it like any container; `update` changes the header. */
export interface StatusContainer extends StContainer {
  update(change: { label?: string; state?: StatusState; expanded?: boolean }): void
}

/** The `st` methods of this block, on `st` and on every container. */
export interface StChatMethods {
  chatMessage(role: string, options?: ChatMessageOptions): StContainer
  /** With `acceptFile` or `acceptAudio`: the text, files and recording the user submitted, in the one run that submit causes. */
  chatInput(placeholder: string | undefined, options: ChatInputOptions<ChatInputValue> & ({ acceptFile: true | 'multiple' | 'directory' } | { acceptAudio: true })): ChatInputValue | null
  /** The text the user submitted, in the one run that submit causes; null otherwise. */
  chatInput(placeholder?: string, options?: ChatInputOptions): string | null
  /** Renders the chunks as they arrive (Markdown) and resolves to the full text. */
  writeStream(source: StreamSource, options?: WriteStreamOptions): Promise<string>
  /** Declares a modal; its body `fn` runs while the dialog is open. See docs/pages.md "Dialogs, popovers, status". */
  dialog(title: string, fn: (dialog: StContainer, handle: Dialog) => void | Promise<void>, options?: DialogOptions): Promise<Dialog>
  popover(label: string, options?: PopoverOptions): StContainer
  status(label: string, options?: StatusOptions): StatusContainer
  /** Runs `fn` inside the status; it turns `complete` when `fn` resolves and `error` (expanded) when it throws. */
  status<T>(label: string, fn: (status: StatusContainer) => T | Promise<T>, options?: StatusOptions): Promise<T>
}

// ---- charts (Vega-Lite) ----
export interface VegaLiteChartOptions {
  /** Table data for the spec, accepted as by `dataframe`; replaces `spec.data`. */
  data?: TableData
  /** Column names for array-of-arrays data, or the subset/order of columns to keep. */
  columns?: string[]
  /** Plot height in pixels; overrides `spec.height`. */
  height?: number
  /** Plot width in pixels; only used with `useContainerWidth: false`. */
  width?: number
  /** Stretch single-view and layered specs to the container width (default true). */
  useContainerWidth?: boolean
  /** `'svc'` (default): colours and fonts of the page theme, following light/dark; `null`: Vega-Lite's defaults. */
  theme?: 'svc' | null
}

// ---- theme & more elements: media, time, colour, choice chips, feedback ----------------------

/** Bytes, or a URL: `https://…`, an app path `/…`, or a `data:` URI of the same kind. */
export type MediaSource = string | Uint8Array | ArrayBuffer
export interface AudioOptions {
  /** MIME type of bytes (default `audio/wav`; `video/mp4` for video). */
  format?: string
  /** Seconds. */
  startTime?: number
  endTime?: number
  loop?: boolean
  autoplay?: boolean
}
export interface VideoOptions extends AudioOptions { muted?: boolean; width?: number }
export interface PdfOptions { /** Pixels (default 500). */ height?: number }
export interface TimeInputOptions<V> extends WidgetOptions {
  /** "HH:MM" (or "HH:MM:SS"), a Date (its local time), "now" (default), or null for no time. */
  value?: V
  /** Seconds between choices (default 900 = 15 minutes; 60..82800). */
  step?: number
  onChange?: Callback<string | null>
}
export interface ColorPickerOptions extends WidgetOptions {
  /** "#rrggbb" or "#rgb" (default "#000000"). */
  value?: string
  onChange?: Callback<string>
}
export interface SelectSliderOptions<T, V> extends WidgetOptions {
  /** One option, or a pair of options for a range (default: the first option). */
  value?: V
  formatFunc?: (option: T) => string
  onChange?: Callback<V>
}
export interface PillsOptions<T, V> extends WidgetOptions {
  selectionMode?: 'single' | 'multi'
  /** The initial selection: one option (single) or a list (multi); default none. */
  default?: T | readonly T[] | null
  formatFunc?: (option: T) => string
  onChange?: Callback<V>
}
export interface FeedbackOptions extends Omit<WidgetOptions, 'help' | 'labelVisibility'> {
  /** Initially selected index, or null (default). */
  default?: number | null
  onChange?: Callback<number | null>
}

/** The elements added for issue #14.6; `Container` implements them beside `StContainer`. */
export interface StMoreElements {
  audio(data: MediaSource, options?: AudioOptions): void
  video(data: MediaSource, options?: VideoOptions): void
  pdf(data: MediaSource, options?: PdfOptions): void
  timeInput(label: string, options: TimeInputOptions<string | Date | null> & { value: null }): string | null
  timeInput(label: string, options?: TimeInputOptions<string | Date>): string
  colorPicker(label: string, options?: ColorPickerOptions): string
  selectSlider<T>(label: string, options: readonly T[], opts: SelectSliderOptions<T, readonly [T, T]> & { value: readonly [T, T] }): [T, T]
  selectSlider<T>(label: string, options: readonly T[], opts?: SelectSliderOptions<T, T>): T
  pills<T>(label: string, options: readonly T[], opts: PillsOptions<T, T[]> & { selectionMode: 'multi' }): T[]
  pills<T>(label: string, options: readonly T[], opts?: PillsOptions<T, T | null> & { selectionMode?: 'single' }): T | null
  segmentedControl<T>(label: string, options: readonly T[], opts: PillsOptions<T, T[]> & { selectionMode: 'multi' }): T[]
  segmentedControl<T>(label: string, options: readonly T[], opts?: PillsOptions<T, T | null> & { selectionMode?: 'single' }): T | null
  /** Thumbs (0 down, 1 up), five faces or five stars (0..4); null until the visitor picks one. */
  feedback(options?: 'thumbs' | 'faces' | 'stars', opts?: FeedbackOptions): number | null
}

// ---- fragments ----

export interface FragmentOptions {
  /** Rerun the fragment alone this often: seconds, or a duration like `'5s'`, `'1m'`. */
  runEvery?: number | string | null
}

// ---- maps, Plotly, HTML, iframes, logo (issue #25) ----

export interface MapOptions {
  /** Latitude column (default: the column named `lat` or `latitude`, any case). */
  latitude?: string
  /** Longitude column (default: `lon`, `lng`, `long` or `longitude`, any case). */
  longitude?: string
  /** A column of radii in metres, or one radius for every point (default 100). */
  size?: string | number
  /** A column of colours, or one colour: `"#rrggbb"`, `"rgb(…)"`, a CSS name, or `[r, g, b, alpha?]`. Default: the theme's first chart colour. */
  color?: string | readonly number[]
  /** Initial zoom, 0 (the world) to 22; default: fit every point. */
  zoom?: number
  /** Pixels (default 400). */
  height?: number
  /** Pixels; only with `useContainerWidth: false`. */
  width?: number
  /** Default true. */
  useContainerWidth?: boolean
  /** Column names for array-of-arrays data. */
  columns?: string[]
}

/** A Plotly figure as plain data (`fig.to_dict()` in Python terms), or just its traces. */
export type PlotlyFigure = { data: readonly object[]; layout?: object; frames?: readonly object[] } | readonly object[]

/** A selected point: its trace and index, and the trace's values at that index (the fields the trace has). */
export interface PlotlyPoint {
  curveNumber: number
  pointIndex: number
  /** Same as `pointIndex` (Plotly's own name). */
  pointNumber: number
  x?: unknown
  y?: unknown
  z?: unknown
  lat?: unknown
  lon?: unknown
  customdata?: unknown
  text?: unknown
  label?: unknown
  value?: unknown
  location?: unknown
  r?: unknown
  theta?: unknown
}

/** What `st.plotlyChart(figure, { onSelect })` returns, like Streamlit's selection state. */
export interface PlotlySelection {
  selection: {
    /** Clicked points, or the points inside the box or lasso, in trace order. */
    points: PlotlyPoint[]
    /** `pointIndex` of each point, in the same order. */
    pointIndices: number[]
    /** Boxes drawn: two x and two y values each, in axis units (`xref`/`yref` name the axes). */
    box: PlotlyRegion[]
    /** Lassos drawn: one x and y value per vertex. */
    lasso: PlotlyRegion[]
  }
}

export interface PlotlyChartOptions {
  /** Gives the chart a stable identity; with `onSelect`, the selection is kept in `st.sessionState[key]`. */
  key?: string
  /** Plotly's `config` (`displayModeBar`, `scrollZoom`, ...), over svc's `{ displaylogo: false, responsive: true }`. */
  config?: Record<string, unknown>
  /** `'svc'` (default): fonts, colours and grid of the page theme, following light/dark; `null`: Plotly's own look. A `layout.template` in the figure wins. */
  theme?: 'svc' | null
  /** `'ignore'` (default): no selection. `'rerun'` or a callback: the call returns the selection, and a new one reruns the page (the callback first). */
  onSelect?: 'ignore' | 'rerun' | Callback<PlotlySelection>
  /** What the visitor can select with: `'points'` (click), `'box'`, `'lasso'`, or a list (default all three). */
  selectionMode?: 'points' | 'box' | 'lasso' | readonly ('points' | 'box' | 'lasso')[]
  /** Pixels; default the figure's `layout.height`, else 450. */
  height?: number
  /** Default true. */
  useContainerWidth?: boolean
}

export interface IframeOptions {
  /** Pixels (default 150). */
  height?: number
  /** Pixels; default the width of the column. */
  width?: number
  /** The frame's accessible name (default: its URL). */
  title?: string
  /** Show scroll bars when the content is larger (default false). */
  scrolling?: boolean
}

export interface LogoOptions {
  /** Where a click on the logo goes: an http(s) URL or a path of this app. */
  link?: string
  /** A smaller image for narrow screens, where the sidebar is a drawer (default: `image`). */
  iconImage?: MediaSource
  /** Height: small 20 px, medium 24 px (default), large 32 px. */
  size?: 'small' | 'medium' | 'large'
  /** Text for screen readers (default: the app title). */
  alt?: string
}

/** The elements of issue #25 on `st` and on every container; `Container` implements them. */
export interface StPlusElements {
  /** Points on a basemap; see docs/pages.md "Maps". */
  map(data: TableData, options?: MapOptions): void
  /** A Plotly figure; with `onSelect` it returns the visitor's selection. */
  plotlyChart(figure: PlotlyFigure, options: PlotlyChartOptions & { onSelect: 'rerun' | Callback<PlotlySelection> }): PlotlySelection
  plotlyChart(figure: PlotlyFigure, options?: PlotlyChartOptions): void
  /** Markup shown in the page, sanitized in the browser (DOMPurify): no script runs. */
  html(markup: string): void
  /** A sandboxed frame of an http(s) URL, a path of this app, or `{ srcdoc }` markup. */
  iframe(source: string | { srcdoc: string }, options?: IframeOptions): void
}

// ---- the element tail (issue #36) ----

export interface BadgeOptions {
  /** An emoji or `:material/name:`. */
  icon?: string
  /** Default `blue`; `grey` is `gray`. */
  color?: BadgeColor | 'grey'
  help?: string
}
export interface LatexOptions { help?: string }
export interface GraphvizChartOptions {
  /** Stretch the graph to the width of its container (default false: its own size, shrunk to fit). */
  useContainerWidth?: boolean
  /** Pixels. */
  width?: number
  height?: number
}
/** A wall-clock date and time: a `Date` (its UTC fields) or `"YYYY-MM-DDTHH:MM[:SS]"`. */
export type DatetimeValue = Date | string
export interface DatetimeInputOptions<V> extends WidgetOptions {
  /** `'now'` (default), a date and time, or null for none. */
  value?: V
  min?: DatetimeValue
  max?: DatetimeValue
  /** Seconds between the times offered (default 900; 60 to 82800). */
  step?: number
  onChange?: Callback<Date | null>
}
export interface AudioInputOptions extends WidgetOptions {
  /** Hz of the WAV recording (default 16000; null: the browser's own rate). */
  sampleRate?: number | null
  /** Largest recording taken (default 10 MiB), as `fileUploader`'s `maxBytes`. */
  maxBytes?: number
  onChange?: Callback<UploadedFile | null>
}
export interface CameraInputOptions extends WidgetOptions {
  /** Largest photo taken (default 10 MiB), as `fileUploader`'s `maxBytes`. */
  maxBytes?: number
  onChange?: Callback<UploadedFile | null>
}
export interface EchoOptions {
  /** Show the code `above` (default) or `below` what it draws. */
  codeLocation?: 'above' | 'below'
}

/** The elements of issue #36 on `st` and on every container; `Container` implements them. */
export interface StTailElements {
  /** A small coloured label. */
  badge(label: string, options?: BadgeOptions): void
  /** TeX typeset in display mode (KaTeX), without `$$`. */
  latex(body: string, options?: LatexOptions): void
  /** A graph in the DOT language, laid out by Graphviz in the browser. */
  graphvizChart(dot: string | { source: string }, options?: GraphvizChartOptions): void
  /** A date and a time in one widget; see docs/pages.md "Date and time". */
  datetimeInput(label: string, options: DatetimeInputOptions<DatetimeValue | null> & { value: null }): Date | null
  datetimeInput(label: string, options?: DatetimeInputOptions<DatetimeValue>): Date
  /** A voice recording from the visitor's microphone (WAV), or null until they record one. */
  audioInput(label: string, options?: AudioInputOptions): UploadedFile | null
  /** A photo from the visitor's camera (JPEG), or null until they take one. */
  cameraInput(label: string, options?: CameraInputOptions): UploadedFile | null
  /** Shows the source of `fn` as code, then runs it (its elements go where it writes them); returns what `fn` returns. */
  echo<T>(fn: () => T, options?: EchoOptions): T
  /** What `value` is: its type, signature, value and members. */
  help(value: unknown): void
}
