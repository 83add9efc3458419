/**
 * The catalogue of every element a page run can emit: the contract between the page runtime
 * (`src/ui/server`, `src/ui/st`) and the browser client (`src/ui/client`). Each entry maps an
 * element `type` (named like its `st` method) to its `props`. Stable: entries are only added.
 *
 * Conventions the client relies on:
 * - Every node has an `id`. Widgets: the widget id (derived from type + key, or type + label +
 *   options when there is no key); the client sends it back in `widget` messages. Other nodes:
 *   their position path (`m.3`, `s.0.1`), stable while the page shape is stable.
 * - Text that may contain Markdown arrives already rendered as sanitized HTML in a field named
 *   `html` (raw HTML in the source is escaped unless the page asked for `unsafeAllowHtml`).
 *   Fields named `text`, `label`, `caption` are plain text: render them as text nodes.
 * - Widgets carry `value` (the server's current value), `disabled`, `help`, `formId` (null when
 *   outside a form; inside a form the client keeps edits locally until a `formSubmitButton`
 *   is clicked and then sends one `form_submit` whose `values` also holds that button's id → true),
 *   and `labelVisibility`.
 * - Value the client sends per widget type is documented on each props interface (`sends`).
 */

export type LabelVisibility = 'visible' | 'hidden' | 'collapsed'

/** Props every widget has. */
export interface WidgetBase {
  label: string
  /** The user's key, or null. Informational; the client addresses widgets by node `id`. */
  key: string | null
  help: string | null
  disabled: boolean
  formId: string | null
  labelVisibility: LabelVisibility
}

// ---- text ------------------------------------------------------------------------------------

export interface TitleProps { text: string; anchor: string | null; help: string | null }
export interface HeaderProps { text: string; anchor: string | null; divider: boolean; help: string | null }
export type SubheaderProps = HeaderProps
/** Small grey text; Markdown. */
export interface CaptionProps { html: string }
export interface MarkdownProps { html: string }
/** Preformatted plain text (monospace, whitespace kept). */
export interface TextProps { text: string }
export interface CodeProps { code: string; language: string | null; lineNumbers: boolean }
/** `value` is JSON-safe (Dates as ISO strings, bigint as strings, cycles as "[Circular]"). */
export interface JsonProps { value: unknown; expanded: boolean }
export type DividerProps = Record<string, never>

// ---- status ----------------------------------------------------------------------------------

export interface AlertProps { html: string; icon: string | null }
export interface ExceptionProps { name: string; message: string; stack: string | null }

// ---- data ------------------------------------------------------------------------------------

export type ColumnKind = 'number' | 'string' | 'boolean' | 'date' | 'json'
export interface ColumnSpec { name: string; kind: ColumnKind }
/** A cell: JSON scalars; dates as ISO strings; objects/arrays as JSON (kind `json`). */
export type Cell = string | number | boolean | null | unknown[] | Record<string, unknown>

export interface MetricProps {
  label: string
  value: string
  delta: string | null
  /** `normal`: up is green; `inverse`: up is red; `off`: grey. */
  deltaColor: 'normal' | 'inverse' | 'off'
  /** Sign of the delta, decided by the server (null when there is no delta). */
  deltaDirection: 'up' | 'down' | 'flat' | null
  help: string | null
  border: boolean
}

/** Static table: every row, no sorting. */
export interface TableProps { columns: ColumnSpec[]; rows: Cell[][] }

export interface SortSpec { column: string; direction: 'asc' | 'desc' }

/**
 * Interactive table, paged by the server: `rows` is the current page (already sorted). To change
 * page or sort the client sends `dataframe_page` (no rerun) and gets `dataframe_rows` back.
 */
export interface DataframeProps {
  columns: ColumnSpec[]
  rows: Cell[][]
  totalRows: number
  page: number
  pageSize: number
  sort: SortSpec | null
  /** Pixel height, or null to fit the rows. */
  height: number | null
  hideIndex: boolean
}

