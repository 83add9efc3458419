import type { FunctionComponent } from 'preact'
import type { ElementPropsMap, ElementType, VegaLiteChartProps } from '../../wire/elements.js'
import { Button, DownloadButton, FormSubmitButton } from '../widgets/buttons.js'
import { Checkbox, Multiselect, Radio, Selectbox, Toggle } from '../widgets/choice.js'
import { FileUploader } from '../widgets/file-uploader.js'
import { DateInput, NumberInput, TextArea, TextInput } from '../widgets/inputs.js'
import { Slider } from '../widgets/slider.js'
import { Column, Columns, Container, Empty, Expander, Form, Tab, Tabs } from './layout.js'
import { Image, Link } from './media.js'
import { Metric } from './metric.js'
import { ErrorAlert, Exception, Info, Progress, Spinner, Success, Warning } from './status.js'
import { Table } from './table.js'
import { Badge, Caption, Code, Divider, Header, Json, Markdown, Subheader, Text, Title } from './text.js'
import type { ElementProps } from './types.js'
import { DataEditor, Dataframe } from './data.js'
import { ChatInput, ChatMessage } from './chat.js'
import { Dialog, Popover, Status } from './overlays.js'
import { Audio, Pdf, Video } from './media-more.js'
import { ColorPicker, Feedback, Pills, SegmentedControl, SelectSlider, TimeInput } from '../widgets/more.js'
import { Fragment } from './fragment.js'
import { lazyElement } from './lazy.js'

type Registry = { [T in ElementType]: FunctionComponent<ElementProps<ElementPropsMap[T]>> }

/**
 * Every chart (the four builders and `vegaLiteChart`): Vega, Vega-Lite and vega-embed are a chunk
 * of their own, so pages without charts never fetch them. While it loads, the chart's space is kept.
 */
const VegaChart = lazyElement(() => import('../charts-lazy/render.js').then((m) => m.mount), {
  minHeight: (p: VegaLiteChartProps) => (typeof p.spec.height === 'number' ? p.spec.height + 40 : null),
})

/** `audioInput` and `cameraInput` (issue #36): one chunk draws both. */
const Capture = lazyElement(() => import('../lazy/capture.js').then((m) => m.mount), { formValue: true })

/** One renderer per catalogue entry; the mapped type makes a missing one a compile error. */
const REGISTRY: Registry = {
  title: Title,
  header: Header,
  subheader: Subheader,
  caption: Caption,
  markdown: Markdown,
  text: Text,
  code: Code,
  json: Json,
  divider: Divider,
  success: Success,
  info: Info,
  warning: Warning,
  error: ErrorAlert,
  exception: Exception,
  metric: Metric,
  table: Table,
  dataframe: Dataframe,
  lineChart: VegaChart,
  barChart: VegaChart,
  areaChart: VegaChart,
  scatterChart: VegaChart,
  image: Image,
  link: Link,
  progress: Progress,
  spinner: Spinner,
  columns: Columns,
  column: Column,
  tabs: Tabs,
  tab: Tab,
  expander: Expander,
  container: Container,
  form: Form,
  empty: Empty,
  button: Button,
  formSubmitButton: FormSubmitButton,
  checkbox: Checkbox,
  toggle: Toggle,
  radio: Radio,
  selectbox: Selectbox,
  multiselect: Multiselect,
  slider: Slider,
  textInput: TextInput,
  textArea: TextArea,
  numberInput: NumberInput,
  dateInput: DateInput,
  fileUploader: FileUploader,
  downloadButton: DownloadButton,
  dataEditor: DataEditor,
  chatMessage: ChatMessage,
  chatInput: ChatInput,
  dialog: Dialog,
  popover: Popover,
  status: Status,
  vegaLiteChart: VegaChart,
  audio: Audio,
  video: Video,
  pdf: Pdf,
  timeInput: TimeInput,
  colorPicker: ColorPicker,
  selectSlider: SelectSlider,
  pills: Pills,
  segmentedControl: SegmentedControl,
  feedback: Feedback,
  fragment: Fragment,
  // Custom components: the sandboxed iframe and its protocol load with the first one.
  component: lazyElement(() => import('../lazy/component.js').then((m) => m.mount), { minHeight: (p) => p.height ?? 150, formValue: true }),
  // Issue #25: each renderer is a lazily loaded chunk (pages without them load none of it).
  map: lazyElement(() => import('../lazy/map.js').then((m) => m.mount), { minHeight: (p) => p.height }),
  plotlyChart: lazyElement(() => import('../lazy/plotly.js').then((m) => m.mount), { minHeight: (p) => p.height ?? 450 }),
  html: lazyElement(() => import('../lazy/html.js').then((m) => m.mount)),
  iframe: lazyElement(() => import('../lazy/iframe.js').then((m) => m.mount), { minHeight: (p) => p.height }),
  // The shell draws the logo (app.tsx); the sidebar never shows it as an element.
  logo: () => null,
  balloons: lazyElement(() => import('../lazy/effects.js').then((m) => m.balloons), { headless: true }),
  snow: lazyElement(() => import('../lazy/effects.js').then((m) => m.snow), { headless: true }),
  // Issue #36: the typesetters, the capture inputs and help are lazily loaded chunks too.
  badge: Badge,
  latex: lazyElement(() => import('../lazy/latex.js').then((m) => m.mount)),
  graphvizChart: lazyElement(() => import('../lazy/graphviz.js').then((m) => m.mount), { minHeight: (p) => p.height }),
  datetimeInput: lazyElement(() => import('../lazy/datetime.js').then((m) => m.mount), { formValue: true, minHeight: () => 62 }),
  audioInput: Capture as Registry['audioInput'],
  cameraInput: Capture as Registry['cameraInput'],
  help: lazyElement(() => import('../lazy/help.js').then((m) => m.mount)),
}

export type AnyElement = FunctionComponent<ElementProps<unknown>>

export function elementFor(type: string): AnyElement | undefined {
  return Object.hasOwn(REGISTRY, type) ? (REGISTRY[type as ElementType] as AnyElement) : undefined
}
