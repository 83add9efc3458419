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
/**
 * With error details hidden (`show_error_details` off) name, message and stack are not sent at all:
 * `hidden` is true and the client shows a generic message with `requestId`, which the server log carries.
 */
export interface ExceptionProps { name: string; message: string; stack: string | null; hidden: boolean; requestId: string | null }

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
  /** `chartData`: a small chart under the value (issue #36); absent or null: none. */
  chart?: Sparkline | null
}

/**
 * A sparkline drawn by the server as an SVG path in a 100 × 30 box (y down): the client only
 * places it. `line` strokes `d`, `area` fills it (closed to the baseline) and strokes its top,
 * `bar` fills one rectangle per value.
 */
export interface Sparkline { kind: 'line' | 'bar' | 'area'; d: string }

/** Static table: every row, no sorting. */
export interface TableProps { columns: ColumnSpec[]; rows: Cell[][] }

export interface SortSpec { column: string; direction: 'asc' | 'desc' }

/** How a dataframe column is shown (and edited): Streamlit's column types. */
export type ColumnType =
  | 'text' | 'number' | 'checkbox' | 'selectbox' | 'date' | 'datetime' | 'link' | 'image' | 'progress' | 'json'
  // Issue #36. Chart columns: each cell travels as the `d` of a `Sparkline` of the column's kind.
  | 'lineChart' | 'barChart' | 'areaChart' | 'list' | 'multiselect' | 'time'

/** A configured dataframe column (`columnConfig` applied). Formats are applied by the client. */
export interface DataColumn extends ColumnSpec {
  type: ColumnType
  label: string
  width: 'small' | 'medium' | 'large' | number | null
  help: string | null
  pinned: boolean
  /** Number/date format (see `ColumnConfig.format`), or null for the default. */
  format: string | null
  min: number | null
  max: number | null
  step: number | null
  displayText: string | null
  /** `selectbox`, `multiselect`: allowed values. */
  options: (string | number | boolean)[] | null
  /** `dataEditor`: not editable. */
  disabled: boolean
  /** `dataEditor`: value in a newly added row. */
  default: string | number | boolean | null
}

/**
 * A row's identity on the wire. With a `rowKey`: the row's key as a string. Without one: the
 * row's index in the page's data, valid only for the table version `rowsVersion` names. Rows added
 * in an editor: the number `baseRows + j` (j counts the added rows).
 */
export type RowId = string | number

/**
 * Interactive table, paged by the server: `rows` is the current page (already sorted), holding
 * the `columns` shown (hidden ones are not sent). To change page or sort the client sends
 * `dataframe_page` (no rerun) and gets `dataframe_rows` back.
 *
 * With `selectionMode` set the node is a widget: it sends `{ rows: RowId[], rowsVersion }`.
 */
export interface DataframeProps {
  columns: DataColumn[]
  rows: Cell[][]
  /** Per page row: its id (see `RowId`). */
  rowIds: RowId[]
  totalRows: number
  page: number
  pageSize: number
  sort: SortSpec | null
  /** Pixel height, or null to fit the rows. */
  height: number | null
  hideIndex: boolean
  useContainerWidth: boolean
  selectionMode: 'single-row' | 'multi-row' | null
  /** Selected row ids. */
  selection: RowId[]
  /**
   * Issue #36: cell and column selection (with or without rows). Absent or null: none. The widget
   * then sends `{ rows, columns, cells, rowsVersion }`: column names, and cells as [row id, column name].
   */
  selectionModes?: TableSelectionModes | null
  selectedColumns?: string[]
  selectedCells?: [RowId, string][]
  /**
   * Without a row key: names the rows the row indexes refer to. The client sends it back with its
   * selection or edits; a value made for other rows (the data changed meanwhile) is refused.
   * Null with a row key (keys are the identity).
   */
  rowsVersion: string | null
}

