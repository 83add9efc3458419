import { describe, expect, it } from 'vitest'
import { parse, View } from 'vega'
import { expressionInterpreter } from 'vega-interpreter'
import { compile, type TopLevelSpec } from 'vega-lite'
import { SvcError } from '../../../src/errors.js'
import { buildChartSpec, chartProps, fieldRef, vegaLiteProps, type ChartKind } from '../../../src/ui/st/charts.js'

type Spec = Record<string, any>

const traffic = [
  { day: '2026-01-01', api: 900, ui: 400, note: 'a' },
  { day: '2026-01-02', api: 950, ui: null, note: 'b' },
  { day: '2026-01-03', api: 1010, ui: 430, note: 'c' },
]

/** Compiles with Vega-Lite and runs the dataflow in Vega with the expression interpreter (as the browser does). */
async function runSpec(spec: Spec): Promise<{ marks: Record<string, number>; bars: { x: number; width: number }[] }> {
  const { spec: vg } = compile({ ...spec, width: 400 } as TopLevelSpec)
  const view = new View(parse(vg, undefined, { ast: true }), { renderer: 'none', expr: expressionInterpreter } as never)
  await view.runAsync()
  const marks: Record<string, number> = {}
  const bars: { x: number; width: number }[] = []
  const walk = (item: any, dx: number) => {
    if (item.marktype && item.role === 'mark') marks[item.marktype] = (marks[item.marktype] ?? 0) + item.items.length
    if (item.mark?.marktype === 'rect' && item.mark.role === 'mark') bars.push({ x: dx + item.x, width: item.width })
    for (const child of item.items ?? []) walk(child, dx + (item.mark?.marktype === 'group' ? (item.x ?? 0) : 0))
  }
  walk((view.scenegraph() as unknown as { root: unknown }).root, 0)
  view.finalize()
  return { marks, bars }
}

