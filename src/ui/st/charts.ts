import { z } from '../../internal/zod.js'
import { SvcError } from '../../errors.js'
import type { Cell, VegaLiteChartProps } from '../wire/elements.js'
import type { ChartOptions, TableData, VegaLiteChartOptions } from '../st-types.js'
import { normalizeTable, type Tabular } from './data.js'
import { toJsonSafe } from './values.js'

/**
 * Charts are Vega-Lite specs built here, on the server, and rendered by one client renderer.
 * `lineChart`, `barChart`, `areaChart` and `scatterChart` are thin builders over `vegaLiteChart`.
 */

export type ChartKind = 'line' | 'bar' | 'area' | 'scatter'
type Spec = Record<string, unknown>

const DEFAULT_HEIGHT = 300
/** A day: `2026-01-31`, or a `Date` at UTC midnight (serialised as `2026-01-31T00:00:00.000Z`). */
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}(T00:00(:00(\.0+)?)?Z)?$/

/** Vega-Lite reads `.`, `[` and `]` in a field name as a path; a backslash makes them literal. */
export function fieldRef(name: string): string {
  return name.replace(/[.[\]\\]/g, '\\$&')
}

/** A key not used by any column, for the fields the spec adds (row index, folded series/value). */
function freeKey(wanted: string, taken: ReadonlySet<string>): string {
  let key = wanted
  while (taken.has(key)) key = `_${key}`
  return key
}

function toNumber(v: Cell): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN
  return Number.isFinite(n) ? n : null
}

const DAY_MS = 86_400_000
/** A bar chart over days spans at least this many, so one day (or a few) draws bars of a sensible width. */
const MIN_BAR_DAYS = 7
/** Up to this many days on the axis, one tick per day (automatic ticks at 12:00 would repeat a day's label). */
const DAILY_TICKS_UP_TO = 16
/** A day's bar takes this share of the day, so neighbouring days stand apart. */
const DAY_BAR_WIDTH = 0.8

function times(cells: (Cell | undefined)[]): number[] {
  return cells.filter((c): c is string => typeof c === 'string').map((c) => Date.parse(c))
}

function daySpan(cells: (Cell | undefined)[]): number {
  const t = times(cells)
  return t.length ? (Math.max(...t) - Math.min(...t)) / DAY_MS : 0
}

/**
 * Bars over days: each bar centred on its day's tick (`bandPosition: 0`), half a day of room at
 * either end, and at least `MIN_BAR_DAYS` on the axis. Without that, one day was a single bar
 * across the whole plot over an axis reading "Nov 28 · Nov 28 · Nov 29".
 */
function dayBarAxis(cells: (Cell | undefined)[]): { scale: Spec; daily: boolean } {
  const t = times(cells)
  if (t.length === 0) return { scale: { type: 'utc' }, daily: false }
  let lo = Math.min(...t) - DAY_MS / 2
  let hi = Math.max(...t) + DAY_MS / 2
  const short = MIN_BAR_DAYS * DAY_MS - (hi - lo)
  if (short > 0) {
    lo -= Math.floor(short / DAY_MS / 2) * DAY_MS
    hi = lo + MIN_BAR_DAYS * DAY_MS
  }
  return { scale: { type: 'utc', domain: [dateTime(lo), dateTime(hi)] }, daily: hi - lo <= DAILY_TICKS_UP_TO * DAY_MS }
}

/**
 * A Vega-Lite DateTime in UTC. A number would compile to `datetime(ms)`, which the expression
 * interpreter the browser uses (no eval under the page CSP) reads as a year: an empty axis.
 */
function dateTime(ms: number): Spec {
  const d = new Date(ms)
  return { utc: true, year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, date: d.getUTCDate(), hours: d.getUTCHours() }
}

interface Columns {
  table: Tabular
  x: { key: string; index: number; title: string | null }
  ys: { name: string; index: number }[]
}

function pickColumns(table: Tabular, o: ChartOptions): Columns {
  const names = table.columns.map((c) => c.name)
  const xIndex = o.x === undefined ? -1 : names.indexOf(o.x)
  if (o.x !== undefined && xIndex < 0) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `chart x column "${o.x}" is not in the data (columns: ${names.join(', ') || 'none'})`)
  }
  const wanted = o.y === undefined ? null : Array.isArray(o.y) ? (o.y as string[]) : [o.y as string]
  if (wanted) {
    const missing = wanted.filter((w) => !names.includes(w))
    if (missing.length) throw new SvcError('SVC_ERR_UI_BAD_CALL', `chart y column(s) ${missing.map((m) => `"${m}"`).join(', ')} not in the data (columns: ${names.join(', ') || 'none'})`)
  }
  const ys = wanted
    ? wanted.map((name) => ({ name, index: names.indexOf(name) }))
    : table.columns.map((c, index) => ({ name: c.name, index, kind: c.kind })).filter((c) => c.index !== xIndex && c.kind === 'number')
  if (ys.length === 0 && table.rows.length > 0) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `chart has no numeric column to plot (columns: ${names.join(', ')}); name the value column(s) with { y: [...] }`)
  }
  const x = xIndex < 0 ? { key: freeKey('index', new Set(names)), index: -1, title: null } : { key: names[xIndex]!, index: xIndex, title: names[xIndex]! }
  return { table, x, ys: ys.map(({ name, index }) => ({ name, index })) }
}