/** What a dataframe lets the visitor select: rows, columns and cells, each off, one or many. */
export interface TableSelectionModes { rows: 'single' | 'multi' | null; columns: 'single' | 'multi' | null; cells: 'single' | 'multi' | null }

/**
 * Streamlit's `editing_state` in camelCase: the edits of a `dataEditor`, relative to its data.
 * Rows are named by their id: the `rowKey` (a string) when the editor has one, else the index in
 * the data.
 */
export interface EditingState {
  /** Row id → column name → new value. */
  editedRows: Record<string, Record<string, Cell>>
  /** New rows, column name → value (absent columns take the column default). */
  addedRows: Record<string, Cell>[]
  /** Ids of deleted rows of the data. */
  deletedRows: RowId[]
}

/**
 * A `dataframe` whose cells can be edited. A widget: sends the whole `EditingState` (a delta to
 * the data, never the table). `rows`/`rowIds` show the data with the edits applied.
 */
export interface DataEditorProps extends Omit<DataframeProps, 'selectionMode' | 'selection' | 'selectionModes' | 'selectedColumns' | 'selectedCells'> {
  /** Rows of the data before edits; numeric row ids at or past it are added rows. */
  baseRows: number
  /** `disabled: true`: nothing can be edited, added or deleted. */
  disabled: boolean
  numRows: 'fixed' | 'dynamic'
  /** The widget's current value. */
  value: EditingState
  formId: string | null
  key: string | null
  /** The `rowKey` column: read-only on existing rows (set on added ones); null without one or with a key function. */
  keyColumn: string | null
  /** Why the server refused the browser's last edit (a repeated row key, …); absent when it took it. */
  refused?: string
}

/**
 * Every chart: `vegaLiteChart` and the `lineChart`/`barChart`/`areaChart`/`scatterChart` builders.
 * `spec` is a Vega-Lite spec with its data inline; the client renders it in a lazily loaded chunk.
 */
