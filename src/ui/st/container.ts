import { SvcError } from '../../errors.js'
import type { ElementPropsMap, UiElement } from '../wire/elements.js'
import { renderMarkdown } from '../markdown.js'
import { checkMime, mimeEssence } from '../media-headers.js'
import { sniffMime } from '../media-store.js'
import { checkedUrl } from './checked-url.js'
import type { Emitter, RunContext } from './run-context.js'
import type { AudioOptions, ColorPickerOptions, FeedbackOptions, MediaSource, PdfOptions, PillsOptions, SelectSliderOptions, TimeInputOptions, VideoOptions } from '../st-types.js'
import type {
  AlertOptions, ButtonOptions, ChartOptions, CheckboxOptions, ColumnsOptions, ContainerOptions, DataEditorOptions, DataframeOptions, DataframeSelection,
  DateInputOptions, DateValue, DownloadButtonOptions, EditedRows, ExpanderOptions, FileUploaderOptions, FormOptions, HeadingOptions, ImageOptions,
  FragmentOptions, LinkOptions, MetricOptions, MultiselectOptions, NumberInputOptions, ProgressBar, RadioOptions, SelectboxOptions,
  RowRecord, RowsOf, SliderOptions, St, StContainer, TableData, TableOptions, TextAreaOptions, TextInputOptions, TextOptions, UploadedFile,
  VegaLiteChartOptions,
} from '../st-types.js'
import { chartProps, vegaLiteProps } from './charts.js'
import { normalizeTable } from './data.js'
import * as df from './dataframe.js'
import { dataEditor } from './data-editor.js'
import { fragment } from './fragment.js'
import { toJsonSafe, formatNumber } from './values.js'
import * as w from './widgets.js'
import * as chat from './chat.js'
import * as overlays from './overlays.js'
import type { DialogBody } from './overlays.js'
import type {
  ChatInputOptions, ChatMessageOptions, Dialog, DialogOptions, PopoverOptions, StatusContainer, StatusOptions, StreamSource, WriteStreamOptions,
} from '../st-types.js'
import * as more from './more.js'
import { component } from './component.js'
import type { Component } from '../components.js'
import type { ComponentOptions, Containers, IframeOptions, MapOptions, PlotlyChartOptions, PlotlyFigure, PlotlySelection, Callback } from '../st-types.js'
import { mapProps } from './map.js'
import { plotlyChart } from './plotly.js'
import * as embed from './embed.js'
import type {
  AudioInputOptions, BadgeOptions, CameraInputOptions, ChatInputValue, DatetimeInputOptions, DatetimeValue, DownloadSource, EchoOptions, GraphvizChartOptions, LatexOptions,
} from '../st-types.js'
import { badge, graphvizProps, latexProps } from './typeset.js'
import { datetimeInput } from './datetime.js'
import { audioInput, cameraInput } from './capture.js'
import { echo, helpProps } from './echo-help.js'
import { containerProps } from './layout-props.js'
import { metricChart } from './sparkline.js'

/**
 * Writes elements into one list of the run's tree: the main area, the sidebar, or a
 * container's children. `single` lists (`empty()`) hold at most one element, replaced on write.
 */
export class Container implements StContainer, Emitter {
  readonly ctx: RunContext
  readonly formId: string | null
  readonly #list: UiElement[]
  readonly #prefix: string
  readonly #single: boolean

  constructor(ctx: RunContext, list: UiElement[], prefix: string, formId: string | null, single = false) {
    this.ctx = ctx
    this.#list = list
    this.#prefix = prefix
    this.formId = formId
    this.#single = single
  }

  /** Id of the node this container writes into (`m`, `s`, or a node's position path). */
  get path(): string {
    return this.#prefix
  }