/**
 * The Vega-Lite spec of a built-in chart. Rows stay wide (one object per x, one key per series, the
 * smallest payload) and a `fold` transform turns them into series for colour and legend.
 */
export function buildChartSpec(kind: ChartKind, data: TableData, o: ChartOptions = {}): Spec {
  const { table, x, ys } = pickColumns(normalizeTable(data, o.columns), o)
  const names = new Set([...table.columns.map((c) => c.name), x.key])
  const seriesKey = freeKey('series', names)
  const valueKey = freeKey('value', names)

  const xColumn = x.index < 0 ? null : table.columns[x.index]!
  const values = table.rows.map((r, i) => {
    const row: Record<string, Cell> = { [x.key]: x.index < 0 ? i : (r[x.index] ?? null) }
    for (const y of ys) row[y.name] = toNumber(r[y.index] ?? null)
    return row
  })
  const xCells = values.map((v) => v[x.key])
  const time = xColumn?.kind === 'date'
  const dateOnly = time && xCells.every((v) => v === null || (typeof v === 'string' && DATE_ONLY.test(v)))
  const categorical = xColumn !== null && xColumn.kind !== 'number' && !time

  // Bars sit on a band scale; days are the exception (one bar per day on a time axis).
  const xType = time && (kind !== 'bar' || dateOnly) ? 'temporal' : categorical || time ? 'nominal' : kind === 'bar' ? 'ordinal' : 'quantitative'
  const xEnc: Spec = { field: fieldRef(x.key), type: xType, title: o.xLabel ?? x.title }
  if (xType === 'nominal' || xType === 'ordinal') xEnc.sort = null
  // Lines and areas run edge to edge; points keep round axis ends.
  if (xType === 'quantitative') xEnc.scale = { zero: false, nice: kind === 'scatter' }
  const dayBars = dateOnly && kind === 'bar' ? dayBarAxis(xCells) : null
  if (dayBars) Object.assign(xEnc, { timeUnit: 'utcyearmonthdate', bandPosition: 0, scale: dayBars.scale })
  else if (dateOnly) xEnc.scale = { type: 'utc' }
  if (xType === 'temporal') {
    const days = daySpan(xCells)
    xEnc.axis = { format: days > 400 ? '%b %Y' : days >= 3 || dateOnly ? '%b %d' : '%b %d %H:%M', ...(dayBars?.daily ? { tickCount: { interval: 'day', step: 1 } } : {}) }
  }

  const multi = ys.length > 1
  const colors = o.color === undefined ? [] : Array.isArray(o.color) ? (o.color as string[]) : [o.color as string]
  const stacked = (o.stacked ?? false) && (kind === 'bar' || kind === 'area')
  const yEnc: Spec = {
    field: valueKey,
    type: 'quantitative',
    title: o.yLabel ?? (multi ? null : (ys[0]?.name ?? null)),
    // Lines and points fit the data; bars and areas are measured from zero.
    scale: { zero: kind === 'bar' || kind === 'area' },
    stack: stacked ? 'zero' : null,
  }
  const colorEnc: Spec | null = multi
    ? {
        field: seriesKey,
        type: 'nominal',
        title: null,
        sort: ys.map((y) => y.name),
        legend: { orient: 'top', direction: 'horizontal' },
        ...(colors.length ? { scale: { domain: ys.map((y) => y.name), range: ys.map((y, i) => colors[i] ?? colors[i % colors.length]!) } } : {}),
      }
    : null
  const fold = { fold: ys.map((y) => fieldRef(y.name)), as: [seriesKey, valueKey] }
  const seriesEnc = { y: yEnc, ...(colorEnc ? { color: colorEnc } : {}) }
  const single = !multi && colors[0] ? { color: colors[0] } : {}
  const tooltipTitle = o.xLabel ?? x.title ?? 'index'
  const xTip: Spec = { ...xEnc, title: tooltipTitle, ...(xType === 'temporal' ? { format: dateOnly ? '%b %d, %Y' : '%b %d, %Y %H:%M' } : {}) }
  delete xTip.sort
  delete xTip.scale
  delete xTip.axis
  delete xTip.bandPosition
  // Fold keeps each row's wide fields, so every mark's tooltip lists the x value and all series.
  const tooltip = [xTip, ...ys.map((y) => ({ field: fieldRef(y.name), type: 'quantitative', title: y.name, format: ',' }))]

  let body: Spec
  if (kind === 'scatter') {
    body = {
      transform: [fold],
      mark: { type: 'point', filled: true, size: 64, opacity: 0.8, ...single },
      encoding: {
        x: xEnc,
        ...seriesEnc,
        tooltip,
      },
    }
  } else if (kind === 'bar') {
    body = {
      transform: [fold],
      // Rounded stacks are drawn in a group per x that Vega-Lite places without the day bars' offset (they vanished).
      mark: { type: 'bar', ...(stacked && dayBars ? {} : { cornerRadiusEnd: 2 }), ...single },
      encoding: {
        x: xEnc,
        ...seriesEnc,
        ...(multi && !stacked ? { xOffset: { field: seriesKey, sort: ys.map((y) => y.name) } } : {}),
        tooltip,
      },
    }
  } else {
    // Lines and areas: one hover rule per x, nearest to the pointer, whose tooltip lists every series.
    const mark: Spec =
      kind === 'line'
        ? { type: 'line', strokeWidth: 2, ...single }
        : { type: 'area', opacity: stacked ? 0.7 : 0.25, line: { strokeWidth: 2 }, ...single }
    body = {
      encoding: { x: xEnc },
      layer: [
        { transform: [fold], mark, encoding: seriesEnc },
        {
          transform: [fold],
          mark: { type: 'point', filled: true, size: 60, ...single },
          encoding: { ...seriesEnc, opacity: { condition: { param: 'hover', empty: false, value: 1 }, value: 0 } },
        },
        {
          mark: { type: 'rule', strokeDash: [3, 3] },
          params: [{ name: 'hover', select: { type: 'point', fields: [fieldRef(x.key)], nearest: true, on: 'pointerover', clear: 'pointerout' } }],
          encoding: {
            opacity: { condition: { param: 'hover', empty: false, value: 1 }, value: 0 },
            tooltip,
          },
        },
      ],
    }
  }
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values },
    height: o.height ?? DEFAULT_HEIGHT,
    ...(o.useContainerWidth === false && o.width !== undefined ? { width: o.width } : {}),
    ...body,
    // Vega-Lite reads a time unit's bar width from the config only.
    ...(dayBars ? { config: { bar: { timeUnitBandSize: DAY_BAR_WIDTH } } } : {}),
  }
}