export interface ChartSeries { name: string; color: string | null; y: (number | null)[] }
/** Shared by `lineChart`, `barChart`, `areaChart`, `scatterChart`. Series share `x`. */
export interface ChartProps {
  /** `number` x values are numeric, `time` are ISO strings, `category` are labels. */
  xKind: 'number' | 'time' | 'category'
  x: (number | string)[]
  series: ChartSeries[]
  xLabel: string | null
  yLabel: string | null
  height: number
  /** Bars and areas: stack series instead of overlaying/grouping them. */
  stacked: boolean
}

// ---- media, links, progress ------------------------------------------------------------------

/** `url` is absolute (`https:`), a data URI, or a base-path-relative media URL (`{base}/_stcore/media/...`). */
export interface ImageProps { url: string; caption: string | null; width: number | null; alt: string }
/**
 * `page` is set for links to a page of this app (navigate in-app with `navigate`). Otherwise an
 * `href` starting with `/` (not `//`) is app-relative: prefix the base path; anything else is external.
 */
export interface LinkProps { label: string; href: string; page: string | null; newTab: boolean; icon: string | null }
/** `value` in 0..1. */
export interface ProgressProps { value: number; text: string | null }
export interface SpinnerProps { text: string }

// ---- layout ----------------------------------------------------------------------------------

export type Gap = 'small' | 'medium' | 'large'
/** Children: `column` nodes only. */
export interface ColumnsProps { gap: Gap; verticalAlign: 'top' | 'center' | 'bottom'; border: boolean }
export interface ColumnProps { weight: number }
/** Children: `tab` nodes only, one per label, same order. Tab switching is client-side. */
export interface TabsProps { labels: string[] }
export interface TabProps { label: string }
/** Open/closed is client-side after first render; `expanded` is the initial state. */
export interface ExpanderProps { label: string; expanded: boolean; icon: string | null }
export interface ContainerProps { border: boolean; height: number | null }
/** Children are the form's elements; widgets inside carry `formId` = this `formId`. */
export interface FormProps { formId: string; clearOnSubmit: boolean; border: boolean }
/** A placeholder with zero or one child (replaced as the page writes into it). */
export type EmptyProps = Record<string, never>

// ---- widgets ---------------------------------------------------------------------------------

/** sends `true` with `trigger: true`. `value` is always false in renders. */
export interface ButtonProps extends WidgetBase {
  value: boolean
  kind: 'primary' | 'secondary' | 'tertiary'
  icon: string | null
  useContainerWidth: boolean
}
/** Only inside a form: clicking submits the form (see the module comment). */
export type FormSubmitButtonProps = ButtonProps
/** sends boolean. */
export interface CheckboxProps extends WidgetBase { value: boolean }
export type ToggleProps = CheckboxProps
/** sends the selected option index (number) or null. `options` are display labels. */
export interface RadioProps extends WidgetBase { options: string[]; value: number | null; horizontal: boolean; captions: string[] | null }
export interface SelectboxProps extends WidgetBase { options: string[]; value: number | null; placeholder: string }
/** sends number[] (option indices). */
export interface MultiselectProps extends WidgetBase { options: string[]; value: number[]; maxSelections: number | null; placeholder: string }
/** sends number, or [number, number] for a range slider (when `value` is a pair). */
export interface SliderProps extends WidgetBase { min: number; max: number; step: number; value: number | [number, number]; format: string | null }
/** sends string. Commit on Enter or blur (Streamlit behaviour), not per keystroke. */
export interface TextInputProps extends WidgetBase {
  value: string
  placeholder: string
  maxChars: number | null
  inputType: 'default' | 'password'
}
export interface TextAreaProps extends WidgetBase { value: string; placeholder: string; maxChars: number | null; height: number | null }
/** sends number or null. */
export interface NumberInputProps extends WidgetBase {
  value: number | null
  min: number | null
  max: number | null
  step: number
  /** printf-like format such as "%.2f", or null. */
  format: string | null
  placeholder: string
}
/** sends "YYYY-MM-DD" or null. */
export interface DateInputProps extends WidgetBase { value: string | null; min: string | null; max: string | null }

