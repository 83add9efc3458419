import { SvcError } from '../../errors.js'
import type { Sparkline } from '../wire/elements.js'

/**
 * Sparklines for `st.metric(…, { chartData })` and the chart columns of `st.dataframe`: the
 * server turns the numbers into one SVG path in a 100 × 30 box (y down), so the browser only
 * places it and `app.js` carries no charting code. Values that are not finite numbers are left
 * out, as Streamlit does.
 */

export type SparklineKind = Sparkline['kind']
export const SPARKLINE_KINDS: readonly SparklineKind[] = ['line', 'bar', 'area']

const WIDTH = 100
const HEIGHT = 30
/** The line's stroke stays inside the box at the extremes. */
const PAD = 1.5

const round = (n: number): string => String(Math.round(n * 100) / 100)

/** The finite numbers of `data` (numbers or numeric strings); an error names what else it got. */
export function sparklineValues(call: string, data: unknown): number[] {
  if (!Array.isArray(data) && !(data instanceof Float64Array || data instanceof Int32Array || data instanceof Float32Array)) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: chartData must be a list of numbers, got ${data === null ? 'null' : typeof data}`)
  }
  const out: number[] = []
  for (const v of Array.from(data as ArrayLike<unknown>)) {
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN
    if (Number.isFinite(n)) out.push(n)
  }
  return out
}

/**
 * The path of `values` as a `kind` sparkline; null when there is nothing to draw. `yMin`/`yMax`
 * fix the vertical range (default: the data's, and for bars from zero).
 */
export function sparkline(kind: SparklineKind, values: readonly number[], yMin: number | null = null, yMax: number | null = null): Sparkline | null {
  if (values.length === 0) return null
  let lo = yMin ?? Math.min(...values)
  let hi = yMax ?? Math.max(...values)
  if (kind === 'bar') {
    if (yMin === null) lo = Math.min(0, lo)
    if (yMax === null) hi = Math.max(0, hi)
  }
  const span = hi - lo
  const y = (v: number): number => (span > 0 ? HEIGHT - PAD - ((Math.min(hi, Math.max(lo, v)) - lo) / span) * (HEIGHT - 2 * PAD) : HEIGHT / 2)
  if (kind === 'bar') {
    const slot = WIDTH / values.length
    const w = slot * 0.8
    const base = span > 0 ? y(Math.min(hi, Math.max(lo, 0))) : HEIGHT - PAD
    const d = values
      .map((v, i) => {
        const top = span > 0 ? y(v) : PAD
        const [from, to] = top < base ? [top, base] : [base, top]
        // A zero bar still shows as a hairline, so the count of values reads off the chart.
        return `M${round(i * slot + (slot - w) / 2)} ${round(from)}h${round(w)}v${round(Math.max(0.5, to - from))}h${round(-w)}z`
      })
      .join('')
    return { kind, d }
  }
  const points = values.length === 1 ? [[0, y(values[0]!)], [WIDTH, y(values[0]!)]] : values.map((v, i) => [(i / (values.length - 1)) * WIDTH, y(v)])
  return { kind, d: points.map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${round(px!)} ${round(py!)}`).join('') }
}

/** The `chart` of a metric from its `chartData` / `chartType` (nothing when there is no data). */
export function metricChart(label: string, o: { chartData?: readonly (number | null)[]; chartType?: SparklineKind }): { chart?: Sparkline } {
  if (o.chartData === undefined) return {}
  const call = `metric("${String(label).slice(0, 40)}")`
  const kind = o.chartType ?? 'line'
  if (!SPARKLINE_KINDS.includes(kind)) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: chartType must be ${SPARKLINE_KINDS.map((k) => `'${k}'`).join(', ')}, got ${JSON.stringify(kind)}`)
  const chart = sparkline(kind, sparklineValues(call, o.chartData))
  return chart === null ? {} : { chart }
}