  emit<T extends keyof ElementPropsMap>(type: T, props: ElementPropsMap[T], id?: string, children?: UiElement[]): UiElement {
    this.ctx.check()
    if (this.#single) this.#list.length = 0
    // A widget the server overrode carries its revision: its control then shows the server's value.
    const rev = id === undefined ? 0 : this.ctx.host.widgets.revisions.of(id)
    if (rev > 0) (props as { rev?: number }).rev = rev
    const node = { id: id ?? `${this.#prefix}.${this.#list.length}`, type, props, ...(children ? { children } : {}) } as UiElement
    this.#list.push(node)
    this.ctx.touch()
    return node
  }

  #child(type: 'expander' | 'container' | 'form' | 'empty', props: object, formId = this.formId): Container {
    const children: UiElement[] = []
    const node = this.emit(type, props as never, undefined, children)
    return new Container(this.ctx, children, node.id, formId, type === 'empty')
  }

  /** A container element and the container that writes its children (for the st/ modules). */
  nest<T extends keyof ElementPropsMap>(type: T, props: ElementPropsMap[T], id?: string, formId = this.formId): { node: UiElement; body: Container } {
    const children: UiElement[] = []
    const node = this.emit(type, props, id, children)
    return { node, body: new Container(this.ctx, children, node.id, formId) }
  }

