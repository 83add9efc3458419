import type * as PlotlyApi from 'plotly.js-dist-min'
import plotlyHref from 'plotly.js-dist-min/plotly.min.js?url'
import type { PlotlyChartProps, PlotlyPointRef, PlotlyRegion, PlotlySelectionWire } from '../../wire/elements.js'
import cssHref from './plotly.css?url'
import { loadStylesheet } from './stylesheet.js'
import { cssVar, onThemeChange } from './theme-mode.js'
import { propsChanged, type MountView } from './view.js'

/**
 * `st.plotlyChart`: Plotly's own library in this lazily loaded chunk. Selections (a click, a box,
 * a lasso) go to the server as point references and regions, the widget value of the node; the
 * server's selection is drawn back with each trace's `selectedpoints`.
 */

const styles = loadStylesheet(new URL(cssHref, import.meta.url).href)
/**
 * Plotly adds its style rules, and its bundled MapLibre's, through `<style>` elements it appends
 * to <head>, which a Content-Security-Policy without `'unsafe-inline'` (svc's) refuses: the chart
 * would draw with its layers in a column instead of overlaid. While this chunk is loaded, a
 * `<style>` appended to <head> is turned into a constructed stylesheet adopted by the document
 * (CSSOM, which a CSP allows; only scripts already running can do this): the element gets that
 * sheet as its `sheet`, and a `<meta>` with its id stands in for it, so Plotly finds it again by
 * id and removing it drops the sheet.
 */
function adoptHeadStyles(): void {
  if (!('adoptedStyleSheets' in Document.prototype) || typeof CSSStyleSheet.prototype.replaceSync !== 'function') return
  const head = document.head
  const append = head.appendChild.bind(head)
  const sheets = new WeakMap<Node, CSSStyleSheet>()
  head.appendChild = function <T extends Node>(node: T): T {
    if (!(node instanceof HTMLStyleElement)) return append(node)
    const sheet = new CSSStyleSheet()
    sheet.replaceSync(node.textContent ?? '')
    const holder = document.createElement('meta')
    if (node.id) holder.id = node.id
    for (const el of [node, holder]) Object.defineProperty(el, 'sheet', { value: sheet, configurable: true })
    sheets.set(holder, sheet)
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]
    append(holder)
    return node
  }
  new MutationObserver((records) => {
    for (const r of records) {
      for (const node of r.removedNodes) {
        const sheet = sheets.get(node)
        if (sheet) document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet)
      }
    }
  }).observe(head, { childList: true })
}
adoptHeadStyles()

/**
 * Plotly's own minified bundle, served as a file next to this chunk and run as a classic script
 * (it defines `window.Plotly`): bundling it would only re-minify 4.7 MB of minified code.
 */
const library = new Promise<typeof PlotlyApi>((resolve, reject) => {
  const script = document.createElement('script')
  script.src = new URL(plotlyHref, import.meta.url).href
  script.onload = () => resolve((window as unknown as { Plotly: typeof PlotlyApi }).Plotly)
  script.onerror = () => reject(new Error(`could not load ${script.src}`))
  document.head.append(script)
})
const DEFAULT_HEIGHT = 450
const PALETTE_SIZE = 10

type Layout = Record<string, unknown>
type Trace = Record<string, unknown>
interface PlotlyPointEvent { curveNumber: number; pointIndex?: number; pointNumber?: number }
interface SelectEvent { points?: PlotlyPointEvent[]; range?: Record<string, (number | string)[]>; lassoPoints?: Record<string, (number | string)[]> }
/** The graph div once Plotly has drawn into it. */
type GraphDiv = HTMLDivElement & { on(event: string, fn: (e: SelectEvent | undefined) => void): void }

/** Fonts, colours and grid from the page theme's CSS custom properties, as a Plotly layout template. */
function themeLayout(): Layout {
  const css = cssVar
  const muted = css('--svc-text-muted')
  const grid = css('--svc-border')
  const axis = { gridcolor: grid, linecolor: css('--svc-border-strong'), zerolinecolor: css('--svc-border-strong'), tickcolor: grid, tickfont: { color: muted }, title: { font: { color: muted } } }
  const palette = Array.from({ length: PALETTE_SIZE }, (_v, i) => css(`--svc-chart-${i + 1}`)).filter((c): c is string => c !== undefined)
  return {
    paper_bgcolor: 'rgba(0,0,0,0)',
    plot_bgcolor: 'rgba(0,0,0,0)',
    font: { family: css('--svc-font'), color: css('--svc-text'), size: 12 },
    title: { font: { color: css('--svc-text') } },
    ...(palette.length ? { colorway: palette } : {}),
    xaxis: axis,
    yaxis: axis,
    legend: { font: { color: muted } },
    hoverlabel: { bgcolor: css('--svc-bg'), bordercolor: grid, font: { color: css('--svc-text'), family: css('--svc-font') } },
    modebar: { bgcolor: 'rgba(0,0,0,0)', color: muted, activecolor: css('--svc-accent') },
    margin: { t: 40, r: 20, b: 48, l: 56 },
  }
}