describe('chart spec builders', () => {
  it('line: wide rows folded into series, legend, y fitted to the data, one tooltip per x listing every series', () => {
    const spec: Spec = buildChartSpec('line', traffic, { x: 'day', y: ['api', 'ui'], yLabel: 'Requests' })
    expect(spec.data.values).toEqual([
      { day: '2026-01-01', api: 900, ui: 400 },
      { day: '2026-01-02', api: 950, ui: null },
      { day: '2026-01-03', api: 1010, ui: 430 },
    ])
    expect(spec.height).toBe(300)
    expect(spec.encoding.x).toMatchObject({ field: 'day', type: 'temporal', scale: { type: 'utc' }, axis: { format: '%b %d' } })
    const [line, points, rule] = spec.layer
    expect(line.transform).toEqual([{ fold: ['api', 'ui'], as: ['series', 'value'] }])
    expect(line.mark.type).toBe('line')
    expect(line.encoding.y).toMatchObject({ field: 'value', title: 'Requests', scale: { zero: false }, stack: null })
    expect(line.encoding.color).toMatchObject({ field: 'series', sort: ['api', 'ui'], legend: { orient: 'top' } })
    expect(points.encoding.opacity.condition.param).toBe('hover')
    expect(rule.params[0].select).toMatchObject({ type: 'point', fields: ['day'], nearest: true })
    expect(rule.encoding.tooltip.map((t: Spec) => t.title)).toEqual(['day', 'api', 'ui'])
  })

  it('defaults y to every numeric column but x, and x to the row index', () => {
    const spec: Spec = buildChartSpec('area', [{ a: 1, b: 'x', c: 2 }, { a: 3, b: 'y', c: 4 }])
    expect(spec.data.values).toEqual([{ index: 0, a: 1, c: 2 }, { index: 1, a: 3, c: 4 }])
    expect(spec.encoding.x).toMatchObject({ field: 'index', type: 'quantitative', title: null })
    expect(spec.layer[0].transform[0].fold).toEqual(['a', 'c'])
    // An area is measured from zero.
    expect(spec.layer[0].encoding.y.scale.zero).toBe(true)
  })

  it('keeps the added field names clear of the data columns', () => {
    const spec: Spec = buildChartSpec('line', [{ index: 5, series: 1, value: 2 }], { y: ['series', 'value'] })
    expect(spec.encoding.x.field).toBe('_index')
    expect(spec.layer[0].transform[0].as).toEqual(['_series', '_value'])
  })

  it('bar: categories in data order, zero-based y, grouped (xOffset) or stacked series', () => {
    const data = { plan: ['Team', 'Free'], signups: [27, 42], upgrades: [11, 5] }
    const grouped: Spec = buildChartSpec('bar', data, { x: 'plan' })
    expect(grouped.mark.type).toBe('bar')
    expect(grouped.encoding.x).toMatchObject({ field: 'plan', type: 'nominal', sort: null })
    expect(grouped.encoding.y).toMatchObject({ scale: { zero: true }, stack: null })
    expect(grouped.encoding.xOffset).toMatchObject({ field: 'series' })
    const stacked: Spec = buildChartSpec('bar', data, { x: 'plan', stacked: true })
    expect(stacked.encoding.y.stack).toBe('zero')
    expect(stacked.encoding.xOffset).toBeUndefined()
    const numeric: Spec = buildChartSpec('bar', { year: [2024, 2025], v: [1, 2] }, { x: 'year' })
    expect(numeric.encoding.x.type).toBe('ordinal')
    const days: Spec = buildChartSpec('bar', traffic, { x: 'day', y: 'api' })
    expect(days.encoding.x).toMatchObject({ type: 'temporal', timeUnit: 'utcyearmonthdate' })
    expect(days.encoding.x).toMatchObject({ bandPosition: 0, scale: { type: 'utc' } })
    const stamps: Spec = buildChartSpec('bar', [{ t: '2026-01-01T10:30:00Z', v: 1 }], { x: 't' })
    expect(stamps.encoding.x).toMatchObject({ type: 'nominal', sort: null })
  })

  it('bar over one day: a week-wide axis centred on the day, one tick a day, bars narrower than a day', async () => {
    const spec: Spec = buildChartSpec('bar', [{ day: '2025-11-28', n: 3 }, { day: '2025-11-28', n: 2 }], { x: 'day' })
    // Nov 24 12:00 to Dec 1 12:00 (UTC): Nov 28 in the middle.
    expect(spec.encoding.x.scale.domain).toEqual([
      { utc: true, year: 2025, month: 11, date: 24, hours: 12 },
      { utc: true, year: 2025, month: 12, date: 1, hours: 12 },
    ])
    expect(spec.encoding.x.axis).toEqual({ format: '%b %d', tickCount: { interval: 'day', step: 1 } })
    expect(spec.config).toEqual({ bar: { timeUnitBandSize: 0.8 } })
    expect(spec.encoding.tooltip[0].bandPosition).toBeUndefined()
    // 400 px for 7 days: the bar is 0.8 of a day wide, centred on the day's tick (4 days from the left: x = 200 - 0.5 day).
    const { bars } = await runSpec(spec)
    expect(bars).toHaveLength(2)
    for (const b of bars) {
      expect(Math.abs(b.width - (400 / 7) * 0.8)).toBeLessThan(2)
      expect(Math.abs(b.x + b.width / 2 - 200)).toBeLessThan(2)
    }
    // A month: half a day of room at either end, automatic ticks.
    const month = Array.from({ length: 30 }, (_v, i) => ({ day: new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10), n: i }))
    const monthly: Spec = buildChartSpec('bar', month, { x: 'day' })
    expect(monthly.encoding.x.scale.domain).toEqual([
      { utc: true, year: 2025, month: 12, date: 31, hours: 12 },
      { utc: true, year: 2026, month: 1, date: 30, hours: 12 },
    ])
    expect(monthly.encoding.x.axis.tickCount).toBeUndefined()
    // Stacked days stay square: Vega-Lite placed rounded stacks without the day bars' offset (nothing was drawn).
    const stacked: Spec = buildChartSpec('bar', traffic, { x: 'day', stacked: true })
    expect(stacked.mark.cornerRadiusEnd).toBeUndefined()
    const drawn = (await runSpec(stacked)).bars
    expect(drawn.length).toBe(5)
    for (const b of drawn) expect(Number.isFinite(b.x) && b.width > 0).toBe(true)
  })

  it('scatter: points with a tooltip, a single colour on the mark, y not forced to zero', () => {
    const spec: Spec = buildChartSpec('scatter', [{ x: 1, y: 2 }, { x: 3, y: 5 }], { x: 'x', y: 'y', color: '#f00' })
    expect(spec.mark).toMatchObject({ type: 'point', filled: true, color: '#f00' })
    expect(spec.encoding.color).toBeUndefined()
    expect(spec.encoding.y.scale.zero).toBe(false)
    expect(spec.encoding.tooltip.map((t: Spec) => t.field)).toEqual(['x', 'y'])
  })

  it('maps colours to series, and timestamps to a local time axis', () => {
    const rows = [{ t: new Date('2026-01-01T10:00:00Z'), a: 1, b: 2 }]
    const spec: Spec = buildChartSpec('line', rows, { x: 't', color: ['#111111', '#222222'] })
    expect(spec.data.values[0].t).toBe('2026-01-01T10:00:00.000Z')
    expect(spec.encoding.x).toMatchObject({ type: 'temporal' })
    expect(spec.encoding.x.scale).toBeUndefined()
    expect(spec.encoding.x.axis).toEqual({ format: '%b %d %H:%M' })
    // Dates at UTC midnight are days: a UTC axis, so no timezone shifts them to the day before.
    const days: Spec = buildChartSpec('line', [{ d: new Date(Date.UTC(2026, 0, 1)), v: 1 }, { d: new Date(Date.UTC(2027, 6, 1)), v: 2 }], { x: 'd' })
    expect(days.encoding.x).toMatchObject({ scale: { type: 'utc' }, axis: { format: '%b %Y' } })
    expect(spec.layer[0].encoding.color.scale).toEqual({ domain: ['a', 'b'], range: ['#111111', '#222222'] })
  })

  it('escapes dots and brackets in column names (literal fields, not paths)', () => {
    expect(fieldRef('a.b[0]')).toBe('a\\.b\\[0\\]')
    const spec: Spec = buildChartSpec('scatter', [{ 'seats.used': 1, mrr: 2 }], { x: 'seats.used' })
    expect(spec.encoding.x.field).toBe('seats\\.used')
    expect(spec.data.values).toEqual([{ 'seats.used': 1, mrr: 2 }])
  })

  it('names a missing column and the columns there are', () => {
    expect(() => buildChartSpec('line', [{ a: 1 }], { x: 'nope' })).toThrow(/x column "nope" is not in the data \(columns: a\)/)
    expect(() => buildChartSpec('bar', [{ a: 1 }], { y: ['a', 'zz'] })).toThrow(SvcError)
    expect(() => buildChartSpec('line', [{ name: 'x' }])).toThrow(/no numeric column to plot \(columns: name\); name the value column\(s\) with \{ y: \[\.\.\.\] \}/)
    // No rows (a filter matched nothing) is an empty chart, not an error.
    expect(buildChartSpec('line', []).data).toEqual({ values: [] })
  })

  it('sizes: height, container width by default, a fixed width when asked', () => {
    expect(chartProps('line', traffic, { height: 120 })).toMatchObject({ useContainerWidth: true, theme: 'svc', spec: { height: 120 } })
    const fixed = chartProps('line', traffic, { useContainerWidth: false, width: 500 })
    expect(fixed.useContainerWidth).toBe(false)
    expect(fixed.spec.width).toBe(500)
  })

  it.each<[ChartKind, string]>([
    ['line', 'line'],
    ['bar', 'rect'],
    ['area', 'area'],
    ['scatter', 'symbol'],
  ])('%s compiles with Vega-Lite and renders %s marks in Vega with the interpreter', async (kind, marktype) => {
    const spec = buildChartSpec(kind, traffic, { x: 'day', y: ['api', 'ui'], stacked: kind === 'area' })
    const { marks } = await runSpec(spec)
    expect(marks[marktype]).toBeGreaterThan(0)
  })
})

