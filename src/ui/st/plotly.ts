import { z } from '../../internal/zod.js'
import { SvcError } from '../../errors.js'
import type { PlotlyChartProps, PlotlyPointRef, PlotlyRegion, PlotlySelectionWire } from '../wire/elements.js'
import type { Callback, PlotlyChartOptions, PlotlyFigure, PlotlyPoint, PlotlySelection } from '../st-types.js'
import type { Emitter } from './run-context.js'

/**
 * `st.plotlyChart(figure, options)`: a Plotly figure drawn by Plotly's own library (a lazily loaded
 * chunk). With `onSelect` it is a widget whose value is the visitor's selection (clicked points, a
 * box or a lasso). The browser sends only point references and regions; the points the page gets
 * are read from the figure here, so they always hold the figure's own values.
 */

type Mode = 'points' | 'box' | 'lasso'
type Trace = Record<string, unknown>

const MODES: readonly Mode[] = ['points', 'box', 'lasso']
const DEFAULT_CONFIG = { displaylogo: false, responsive: true }
/** Trace arrays copied into a selected point, and the name they get there. */
const POINT_FIELDS: readonly (readonly [string, keyof PlotlyPoint])[] = [
  ['x', 'x'], ['y', 'y'], ['z', 'z'], ['lat', 'lat'], ['lon', 'lon'], ['customdata', 'customdata'], ['text', 'text'],
  ['labels', 'label'], ['values', 'value'], ['locations', 'location'], ['r', 'r'], ['theta', 'theta'],
]
const EMPTY: PlotlySelectionWire = { points: [], box: [], lasso: [] }

const options = z
  .object({
    key: z.string().optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    theme: z.enum(['svc']).nullable().optional(),
    onSelect: z.union([z.enum(['ignore', 'rerun']), z.custom<Callback<PlotlySelection>>((v) => typeof v === 'function', { message: "must be 'ignore', 'rerun' or a function" })]).optional(),
    selectionMode: z.union([z.enum(['points', 'box', 'lasso']), z.array(z.enum(['points', 'box', 'lasso'])).min(1)]).optional(),
    height: z.number().int().min(50).max(10_000).optional(),
    useContainerWidth: z.boolean().optional(),
  })
  .strict()

const axisValue = z.union([z.number().finite(), z.string().max(64)])
const region = z.object({ xref: z.string().regex(/^x\d*$/), yref: z.string().regex(/^y\d*$/), x: z.array(axisValue).max(10_000), y: z.array(axisValue).max(10_000) }).strict()
const wireSchema = z
  .object({
    points: z.array(z.tuple([z.number().int().min(0), z.number().int().min(0)])).max(1_000_000),
    box: z.array(region).max(64),
    lasso: z.array(region).max(64),
  })
  .strict()

function bad(message: string): never {
  throw new SvcError('SVC_ERR_UI_BAD_CALL', `plotlyChart(): ${message}`)
}

/** The figure as plain JSON: typed arrays become arrays, Dates ISO strings, NaN null (a gap, as Plotly draws it). */
function plainFigure(figure: unknown): PlotlyChartProps['figure'] {
  const shaped = Array.isArray(figure) ? { data: figure } : figure
  if (typeof shaped !== 'object' || shaped === null || !Array.isArray((shaped as { data?: unknown }).data)) {
    bad('the figure must be { data: [traces], layout?: {...} } (or the array of traces)')
  }
  let json: string
  try {
    json = JSON.stringify(shaped, (_k, v: unknown) =>
      ArrayBuffer.isView(v) && !(v instanceof DataView) ? Array.from(v as unknown as ArrayLike<number | bigint>, (n) => (typeof n === 'bigint' ? Number(n) : n))
        : typeof v === 'bigint' ? Number(v)
          : v,
    )
  } catch (e) {
    bad(`the figure cannot be sent as JSON (${e instanceof Error ? e.message : String(e)})`)
  }
  const plain = JSON.parse(json) as { data: unknown[]; layout?: unknown; frames?: unknown }
  if (!plain.data.every((t) => typeof t === 'object' && t !== null && !Array.isArray(t))) bad('every trace in figure.data must be an object, e.g. { type: "scatter", x: [...], y: [...] }')
  const layout = plain.layout === undefined || plain.layout === null ? {} : plain.layout
  if (typeof layout !== 'object' || Array.isArray(layout)) bad('figure.layout must be an object')
  return { data: plain.data as Trace[], layout: layout as Record<string, unknown>, frames: Array.isArray(plain.frames) ? plain.frames : null }
}

/** How many points a trace has (its longest data array), or null when it has none to count. */
function pointCount(trace: Trace): number | null {
  let n: number | null = null
  for (const [field] of POINT_FIELDS) {
    const v = trace[field]
    if (Array.isArray(v)) n = Math.max(n ?? 0, v.length)
  }
  return n
}