export interface VegaLiteChartProps {
  spec: Record<string, unknown>
  /** Stretch to the container width (sets `width: "container"` on single-view specs). */
  useContainerWidth: boolean
  /** `svc`: colours, fonts and grid from the page theme (CSS custom properties); null: Vega-Lite's own look. */
  theme: 'svc' | null
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
export interface ContainerProps {
  border: boolean
  height: number | null
  /** Issue #36: children side by side (wrapping), with `gap` and alignment. Absent: a vertical stack. */
  horizontal?: boolean
  gap?: ContainerGap | null
  horizontalAlignment?: 'left' | 'center' | 'right' | 'distribute'
  verticalAlignment?: 'top' | 'center' | 'bottom' | 'distribute'
}
export type ContainerGap = 'xxsmall' | 'xsmall' | 'small' | 'medium' | 'large' | 'xlarge' | 'xxlarge'
/**
 * Children are the form's elements; widgets inside carry `formId` = this `formId`. `clears` counts
 * the submits the server cleared (`clearOnSubmit`): when it changes, the client redraws the form's
 * controls from the server's values, dropping what the user had typed.
 */
export interface FormProps { formId: string; clearOnSubmit: boolean; border: boolean; clears: number }
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
/**
 * sends "YYYY-MM-DD" or null; a range (`value` is a pair) sends ["YYYY-MM-DD", "YYYY-MM-DD"], from <= to.
 * The server refuses days outside `min`..`max` and days that are not on the calendar.
 */
export interface DateInputProps extends WidgetBase { value: string | null | [string, string]; min: string | null; max: string | null }

/**
 * What the client sends for each chosen file: the reference the upload endpoint answered
 * (`POST {base}/_stcore/upload`), or the bytes inline as base64 (tests; bounded by the message size).
 */
export type UploadedFilePayload = { name: string; type: string; size: number } & ({ ref: string } | { dataBase64: string })
/** sends UploadedFilePayload[] (empty array clears). `value` lists what the server holds. */
export interface FileUploaderProps extends WidgetBase {
  value: { name: string; type: string; size: number }[]
  accept: string[] | null
  multiple: boolean
  maxBytes: number
}
/**
 * Clicking downloads `url` as `fileName` and sends `true` with `trigger: true` (unless `rerun` is
 * false). With `url` null the data is made on click: the client sends `download` and saves the
 * file the `download_ready` answer names.
 */
export interface DownloadButtonProps extends WidgetBase {
  value: boolean
  url: string | null
  /** Issue #36: false when the click must not rerun the page (`onClick: 'ignore'`). Absent: true. */
  rerun?: boolean
  fileName: string
  mime: string
  kind: 'primary' | 'secondary' | 'tertiary'
  icon: string | null
  useContainerWidth: boolean
}

// ---- chat, overlays, status -------------------------------------------------------------------

/**
 * A chat bubble; children are its content. `avatarKind`: `image` (`avatar` is a URL), `text`
 * (`avatar` is an emoji or a few letters), `default` (the client draws the role's icon).
 */
export interface ChatMessageProps { role: string; avatar: string | null; avatarKind: 'image' | 'text' | 'default' }
/**
 * sends the submitted string with `trigger: true`; the page sees it for one run. `pinned`: written
 * to the page's main area, so the client docks it at the bottom of the viewport.
 */
export interface ChatInputProps extends WidgetBase {
  placeholder: string
  maxChars: number | null
  pinned: boolean
  /**
   * Issue #36: files and a voice recording beside the text. Absent or null: text only, and the
   * value sent is the string. Otherwise it is `{ text, files: UploadedFilePayload[], audio: UploadedFilePayload | null }`.
   */
  attach?: ChatAttachments | null
}
export interface ChatAttachments {
  files: 'single' | 'multiple' | 'directory' | null
  /** Extensions or MIME types, as for `fileUploader`; null: any. */
  accept: string[] | null
  maxBytes: number
  /** Record a voice message (WAV at `sampleRate` Hz); null: no microphone. */
  audioSampleRate: number | null
}
/**
 * A modal; children are the body. Closing (✕, Escape, backdrop when `dismissible`) sends `true`
 * with `trigger: true` on the node id, as a button click does.
 */
export interface DialogProps { title: string; width: 'small' | 'medium' | 'large'; dismissible: boolean }
/** A button that shows its children in a floating panel; open/closed is client-side. */
export interface PopoverProps { label: string; icon: string | null; disabled: boolean; useContainerWidth: boolean; help: string | null }
/** An expander with a state icon; the client re-applies `expanded` whenever the server changes it. */
export interface StatusProps { label: string; state: 'running' | 'complete' | 'error'; expanded: boolean }
// ---- theme & more elements: media, time, colour, choice chips, feedback ----------------------

/** `url` as for images; `startTime`/`endTime` in seconds (a `#t=` media fragment on the client). */
export interface AudioProps { url: string; mime: string | null; startTime: number; endTime: number | null; loop: boolean; autoplay: boolean }
export interface VideoProps extends AudioProps { muted: boolean; width: number | null }
/** An embedded PDF viewer `height` pixels tall. */
export interface PdfProps { url: string; height: number }
/** sends "HH:MM" ("HH:MM:SS" when `step` is under a minute's multiple) or null. `step` in seconds. */
export interface TimeInputProps extends WidgetBase { value: string | null; step: number }
/** sends "#rrggbb". */
export interface ColorPickerProps extends WidgetBase { value: string }
/** sends the option index, or [from, to] indices for a range (when `value` is a pair). */
export interface SelectSliderProps extends WidgetBase { options: string[]; value: number | [number, number] }
/** sends number[] (selected option indices; at most one when `selectionMode` is `single`). */
export interface PillsProps extends WidgetBase { options: string[]; selectionMode: 'single' | 'multi'; value: number[] }
export type SegmentedControlProps = PillsProps
/** sends the chosen index (thumbs: 0 down, 1 up; faces and stars: 0..4) or null. `label` is empty. */
export interface FeedbackProps extends WidgetBase { options: 'thumbs' | 'faces' | 'stars'; value: number | null }

/**
 * `st.component()`: a custom component in a sandboxed iframe. `src` is an app path (the client
 * adds the base path) or an http(s) URL; `args` and `value` are JSON. sends: the value the
 * component set (`setValue`), as JSON of at most `maxValueBytes`. `label` is the component's name.
 */
export interface ComponentProps extends WidgetBase {
  name: string
  src: string
  args: unknown
  value: unknown
  /** Pixels until the component reports its own height; null: a small default. */
  height: number | null
  /** `allow-same-origin` in the sandbox (the component is trusted like the app). */
  sameOrigin: boolean
  maxValueBytes: number
}

// ---- maps, Plotly, HTML, iframes, logo, effects (issue #25) ----------------------------------

/**
 * Points on a basemap (MapLibre GL, a lazily loaded chunk). Columns of equal length: longitude,
 * latitude, and per point (or one for all) a radius in metres and a CSS colour. The basemap style
 * comes from the page config (`ui_map_style_url`), not from here.
 */
export interface MapProps {
  lon: number[]
  lat: number[]
  /** Radius in metres, per point or one for all. */
  size: number | number[]
  /** CSS colour per point or one for all; null: the theme's first chart colour (`--svc-chart-1`). */
  color: string | string[] | null
  /** Initial zoom (0-22), or null to fit every point in view. */
  zoom: number | null
  height: number
  useContainerWidth: boolean
  width: number | null
}

/** A point the browser reports as selected: its trace (`curveNumber`) and its index in that trace. */
export type PlotlyPointRef = [curveNumber: number, pointIndex: number]
/**
 * A box or lasso drawn on the axes `xref`/`yref`: a box has two x and two y values, a lasso one per
 * vertex. Values are in axis units: numbers, or strings on date axes.
 */
export interface PlotlyRegion { xref: string; yref: string; x: (number | string)[]; y: (number | string)[] }
/** The selection as it travels: point references and the drawn regions. */
export interface PlotlySelectionWire { points: PlotlyPointRef[]; box: PlotlyRegion[]; lasso: PlotlyRegion[] }

/**
 * A Plotly figure (Plotly's own library, a lazily loaded chunk). With `selectionMode` the node is
 * a widget: the client sends a `PlotlySelectionWire`, and `selection` is the server's value.
 */
export interface PlotlyChartProps {
  /** `data` (traces), `layout` and optional `frames`, JSON-safe. */
  figure: { data: Record<string, unknown>[]; layout: Record<string, unknown>; frames: unknown[] | null }
  /** Plotly's `config` (mode bar, scroll zoom, ...), merged over svc's defaults. */
  config: Record<string, unknown>
  /** `svc`: fonts, colours and grid from the page theme, following light/dark; null: Plotly's own look. */
  theme: 'svc' | null
  /** How the visitor can select (null: selection is off, the chart is not a widget). */
  selectionMode: ('points' | 'box' | 'lasso')[] | null
  selection: PlotlySelectionWire
  /** Pixels, or null for the figure's own (`layout.height`, else 450). */
  height: number | null
  useContainerWidth: boolean
}

/** `st.html`: the page's markup as written; the client sanitizes it with DOMPurify before it touches the DOM. */
export interface HtmlProps { markup: string }
/**
 * `st.iframe`: a sandboxed frame (scripts, forms and popups, never together with same-origin) of
 * `src` (an http(s) URL, or an app path the client prefixes with the base path) or of `srcdoc`.
 */
export interface IframeProps { src: string | null; srcdoc: string | null; height: number; width: number | null; title: string; scrolling: boolean }
/** `st.logo`: shown above the page navigation, or at the top left when there is no sidebar. */
export interface LogoProps { url: string; iconUrl: string | null; link: string | null; size: 'small' | 'medium' | 'large'; alt: string }
/** `st.balloons()` / `st.snow()`: a one-off animation; `nonce` changes with every run that calls it, so each plays once. */
export interface EffectProps { nonce: number }

// ---- the element tail (issue #36) ------------------------------------------------------------

export type BadgeColor = 'red' | 'orange' | 'yellow' | 'blue' | 'green' | 'violet' | 'gray' | 'primary'
/** A small coloured label; `icon` an emoji or `:material/name:`. */
export interface BadgeProps { label: string; icon: string | null; color: BadgeColor; help: string | null }
/** TeX typeset in the browser (KaTeX, a lazily loaded chunk) in display mode. */
export interface LatexProps { body: string; help: string | null }
/** A DOT graph laid out in the browser (Graphviz in WebAssembly, a lazily loaded chunk). */
export interface GraphvizChartProps { dot: string; useContainerWidth: boolean; height: number | null; width: number | null }
/**
 * sends "YYYY-MM-DDTHH:MM" ("…:SS" when `step` is not whole minutes) or null: a wall-clock time
 * without a zone. The server refuses times outside `min`..`max` and off the `step` grid.
 */
export interface DatetimeInputProps extends WidgetBase { value: string | null; min: string | null; max: string | null; step: number }
/** A recording or photo the server holds, with the media URL the widget plays or shows it from. */
export interface CapturedFile { name: string; type: string; size: number; url: string }
/** sends [] or [UploadedFilePayload] (a WAV recording, uploaded first). */
export interface AudioInputProps extends WidgetBase { value: CapturedFile | null; sampleRate: number; maxBytes: number }
/** sends [] or [UploadedFilePayload] (a JPEG photo, uploaded first). */
export interface CameraInputProps extends WidgetBase { value: CapturedFile | null; maxBytes: number }
/** `st.help(obj)`: what the object is, read at run time (JavaScript keeps no doc strings). */
export interface HelpProps {
  name: string | null
  type: string
  /** `name(a, b)` of a function or class, else null. */
  signature: string | null
  /** The value, shortened; null for functions and classes. */
  value: string | null
  /** A doc text the object carries (`description`, `doc`), else null. */
  doc: string | null
  members: { name: string; type: string; value: string }[]
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
  lineChart: VegaLiteChartProps
  barChart: VegaLiteChartProps
  areaChart: VegaLiteChartProps
  scatterChart: VegaLiteChartProps
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
  dataEditor: DataEditorProps
  chatMessage: ChatMessageProps
  chatInput: ChatInputProps
  dialog: DialogProps
  popover: PopoverProps
  status: StatusProps
  vegaLiteChart: VegaLiteChartProps
  audio: AudioProps
  video: VideoProps
  pdf: PdfProps
  timeInput: TimeInputProps
  colorPicker: ColorPickerProps
  selectSlider: SelectSliderProps
  pills: PillsProps
  segmentedControl: SegmentedControlProps
  feedback: FeedbackProps
  fragment: FragmentProps
  component: ComponentProps
  map: MapProps
  plotlyChart: PlotlyChartProps
  html: HtmlProps
  iframe: IframeProps
  logo: LogoProps
  balloons: EffectProps
  snow: EffectProps
  badge: BadgeProps
  latex: LatexProps
  graphvizChart: GraphvizChartProps
  datetimeInput: DatetimeInputProps
  audioInput: AudioInputProps
  cameraInput: CameraInputProps
  help: HelpProps
}

export type ElementType = keyof ElementPropsMap

export const CONTAINER_TYPES = ['columns', 'column', 'tabs', 'tab', 'expander', 'container', 'form', 'empty', 'chatMessage', 'dialog', 'popover', 'status', 'fragment'] as const
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
  'chatInput',
  'timeInput',
  'colorPicker',
  'selectSlider',
  'pills',
  'segmentedControl',
  'feedback',
  'component',
  'datetimeInput',
  'audioInput',
  'cameraInput',
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