/** What the client sends for each chosen file (base64 body). */
export interface UploadedFilePayload { name: string; type: string; size: number; dataBase64: string }
/** sends UploadedFilePayload[] (empty array clears). `value` lists what the server holds. */
export interface FileUploaderProps extends WidgetBase {
  value: { name: string; type: string; size: number }[]
  accept: string[] | null
  multiple: boolean
  maxBytes: number
}
/** Clicking downloads `url` as `fileName` and sends `true` with `trigger: true`. */
export interface DownloadButtonProps extends WidgetBase {
  value: boolean
  url: string
  fileName: string
  mime: string
  kind: 'primary' | 'secondary' | 'tertiary'
  icon: string | null
  useContainerWidth: boolean
}

/** Element type → props. */
/** `st.fragment()`: a part of the page that reruns on its own; its children are what the fragment drew. */
export interface FragmentProps {
  /** Seconds between timed reruns, or null. */
  runEvery: number | null
}

export interface ElementPropsMap {
  title: TitleProps
  header: HeaderProps
  subheader: SubheaderProps
  caption: CaptionProps
  markdown: MarkdownProps
  text: TextProps
  code: CodeProps
  json: JsonProps
  divider: DividerProps
  success: AlertProps
  info: AlertProps
  warning: AlertProps
  error: AlertProps
  exception: ExceptionProps
  metric: MetricProps
  table: TableProps
  dataframe: DataframeProps
  lineChart: ChartProps
  barChart: ChartProps
  areaChart: ChartProps
  scatterChart: ChartProps
  image: ImageProps
  link: LinkProps
  progress: ProgressProps
  spinner: SpinnerProps
  columns: ColumnsProps
  column: ColumnProps
  tabs: TabsProps
  tab: TabProps
  expander: ExpanderProps
  container: ContainerProps
  form: FormProps
  empty: EmptyProps
  button: ButtonProps
  formSubmitButton: FormSubmitButtonProps
  checkbox: CheckboxProps
  toggle: ToggleProps
  radio: RadioProps
  selectbox: SelectboxProps
  multiselect: MultiselectProps
  slider: SliderProps
  textInput: TextInputProps
  textArea: TextAreaProps
  numberInput: NumberInputProps
  dateInput: DateInputProps
  fileUploader: FileUploaderProps
  downloadButton: DownloadButtonProps
  fragment: FragmentProps
}

export type ElementType = keyof ElementPropsMap

export const CONTAINER_TYPES = ['columns', 'column', 'tabs', 'tab', 'expander', 'container', 'form', 'empty', 'fragment'] as const
export type ContainerType = (typeof CONTAINER_TYPES)[number]

export const WIDGET_TYPES = [
  'button',
  'formSubmitButton',
  'checkbox',
  'toggle',
  'radio',
  'selectbox',
  'multiselect',
  'slider',
  'textInput',
  'textArea',
  'numberInput',
  'dateInput',
  'fileUploader',
  'downloadButton',
] as const
export type WidgetType = (typeof WIDGET_TYPES)[number]

/** Widgets whose value is a one-run trigger (clicks). */
export const TRIGGER_TYPES: ReadonlySet<string> = new Set(['button', 'formSubmitButton', 'downloadButton'])

/** One element node, precisely typed. Structurally a `UiNode` of `protocol.ts`. */
export type UiElement = {
  [T in ElementType]: {
    id: string
    type: T
    props: ElementPropsMap[T]
    children?: UiElement[]
    /** Set on nodes of the previous run kept in a partial render (show them dimmed). */
    stale?: boolean
  }
}[ElementType]

export function isContainerType(type: string): type is ContainerType {
  return (CONTAINER_TYPES as readonly string[]).includes(type)
}

export function isWidgetType(type: string): type is WidgetType {
  return (WIDGET_TYPES as readonly string[]).includes(type)
}