describe('vegaLiteChart props', () => {
  const spec = { mark: 'bar', encoding: { x: { field: 'a', type: 'nominal' }, y: { field: 'b', type: 'quantitative' } } }

  it('inlines table data in any accepted shape as records', async () => {
    const props = vegaLiteProps(spec, { data: { a: ['x', 'y'], b: [1, 2] } })
    expect(props.spec.data).toEqual({ values: [{ a: 'x', b: 1 }, { a: 'y', b: 2 }] })
    expect(vegaLiteProps(spec, { data: [['x', 1]], columns: ['a', 'b'] }).spec.data).toEqual({ values: [{ a: 'x', b: 1 }] })
    expect((await runSpec(props.spec)).marks.rect).toBe(2)
  })

  it('keeps inline spec data, applies height/width and the theme switch', () => {
    const inline = { ...spec, data: { values: [{ a: 'x', b: 1 }] }, height: 90 }
    expect(vegaLiteProps(inline)).toEqual({ spec: inline, useContainerWidth: true, theme: 'svc' })
    const sized = vegaLiteProps(inline, { height: 200, useContainerWidth: false, width: 320, theme: null })
    expect(sized).toMatchObject({ spec: { height: 200, width: 320 }, useContainerWidth: false, theme: null })
  })

  it('refuses a spec that is not an object and unknown or mistyped options, naming them', () => {
    expect(() => vegaLiteProps('bar' as never)).toThrow(/spec must be a Vega-Lite spec object/)
    expect(() => vegaLiteProps([spec] as never)).toThrow(/spec must be a Vega-Lite spec object/)
    expect(() => vegaLiteProps(spec, { heigth: 3 } as never)).toThrow(/vegaLiteChart\(\): option .*heigth/)
    expect(() => vegaLiteProps(spec, { theme: 'dark' } as never)).toThrow(/option theme/)
    expect(() => vegaLiteProps(spec, { data: 5 } as never)).toThrow(/option data/)
  })
})