  #nested(parent: UiElement, type: 'column' | 'tab', props: ElementPropsMap['column'] | ElementPropsMap['tab'], index: number): Container {
    const children: UiElement[] = []
    const node = { id: `${parent.id}.${index}`, type, props, children } as UiElement
    parent.children!.push(node)
    return new Container(this.ctx, children, node.id, this.formId)
  }

  // ---- text ----
  title(text: string, o: HeadingOptions = {}): void {
    this.emit('title', { text: String(text), anchor: o.anchor ?? null, help: o.help ?? null })
  }
  header(text: string, o: HeadingOptions = {}): void {
    this.emit('header', { text: String(text), anchor: o.anchor ?? null, divider: o.divider ?? false, help: o.help ?? null })
  }
  subheader(text: string, o: HeadingOptions = {}): void {
    this.emit('subheader', { text: String(text), anchor: o.anchor ?? null, divider: o.divider ?? false, help: o.help ?? null })
  }
  caption(markdown: string, o: TextOptions = {}): void {
    this.emit('caption', { html: renderMarkdown(String(markdown), o) })
  }
  markdown(markdown: string, o: TextOptions = {}): void {
    this.emit('markdown', { html: renderMarkdown(String(markdown), o) })
  }
  text(text: string): void {
    this.emit('text', { text: String(text) })
  }
  code(code: string, o: { language?: string; lineNumbers?: boolean } = {}): void {
    this.emit('code', { code: String(code), language: o.language ?? null, lineNumbers: o.lineNumbers ?? false })
  }
  json(value: unknown, o: { expanded?: boolean } = {}): void {
    this.emit('json', { value: toJsonSafe(value) ?? null, expanded: o.expanded ?? true })
  }
  write(...values: unknown[]): void {
    for (const v of values) {
      if (typeof v === 'string') this.markdown(v)
      else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') this.markdown(`\`${String(v)}\``)
      else if (v === null || v === undefined) this.code(String(v))
      else if (v instanceof Error) this.exception(v)
      else if (v instanceof Date) this.text(v.toISOString())
      else if (Array.isArray(v) && v.length > 0 && v.every((r) => typeof r === 'object' && r !== null && !Array.isArray(r))) this.dataframe(v as Record<string, unknown>[])
      else this.json(v)
    }
  }
  divider(): void {
    this.emit('divider', {})
  }

  // ---- status ----
  #alert(type: 'success' | 'info' | 'warning' | 'error', md: string, o: AlertOptions): void {
    this.emit(type, { html: renderMarkdown(String(md), o), icon: o.icon ?? null })
  }
  success(md: string, o: AlertOptions = {}): void { this.#alert('success', md, o) }
  info(md: string, o: AlertOptions = {}): void { this.#alert('info', md, o) }
  warning(md: string, o: AlertOptions = {}): void { this.#alert('warning', md, o) }
  error(md: string, o: AlertOptions = {}): void { this.#alert('error', md, o) }
  exception(error: unknown): void {
    // A stale run must not log an exception it will never show.
    this.ctx.check()
    this.emit('exception', this.ctx.host.exceptionProps(error))
  }

  // ---- data ----
  metric(label: string, value: string | number | null, o: MetricOptions = {}): void {
    const d = o.delta ?? null
    const num = typeof d === 'number' ? d : typeof d === 'string' ? Number.parseFloat(d.replace(/[^\d.+-]/g, '')) : NaN
    const direction = d === null ? null : Number.isNaN(num) ? (String(d).trim().startsWith('-') ? 'down' : 'up') : num > 0 ? 'up' : num < 0 ? 'down' : 'flat'
    this.emit('metric', {
      label: String(label),
      value: value === null ? '—' : typeof value === 'number' ? formatNumber(value) : String(value),
      delta: d === null ? null : typeof d === 'number' ? (d > 0 ? '+' : '') + formatNumber(d) : d,
      deltaColor: o.deltaColor ?? 'normal',
      deltaDirection: direction,
      help: o.help ?? null,
      border: o.border ?? false,
      ...metricChart(label, o),
    })
  }
  table(data: TableData, o: TableOptions = {}): void {
    this.emit('table', normalizeTable(data, o.columns))
  }
  dataframe<R extends object = Record<string, unknown>>(data: RowsOf<R>, o: DataframeOptions<RowRecord<R>> & { selectionMode: NonNullable<DataframeOptions['selectionMode']> }): DataframeSelection<RowRecord<R>>
  dataframe<R extends object = Record<string, unknown>>(data: RowsOf<R>, o?: DataframeOptions<RowRecord<R>>): void
  dataframe(data: TableData, o: DataframeOptions = {}): DataframeSelection | undefined { return df.dataframe(this, data, o) }
  // The row type is the page's view of its data; at run time a row is a record of it.
  dataEditor<R extends object = Record<string, unknown>>(data: RowsOf<R>, o?: DataEditorOptions<RowRecord<R>>): EditedRows<RowRecord<R>> { return dataEditor(this, data, o as DataEditorOptions) as EditedRows<RowRecord<R>> }
  lineChart(data: TableData, o: ChartOptions = {}): void { this.emit('lineChart', chartProps('line', data, o)) }
  barChart(data: TableData, o: ChartOptions = {}): void { this.emit('barChart', chartProps('bar', data, o)) }
  areaChart(data: TableData, o: ChartOptions = {}): void { this.emit('areaChart', chartProps('area', data, o)) }
  scatterChart(data: TableData, o: ChartOptions = {}): void { this.emit('scatterChart', chartProps('scatter', data, o)) }
  vegaLiteChart(spec: Record<string, unknown>, o?: VegaLiteChartOptions): void { this.emit('vegaLiteChart', vegaLiteProps(spec, o)) }

  image(source: string | Uint8Array | ArrayBuffer, o: ImageOptions = {}): void {
    let url: string
    if (typeof source === 'string') {
      url = checkedUrl('image()', source, 'image').href
    } else {
      const bytes = source instanceof Uint8Array ? source : new Uint8Array(source)
      const mime = o.mime === undefined ? sniffMime(bytes) : checkMime('image()', 'mime', o.mime)
      // SVG is a document that can run script: it never goes out from the app's origin, only inside <img>.
      url = mimeEssence(mime) === 'image/svg+xml' ? `data:image/svg+xml;base64,${Buffer.from(bytes).toString('base64')}` : this.ctx.host.media.add(bytes, mime)
    }
    this.emit('image', { url, caption: o.caption ?? null, width: o.width ?? null, alt: o.alt ?? o.caption ?? '' })
  }
  link(label: string, href: string, o: LinkOptions = {}): void {
    const url = checkedUrl(`link("${String(label).slice(0, 40)}")`, href, 'link')
    const page = url.path !== null && this.ctx.host.hasPage(url.path) ? url.path : null
    this.emit('link', { label: String(label), href: url.href, page, newTab: o.newTab ?? !url.sameOrigin, icon: o.icon ?? null })
  }
  progress(value: number, text?: string): ProgressBar {
    const norm = (v: number): number => Math.min(1, Math.max(0, v > 1 ? v / 100 : v))
    const node = this.emit('progress', { value: norm(value), text: text ?? null })
    return {
      progress: (v: number, t?: string) => {
        this.ctx.check()
        Object.assign(node.props, { value: norm(v), text: t ?? (node.props as ElementPropsMap['progress']).text })
        this.ctx.touch()
      },
    }
  }
  async spinner<T>(text: string, fn: () => T | Promise<T>): Promise<T> {
    const slot = this.#child('empty', {})
    slot.emit('spinner', { text: String(text) })
    try {
      return await fn()
    } finally {
      if (this.ctx.current) slot.clear()
    }
  }

  // ---- layout ----
  columns<const S extends number | readonly number[]>(spec: S, o: ColumnsOptions = {}): Containers<S> {
    const weights: readonly number[] = typeof spec === 'number' ? Array.from({ length: spec }, () => 1) : (spec as readonly number[])
    if (weights.length === 0 || weights.some((x) => !(x > 0))) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `columns(${JSON.stringify(spec)}): pass a positive count or a list of positive weights, e.g. columns([2, 1])`)
    }
    const parent = this.emit('columns', { gap: o.gap ?? 'small', verticalAlign: o.verticalAlign ?? 'top', border: o.border ?? false }, undefined, [])
    return weights.map((weight, i) => this.#nested(parent, 'column', { weight }, i)) as Containers<S>
  }
  tabs<const L extends readonly string[]>(labels: L): Containers<L> {
    if (labels.length === 0) throw new SvcError('SVC_ERR_UI_BAD_CALL', 'tabs([]): pass at least one tab label')
    const parent = this.emit('tabs', { labels: labels.map(String) }, undefined, [])
    return labels.map((label, i) => this.#nested(parent, 'tab', { label: String(label) }, i)) as Containers<L>
  }
  expander(label: string, o: ExpanderOptions = {}): StContainer {
    return this.#child('expander', { label: String(label), expanded: o.expanded ?? false, icon: o.icon ?? null })
  }
  container(o: ContainerOptions = {}): StContainer {
    return this.#child('container', containerProps(o))
  }
  form(key: string, o: FormOptions = {}): StContainer {
    if (this.formId !== null) throw new SvcError('SVC_ERR_UI_BAD_CALL', `form("${key}") is inside form "${this.formId}"; forms cannot be nested`)
    if (this.ctx.forms.has(key)) throw new SvcError('SVC_ERR_UI_DUPLICATE_WIDGET', `two forms use the key "${key}" in one run; every form key must be unique`)
    this.ctx.forms.set(key, { clearOnSubmit: o.clearOnSubmit ?? false })
    return this.#child('form', { formId: key, clearOnSubmit: o.clearOnSubmit ?? false, border: o.border ?? true, clears: this.ctx.host.formClears(key) }, key)
  }
  empty(): StContainer {
    if (this.#single) {
      this.clear()
      return this
    }
    return this.#child('empty', {})
  }
  /** Remove the content of a placeholder. */
  clear(): void {
    this.ctx.check()
    this.#list.length = 0
    this.ctx.touch()
  }

  fragment(fn: (st: St) => Promise<void>, o?: FragmentOptions): Promise<void>
  fragment(fn: (st: St) => void, o?: FragmentOptions): void
  fragment(fn: (st: St) => void | Promise<void>, o?: FragmentOptions): void | Promise<void> {
    return fragment(this, fn, o)
  }

  // ---- widgets ----
  button(label: string, o?: ButtonOptions): boolean { return w.button(this, label, o) }
  formSubmitButton(label: string, o?: ButtonOptions): boolean { return w.button(this, label, o, true) }
  checkbox(label: string, o?: CheckboxOptions): boolean { return w.checkbox(this, 'checkbox', label, o) }
  toggle(label: string, o?: CheckboxOptions): boolean { return w.checkbox(this, 'toggle', label, o) }
  radio<T>(label: string, options: readonly T[], o: RadioOptions<T> & { index: null }): T | null
  radio<T>(label: string, options: readonly T[], o?: RadioOptions<T> & { index?: number }): T
  radio<T>(label: string, options: readonly T[], o?: RadioOptions<T>): T | null {
    return w.radio(this, label, options, o)
  }
  selectbox<T>(label: string, options: readonly T[], o: SelectboxOptions<T> & { index: null }): T | null
  selectbox<T>(label: string, options: readonly T[], o?: SelectboxOptions<T> & { index?: number }): T
  selectbox<T>(label: string, options: readonly T[], o?: SelectboxOptions<T>): T | null {
    return w.selectbox(this, label, options, o)
  }
  multiselect<T>(label: string, options: readonly T[], o?: MultiselectOptions<T>): T[] { return w.multiselect(this, label, options, o) }
  slider(label: string, o: SliderOptions<[number, number]> & { value: [number, number] }): [number, number]
  slider(label: string, o?: SliderOptions<number>): number
  slider(label: string, o?: SliderOptions<number> | SliderOptions<[number, number]>): number | [number, number] {
    return w.slider(this, label, o as SliderOptions<number | [number, number]>)
  }
  textInput(label: string, o?: TextInputOptions): string { return w.textInput(this, 'textInput', label, o) }
  textArea(label: string, o?: TextAreaOptions): string { return w.textInput(this, 'textArea', label, o) }
  numberInput(label: string, o: NumberInputOptions<number | null> & { value: null }): number | null
  numberInput(label: string, o?: NumberInputOptions<number>): number
  numberInput(label: string, o?: NumberInputOptions<number> | NumberInputOptions<number | null>): number | null {
    return w.numberInput(this, label, o as NumberInputOptions<number | null>)
  }
  dateInput(label: string, o: DateInputOptions<DateValue | null> & { value: null }): Date | null
  dateInput(label: string, o: DateInputOptions<readonly [DateValue, DateValue], [Date, Date]> & { value: readonly [DateValue, DateValue] }): [Date, Date]
  dateInput(label: string, o?: DateInputOptions<DateValue>): Date
  dateInput(label: string, o?: object): Date | null | [Date, Date] {
    return w.dateInput(this, label, o as DateInputOptions<DateValue | null | readonly [DateValue, DateValue], Date | null | [Date, Date]>)
  }
  fileUploader(label: string, o: FileUploaderOptions & { multiple: true }): UploadedFile[]
  fileUploader(label: string, o?: FileUploaderOptions & { multiple?: false }): UploadedFile | null
  fileUploader(label: string, o?: FileUploaderOptions & { multiple?: boolean }): UploadedFile | UploadedFile[] | null {
    return w.fileUploader(this, label, o)
  }
  downloadButton(label: string, data: DownloadSource, o?: DownloadButtonOptions): boolean {
    return w.downloadButton(this, label, data, o)
  }
  component<A, V, D = null>(def: Component<A, V>, args: A, o?: ComponentOptions<V, D>): V | D {
    return component(this, def, args, o)
  }

  // ---- chat, streaming, overlays, status (st/chat.ts, st/overlays.ts) ----
  chatMessage(role: string, o?: ChatMessageOptions): StContainer { return chat.chatMessage(this, role, o) }
  chatInput(placeholder: string | undefined, o: ChatInputOptions<ChatInputValue> & ({ acceptFile: true | 'multiple' | 'directory' } | { acceptAudio: true })): ChatInputValue | null
  chatInput(placeholder?: string, o?: ChatInputOptions): string | null
  chatInput(placeholder?: string, o?: ChatInputOptions<never>): string | ChatInputValue | null { return chat.chatInput(this, placeholder, o as ChatInputOptions<unknown>) }
  writeStream(source: StreamSource, o?: WriteStreamOptions): Promise<string> { return chat.writeStream(this, source, o) }
  dialog(title: string, fn: DialogBody, o?: DialogOptions): Promise<Dialog> { return overlays.dialog(this, title, fn, o) }
  popover(label: string, o?: PopoverOptions): StContainer { return overlays.popover(this, label, o) }
  status(label: string, o?: StatusOptions): StatusContainer
  status<T>(label: string, fn: (s: StatusContainer) => T | Promise<T>, o?: StatusOptions): Promise<T>
  status<T>(label: string, a?: StatusOptions | ((s: StatusContainer) => T | Promise<T>), o?: StatusOptions): StatusContainer | Promise<T> {
    return overlays.status(this, label, a, o)
  }
  // ---- theme & more elements (st/more.ts) ----
  audio(data: MediaSource, o?: AudioOptions): void { more.audio(this, data, o) }
  video(data: MediaSource, o?: VideoOptions): void { more.video(this, data, o) }
  pdf(data: MediaSource, o?: PdfOptions): void { more.pdf(this, data, o) }
  timeInput(label: string, o: TimeInputOptions<string | Date | null> & { value: null }): string | null
  timeInput(label: string, o?: TimeInputOptions<string | Date>): string
  timeInput(label: string, o?: TimeInputOptions<string | Date | null>): string | null { return more.timeInput(this, label, o) }
  colorPicker(label: string, o?: ColorPickerOptions): string { return more.colorPicker(this, label, o) }
  selectSlider<T>(label: string, options: readonly T[], o: SelectSliderOptions<T, readonly [T, T]> & { value: readonly [T, T] }): [T, T]
  selectSlider<T>(label: string, options: readonly T[], o?: SelectSliderOptions<T, T>): T
  selectSlider<T>(label: string, options: readonly T[], o?: SelectSliderOptions<T, T | readonly [T, T]>): T | [T, T] { return more.selectSlider(this, label, options, o) }
  pills<T>(label: string, options: readonly T[], o: PillsOptions<T, T[]> & { selectionMode: 'multi' }): T[]
  pills<T>(label: string, options: readonly T[], o?: PillsOptions<T, T | null> & { selectionMode?: 'single' }): T | null
  pills<T>(label: string, options: readonly T[], o?: object): T | null | T[] { return more.pills(this, 'pills', label, options, o as PillsOptions<T, T | null | T[]>) }
  segmentedControl<T>(label: string, options: readonly T[], o: PillsOptions<T, T[]> & { selectionMode: 'multi' }): T[]
  segmentedControl<T>(label: string, options: readonly T[], o?: PillsOptions<T, T | null> & { selectionMode?: 'single' }): T | null
  segmentedControl<T>(label: string, options: readonly T[], o?: object): T | null | T[] { return more.pills(this, 'segmentedControl', label, options, o as PillsOptions<T, T | null | T[]>) }
  feedback(options?: 'thumbs' | 'faces' | 'stars', o?: FeedbackOptions): number | null { return more.feedback(this, options, o) }
  // ---- maps, Plotly, HTML, iframes (st/map.ts, st/plotly.ts, st/embed.ts) ----
  map(data: TableData, o?: MapOptions): void { this.emit('map', mapProps(data, o)) }
  plotlyChart(figure: PlotlyFigure, o: PlotlyChartOptions & { onSelect: 'rerun' | Callback<PlotlySelection> }): PlotlySelection
  plotlyChart(figure: PlotlyFigure, o?: PlotlyChartOptions): void
  plotlyChart(figure: PlotlyFigure, o?: PlotlyChartOptions): PlotlySelection | undefined { return plotlyChart(this, figure, o) }
  html(markup: string): void { embed.html(this, markup) }
  iframe(source: string | { srcdoc: string }, o?: IframeOptions): void { embed.iframe(this, source, o) }
  // ---- the element tail (issue #36: st/typeset.ts, st/datetime.ts, st/capture.ts, st/echo-help.ts) ----
  badge(label: string, o?: BadgeOptions): void { badge(this, label, o) }
  latex(body: string, o?: LatexOptions): void { this.emit('latex', latexProps(body, o)) }
  graphvizChart(dot: string | { source: string }, o?: GraphvizChartOptions): void { this.emit('graphvizChart', graphvizProps(dot, o)) }
  datetimeInput(label: string, o: DatetimeInputOptions<DatetimeValue | null> & { value: null }): Date | null
  datetimeInput(label: string, o?: DatetimeInputOptions<DatetimeValue>): Date
  datetimeInput(label: string, o?: DatetimeInputOptions<DatetimeValue | null>): Date | null { return datetimeInput(this, label, o) }
  audioInput(label: string, o?: AudioInputOptions): UploadedFile | null { return audioInput(this, label, o) }
  cameraInput(label: string, o?: CameraInputOptions): UploadedFile | null { return cameraInput(this, label, o) }
  echo<T>(fn: () => T, o?: EchoOptions): T {
    this.ctx.check()
    return echo(this, fn, o, new Error().stack)
  }
  help(value: unknown): void {
    this.ctx.check()
    this.emit('help', helpProps(value, new Error().stack))
  }
}