function pointOf(traces: readonly Trace[], [curveNumber, pointIndex]: PlotlyPointRef): PlotlyPoint {
  const point: PlotlyPoint = { curveNumber, pointIndex, pointNumber: pointIndex }
  const trace = traces[curveNumber]!
  for (const [field, name] of POINT_FIELDS) {
    const v = trace[field]
    if (Array.isArray(v) && pointIndex < v.length) (point as unknown as Record<string, unknown>)[name] = v[pointIndex]
  }
  return point
}

export function plotlyChart(em: Emitter, figure: PlotlyFigure, input: PlotlyChartOptions = {}): PlotlySelection | undefined {
  const parsed = options.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    bad(`option ${issue.path.join('.') || '(options)'} ${issue.message} (options: key, config, theme: 'svc' | null, onSelect, selectionMode, height, useContainerWidth)`)
  }
  const o = parsed.data
  const fig = plainFigure(figure)
  const base: Omit<PlotlyChartProps, 'selectionMode' | 'selection'> = {
    figure: fig,
    config: { ...DEFAULT_CONFIG, ...(o.config ?? {}) },
    theme: o.theme === undefined ? 'svc' : o.theme,
    height: o.height ?? null,
    useContainerWidth: o.useContainerWidth ?? true,
  }
  const onSelect = o.onSelect ?? 'ignore'
  if (onSelect === 'ignore') {
    em.emit('plotlyChart', { ...base, selectionMode: null, selection: EMPTY }, o.key !== undefined ? `plotly-${o.key}` : undefined)
    return undefined
  }
  if (em.formId !== null) bad(`a chart with onSelect cannot be inside form "${em.formId}"; draw it outside the form`)
  const modes = MODES.filter((m) => (Array.isArray(o.selectionMode) ? o.selectionMode.includes(m) : (o.selectionMode ?? m) === m))
  const counts = fig.data.map(pointCount)

  const toWire = (raw: unknown): PlotlySelectionWire => {
    const w = wireSchema.safeParse(raw)
    if (!w.success) bad('invalid widget value: expected { points: [[curve, index], ...], box: [...], lasso: [...] }')
    const { points, box, lasso } = w.data
    for (const [curve, index] of points) {
      if (curve >= counts.length) bad(`invalid widget value: no trace ${curve} (the figure has ${counts.length})`)
      const count = counts[curve]!
      if (count !== null && index >= count) bad(`invalid widget value: no point ${index} in trace ${curve}`)
    }
    if (points.length > 0 && !modes.includes('points') && box.length === 0 && lasso.length === 0) bad('invalid widget value: point selection is off')
    if (box.length > 0 && !modes.includes('box')) bad('invalid widget value: box selection is off')
    if (lasso.length > 0 && !modes.includes('lasso')) bad('invalid widget value: lasso selection is off')
    if (box.some((r) => r.x.length !== 2 || r.y.length !== 2)) bad('invalid widget value: a box has two x and two y values')
    if (lasso.some((r) => r.x.length < 3 || r.x.length !== r.y.length)) bad('invalid widget value: a lasso has three or more vertices')
    const seen = new Set<string>()
    const unique = points.filter(([c, i]) => !seen.has(`${c}:${i}`) && seen.add(`${c}:${i}`)).sort((a, b) => a[0] - b[0] || a[1] - b[1])
    return { points: unique, box: box as PlotlyRegion[], lasso: lasso as PlotlyRegion[] }
  }
  const result = (w: PlotlySelectionWire): PlotlySelection => {
    const points = w.points.map((ref) => pointOf(fig.data, ref))
    return { selection: { points, pointIndices: points.map((p) => p.pointIndex), box: w.box, lasso: w.lasso } }
  }
  // `st.sessionState[key]` may hold what the page got (a PlotlySelection) or the wire form.
  const fromState = (v: unknown): PlotlySelectionWire => {
    const sel = (v as { selection?: { points?: unknown; box?: unknown; lasso?: unknown } } | null)?.selection
    if (!sel) return toWire(v)
    const points = Array.isArray(sel.points) ? sel.points.map((p) => [(p as PlotlyPoint).curveNumber, (p as PlotlyPoint).pointIndex]) : []
    return toWire({ points, box: sel.box ?? [], lasso: sel.lasso ?? [] })
  }
  const r = em.ctx.widget<PlotlySelectionWire>({
    type: 'plotlyChart', label: '', key: o.key, identity: [modes, counts], formId: null, default: EMPTY,
    deserialize: toWire,
    fromState,
    onChange: typeof onSelect === 'function' ? (w) => onSelect(result(w)) : undefined,
  })
  em.ctx.widgetDefaults.set(r.id, EMPTY)
  // A kept selection may predate the figure shrinking: references past its points are gone.
  const kept = r.value.points.filter(([c, i]) => c < counts.length && (counts[c] === null || i < (counts[c] ?? 0)))
  const value = { ...r.value, points: kept }
  em.emit('plotlyChart', { ...base, selectionMode: modes, selection: value }, r.id)
  return result(value)
}