/** Pairs `x…`/`y…` keys of Plotly's event ranges into regions (`x`/`y`, `x2`/`y2` for subplots). */
function regions(ranges: Record<string, (number | string)[]> | undefined): PlotlyRegion[] {
  if (!ranges) return []
  return Object.keys(ranges)
    .filter((k) => /^x\d*$/.test(k) && ranges[`y${k.slice(1)}`])
    .map((k) => ({ xref: k, yref: `y${k.slice(1)}`, x: ranges[k]!, y: ranges[`y${k.slice(1)}`]! }))
}

function refs(points: PlotlyPointEvent[] | undefined): PlotlyPointRef[] {
  return (points ?? []).map((p) => [p.curveNumber, p.pointIndex ?? p.pointNumber ?? 0])
}

/** The figure with the selection drawn (`selectedpoints`) and svc's defaults for height, drag mode and theme. */
function drawable(props: PlotlyChartProps): { data: Trace[]; layout: Layout } {
  const { figure, selection, selectionMode } = props
  const picked = new Map<number, number[]>()
  for (const [curve, index] of selection.points) picked.set(curve, [...(picked.get(curve) ?? []), index])
  const selecting = selection.points.length > 0 || selection.box.length > 0 || selection.lasso.length > 0
  const data = figure.data.map((t, i) => (selecting ? { ...t, selectedpoints: picked.get(i) ?? [] } : t))
  const layout: Layout = { ...figure.layout }
  layout.height = props.height ?? (typeof layout.height === 'number' ? layout.height : DEFAULT_HEIGHT)
  if (props.useContainerWidth) {
    layout.autosize = true
    delete layout.width
  }
  if (selectionMode && layout.dragmode === undefined) {
    layout.dragmode = selectionMode.includes('box') ? 'select' : selectionMode.includes('lasso') ? 'lasso' : 'zoom'
  }
  if (selectionMode?.includes('points') && layout.clickmode === undefined) layout.clickmode = 'event+select'
  if (props.theme === 'svc' && layout.template === undefined) layout.template = { layout: themeLayout() }
  return { data, layout }
}

/** The parts of the props that need a redraw when they change (the selection is handled apart). */
function figureOf(p: PlotlyChartProps): unknown[] {
  return [p.figure, p.config, p.theme, p.height, p.useContainerWidth, p.selectionMode]
}

export const mount: MountView<PlotlyChartProps> = (el, initial, host) => {
  const graph = el as GraphDiv
  el.classList.add('svc-plotly')
  let props = initial
  const figureChanged = propsChanged(figureOf(props))
  // What the browser last sent: the server echoing it back needs no redraw (Plotly shows it
  // already); a selection the server changed (a reset, a value from st.sessionState) is drawn.
  let sent = JSON.stringify(props.selection)
  let listening = false

  const send = (wire: PlotlySelectionWire) => {
    const json = JSON.stringify(wire)
    // A click reports itself twice (a click, and a selection with `clickmode: 'event+select'`).
    if (!props.selectionMode || json === sent) return
    sent = json
    host.sendValue(wire)
  }
  // The graph div has its `on` method once Plotly has drawn into it.
  const listen = () => {
    if (listening) return
    listening = true
    graph.on('plotly_selected', (e) => {
      // A finished box or lasso; `undefined` is a click on empty space.
      if (!e) return
      send({ points: refs(e.points), box: e.range ? regions(e.range) : [], lasso: e.lassoPoints ? regions(e.lassoPoints) : [] })
    })
    graph.on('plotly_click', (e) => {
      if (!props.selectionMode?.includes('points') || !e?.points?.length) return
      send({ points: refs(e.points).slice(0, 1), box: [], lasso: [] })
    })
    graph.on('plotly_deselect', () => send({ points: [], box: [], lasso: [] }))
  }
  let Plotly: typeof PlotlyApi | null = null
  const draw = async () => {
    Plotly ??= await library
    const { data, layout } = drawable(props)
    await Plotly.react(graph, data as never, layout as never, props.config as never)
    listen()
  }
  const ready = draw()
    .then(() => styles.catch(() => undefined))
    .catch((e: unknown) => {
      throw new Error(`Chart error: ${e instanceof Error ? e.message : String(e)}`)
    })
  const stopTheme = onThemeChange(() => void draw())
  // Plotly follows window resizes only (`responsive`); a chart in a column or tab follows its box.
  const observer = new ResizeObserver(() => {
    if (graph.clientWidth > 0 && Plotly) void Plotly.Plots.resize(graph)
  })
  observer.observe(graph)
  return {
    ready,
    view: {
      update(next) {
        const newFigure = figureChanged(figureOf(next))
        const selection = JSON.stringify(next.selection)
        const redraw = newFigure || selection !== sent
        props = next
        sent = selection
        if (redraw) void draw()
      },
      destroy() {
        stopTheme()
        observer.disconnect()
        Plotly?.purge(graph)
      },
    },
  }
}