export function chartProps(kind: ChartKind, data: TableData, o: ChartOptions = {}): VegaLiteChartProps {
  return { spec: buildChartSpec(kind, data, o), useContainerWidth: o.useContainerWidth ?? true, theme: 'svc' }
}

const vegaLiteOptions = z
  .object({
    data: z.custom<TableData>((v) => typeof v === 'object' && v !== null, { message: 'must be an array of records, an array of arrays, or an object of column arrays' }).optional(),
    columns: z.array(z.string()).optional(),
    height: z.number().positive().optional(),
    width: z.number().positive().optional(),
    useContainerWidth: z.boolean().optional(),
    theme: z.enum(['svc']).nullable().optional(),
  })
  .strict()
const specShape = z.record(z.string(), z.unknown()).refine((s) => !Array.isArray(s), 'must be an object')

/** `vegaLiteChart(spec, options)`: the user's spec, with `options.data` inlined and sizes applied. */
export function vegaLiteProps(spec: unknown, options: VegaLiteChartOptions = {}): VegaLiteChartProps {
  const o = vegaLiteOptions.safeParse(options)
  if (!o.success) {
    const issue = o.error.issues[0]!
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `vegaLiteChart(): option ${issue.path.join('.') || '(options)'} ${issue.message} (options: data, columns, height, width, useContainerWidth, theme: 'svc' | null)`)
  }
  if (Array.isArray(spec) || !specShape.safeParse(spec).success) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', 'vegaLiteChart(): the spec must be a Vega-Lite spec object, e.g. { mark: "bar", encoding: { ... } }')
  }
  const out = toJsonSafe(spec) as Spec
  if (o.data.data !== undefined) {
    const table = normalizeTable(o.data.data, o.data.columns)
    out.data = { values: table.rows.map((r) => Object.fromEntries(table.columns.map((c, i) => [c.name, r[i] ?? null]))) }
  }
  if (o.data.height !== undefined) out.height = o.data.height
  const useContainerWidth = o.data.useContainerWidth ?? true
  if (!useContainerWidth && o.data.width !== undefined) out.width = o.data.width
  return { spec: out, useContainerWidth, theme: o.data.theme === undefined ? 'svc' : o.data.theme }
}
