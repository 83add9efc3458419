import type { Gap, LabelVisibility } from './elements.js'

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
export interface DateInputOptions<V> extends WidgetOptions {
  value?: V
  min?: Date | string
  max?: Date | string
  onChange?: Callback<Date | null>
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
  onClick?: () => void | Promise<void>
}

export interface TextOptions { unsafeAllowHtml?: boolean }
export interface AlertOptions extends TextOptions { icon?: string }
export interface HeadingOptions { anchor?: string; help?: string; divider?: boolean }
export interface MetricOptions {
  delta?: number | string | null
  deltaColor?: 'normal' | 'inverse' | 'off'
  help?: string
  border?: boolean
}

/**
 * Tabular data: an array of records (`[{ a: 1, b: 'x' }]`), an object of columns
 * (`{ a: [1, 2], b: ['x', 'y'] }`), or an array of arrays (column names from `columns`, else `0`, `1`, ...).
 */
export type TableData = readonly object[] | Readonly<Record<string, readonly unknown[]>> | readonly (readonly unknown[])[]

export interface TableOptions { columns?: string[] }
export interface DataframeOptions extends TableOptions {
  /** Rows per page (default 25). */
  pageSize?: number
  height?: number
  hideIndex?: boolean
  /** Gives the table a stable identity so its page/sort survive layout changes. */
  key?: string
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
  height?: number
  stacked?: boolean
}
export interface ImageOptions { caption?: string; width?: number; alt?: string; mime?: string }
export interface LinkOptions { newTab?: boolean; icon?: string }
export interface ColumnsOptions { gap?: Gap; verticalAlign?: 'top' | 'center' | 'bottom'; border?: boolean }
export interface ExpanderOptions { expanded?: boolean; icon?: string }
export interface ContainerOptions { border?: boolean; height?: number }
export interface FormOptions { clearOnSubmit?: boolean; border?: boolean }
export interface ToastOptions { icon?: string }

/** Handle returned by `progress()`: update the bar in place during a run. */
export interface ProgressBar {
  progress(value: number, text?: string): void
}

/** Element and layout methods, on `st` and on every container. */
export interface StContainer {
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
  exception(error: unknown): void

  metric(label: string, value: string | number | null, options?: MetricOptions): void
  table(data: TableData, options?: TableOptions): void
  dataframe(data: TableData, options?: DataframeOptions): void
  lineChart(data: TableData, options?: ChartOptions): void
  barChart(data: TableData, options?: ChartOptions): void
  areaChart(data: TableData, options?: ChartOptions): void
  scatterChart(data: TableData, options?: ChartOptions): void
  /** A URL (`https://…`, `data:`) or bytes (served from `/_stcore/media`). */
  image(source: string | Uint8Array | ArrayBuffer, options?: ImageOptions): void
  /** `href` starting with `/` that names a page of this app navigates in-app. */
  link(label: string, href: string, options?: LinkOptions): void
  /** `value` in 0..1, or 0..100 when greater than 1. */
  progress(value: number, text?: string): ProgressBar
  /** Shows `text` with a spinner while `fn` runs, then removes it. */
  spinner<T>(text: string, fn: () => T | Promise<T>): Promise<T>

  columns(spec: number | number[], options?: ColumnsOptions): StContainer[]
  tabs(labels: string[]): StContainer[]
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
  dateInput(label: string, opts: DateInputOptions<Date | string | null> & { value: null }): Date | null
  dateInput(label: string, opts?: DateInputOptions<Date | string>): Date
  fileUploader(label: string, opts: FileUploaderOptions & { multiple: true }): UploadedFile[]
  fileUploader(label: string, opts?: FileUploaderOptions & { multiple?: false }): UploadedFile | null
  downloadButton(label: string, data: string | Uint8Array | ArrayBuffer, options?: DownloadButtonOptions): boolean
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
}

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
  toast(body: string, options?: ToastOptions): void
  /** End this run now and start a new one. */
  rerun(): never
  /** End this run now; what was rendered stays. */
  stop(): never
  /** Show another page of the app (`path` as given to `app.page`). */
  switchPage(path: string): never
}

// ---- fragments ----

export interface FragmentOptions {
  /** Rerun the fragment alone this often: seconds, or a duration like `'5s'`, `'1m'`. */
  runEvery?: number | string | null
}
