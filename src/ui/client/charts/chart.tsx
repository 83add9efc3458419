import { useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { ChartProps } from '../../elements.js'
import type { ElementProps } from '../elements/types.js'
import { fullTimeFormat, formatTick, formatValue, linear, niceTicks, PALETTE, timeFormatter } from './scale.js'
import { timeTicks } from './time-ticks.js'

export type ChartKind = 'line' | 'bar' | 'area' | 'scatter'

const M = { top: 10, right: 14, bottom: 26 }
const CHAR_W = 6.6

function useWidth() {
  const ref = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(0)
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    setWidth(el.clientWidth)
    const ro = new ResizeObserver(() => setWidth(el.clientWidth))
    ro.observe(el)
    return () => ro.disconnect()
  }, [])
  return [ref, width] as const
}

interface Layer {
  name: string
  color: string
  y: (number | null)[]
  /** Stack base and top per point (equal to 0 and y when not stacked). */
  lo: (number | null)[]
  hi: (number | null)[]
}

function layers(props: ChartProps, stack: boolean): Layer[] {
  const n = props.x.length
  const pos = new Array<number>(n).fill(0)
  const neg = new Array<number>(n).fill(0)
  return props.series.map((s, si) => {
    const lo: (number | null)[] = []
    const hi: (number | null)[] = []
    for (let i = 0; i < n; i++) {
      const v = s.y[i]
      if (v === null || v === undefined || !Number.isFinite(v)) {
        lo.push(stack ? (pos[i] ?? 0) : null)
        hi.push(stack ? (pos[i] ?? 0) : null)
        continue
      }
      if (!stack) {
        lo.push(0)
        hi.push(v)
      } else if (v >= 0) {
        lo.push(pos[i]!)
        pos[i] = pos[i]! + v
        hi.push(pos[i]!)
      } else {
        hi.push(neg[i]!)
        neg[i] = neg[i]! + v
        lo.push(neg[i]!)
      }
    }
    return { name: s.name, color: s.color ?? PALETTE[si % PALETTE.length]!, y: s.y, lo, hi }
  })
}

function xValue(props: ChartProps, i: number): number {
  const v = props.x[i]
  if (props.xKind === 'time') return typeof v === 'number' ? v : Date.parse(String(v))
  return Number(v)
}

/** Segments of consecutive defined points, so gaps (null) break lines and areas. */
function segments(n: number, defined: (i: number) => boolean): number[][] {
  const out: number[][] = []
  let cur: number[] = []
  for (let i = 0; i < n; i++) {
    if (defined(i)) cur.push(i)
    else if (cur.length) {
      out.push(cur)
      cur = []
    }
  }
  if (cur.length) out.push(cur)
  return out
}

const r1 = (v: number) => Math.round(v * 10) / 10

/** Responsive SVG chart with axes, grid, legend, hover/keyboard tooltip. */
export function Chart({ props, kind }: { props: ChartProps; kind: ChartKind }) {
  const [ref, width] = useWidth()
  const [hover, setHover] = useState<{ i: number; s: number | null } | null>(null)
  const n = props.x.length
  const stack = props.stacked && (kind === 'bar' || kind === 'area')
  const data = layers(props, stack)
  const band = kind === 'bar' || props.xKind === 'category'

  let yMin = Infinity
  let yMax = -Infinity
  for (const l of data) {
    for (let i = 0; i < n; i++) {
      for (const v of stack ? [l.lo[i], l.hi[i]] : [l.y[i]]) {
        if (v === null || v === undefined || !Number.isFinite(v)) continue
        yMin = Math.min(yMin, v)
        yMax = Math.max(yMax, v)
      }
    }
  }
  if (yMin === Infinity) [yMin, yMax] = [0, 1]
  if (kind === 'bar' || kind === 'area') [yMin, yMax] = [Math.min(0, yMin), Math.max(0, yMax)]
  const height = Math.max(120, props.height)
  const plotH = height - M.top - M.bottom
  const yt = niceTicks(yMin, yMax, Math.max(2, Math.round(plotH / 55)))
  const left = Math.max(...yt.ticks.map((t) => formatTick(t).length)) * CHAR_W + 14
  const plotW = Math.max(40, width - left - M.right)
  const y = linear(yt.min, yt.max, M.top + plotH, M.top)

  const xsNum = band ? [] : Array.from({ length: n }, (_, i) => xValue(props, i))
  const xLo = band ? 0 : Math.min(...xsNum.filter(Number.isFinite))
  const xHi = band ? 0 : Math.max(...xsNum.filter(Number.isFinite))
  const timeFmt = props.xKind === 'time' ? timeFormatter(xHi - xLo) : null
  const bandW = plotW / Math.max(1, n)
  let x: (i: number) => number
  let xTicks: { pos: number; label: string }[]
  const labelOf = (i: number): string => {
    const v = props.x[i]
    if (props.xKind === 'time') return fullTimeFormat(xValue(props, i))
    return typeof v === 'number' ? formatValue(v) : String(v ?? '')
  }
  if (band) {
    x = (i) => left + bandW * (i + 0.5)
    const shortLabel = (i: number) => (props.xKind === 'time' && timeFmt ? timeFmt(xValue(props, i)) : labelOf(i))
    const longest = Math.max(1, ...Array.from({ length: n }, (_, i) => shortLabel(i).length))
    const every = Math.max(1, Math.ceil(((longest * CHAR_W + 12) * n) / plotW))
    xTicks = Array.from({ length: n }, (_, i) => i)
      .filter((i) => i % every === 0)
      .map((i) => ({ pos: x(i), label: shortLabel(i) }))
  } else if (props.xKind === 'time') {
    const sx = linear(xLo, xHi, left, left + plotW)
    x = (i) => sx(xsNum[i]!)
    xTicks = timeTicks(xLo, xHi, Math.max(2, Math.floor(plotW / 90))).map((t) => ({ pos: sx(t), label: timeFmt!(t) }))
  } else {
    const xt = niceTicks(xLo, xHi, Math.max(2, Math.floor(plotW / 80)))
    const sx = linear(xt.min, xt.max, left, left + plotW)
    x = (i) => sx(xsNum[i]!)
    xTicks = xt.ticks.map((t) => ({ pos: sx(t), label: formatTick(t) }))
  }

  const pick = (clientX: number, clientY: number, svg: SVGSVGElement) => {
    const box = svg.getBoundingClientRect()
    const mx = clientX - box.left
    const my = clientY - box.top
    if (n === 0) return setHover(null)
    if (kind === 'scatter') {
      let best: { i: number; s: number; d: number } | null = null
      data.forEach((l, s) =>
        l.y.forEach((v, i) => {
          if (v === null || v === undefined) return
          const d = (x(i) - mx) ** 2 + (y(v) - my) ** 2
          if (!best || d < best.d) best = { i, s, d }
        }),
      )
      const b = best as { i: number; s: number; d: number } | null
      return setHover(b && b.d < 900 ? { i: b.i, s: b.s } : null)
    }
    if (band) return setHover({ i: Math.min(n - 1, Math.max(0, Math.floor((mx - left) / bandW))), s: null })
    let bi = 0
    for (let i = 1; i < n; i++) if (Math.abs(x(i) - mx) < Math.abs(x(bi) - mx)) bi = i
    setHover({ i: bi, s: null })
  }

  const barInner = bandW * (n > 40 ? 0.9 : 0.72)
  const y0 = y(Math.max(yt.min, Math.min(yt.max, 0)))
  const seriesLabel = `${kind} chart, ${data.length} series, ${n} points${props.xLabel ? `, x: ${props.xLabel}` : ''}${props.yLabel ? `, y: ${props.yLabel}` : ''}`

  const marks = data.map((l, si) => {
    if (kind === 'bar') {
      const sub = stack ? barInner : barInner / data.length
      return (
        <g key={si} fill={l.color}>
          {l.y.map((v, i) => {
            if (v === null || v === undefined || !Number.isFinite(v)) return null
            const top = y(stack ? l.hi[i]! : Math.max(0, v))
            const bottom = y(stack ? l.lo[i]! : Math.min(0, v))
            const bx = left + bandW * i + (bandW - barInner) / 2 + (stack ? 0 : sub * si)
            return <rect key={i} x={r1(bx)} y={r1(top)} width={r1(Math.max(1, sub - (stack || data.length === 1 ? 0 : 1)))} height={r1(Math.max(0.5, bottom - top))} rx={Math.min(3, sub / 4)} opacity={hover && hover.i !== i ? 0.55 : 1} />
          })}
        </g>
      )
    }
    if (kind === 'scatter') {
      return (
        <g key={si} fill={l.color} fill-opacity={0.75}>
          {l.y.map((v, i) => (v === null || v === undefined ? null : <circle key={i} cx={r1(x(i))} cy={r1(y(v))} r={hover?.s === si && hover.i === i ? 6 : 3.5} stroke="#fff" stroke-width={1} />))}
        </g>
      )
    }
    const segs = segments(n, (i) => (stack ? true : l.y[i] !== null && l.y[i] !== undefined && Number.isFinite(l.y[i]!)))
    const line = segs.map((seg) => seg.map((i, k) => `${k ? 'L' : 'M'}${r1(x(i))},${r1(y(stack ? l.hi[i]! : l.y[i]!))}`).join('')).join('')
    const area =
      kind === 'area'
        ? segs
            .map((seg) => {
              const top = seg.map((i, k) => `${k ? 'L' : 'M'}${r1(x(i))},${r1(y(stack ? l.hi[i]! : l.y[i]!))}`).join('')
              const bottom = [...seg].reverse().map((i) => `L${r1(x(i))},${r1(stack ? y(l.lo[i]!) : y0)}`).join('')
              return `${top}${bottom}Z`
            })
            .join('')
        : null
    return (
      <g key={si}>
        {area ? <path d={area} fill={l.color} fill-opacity={stack ? 0.55 : 0.16} /> : null}
        <path d={line} fill="none" stroke={l.color} stroke-width={2} stroke-linejoin="round" stroke-linecap="round" />
      </g>
    )
  })

  const hi = hover?.i ?? null
  const tipRows = hi === null ? [] : data.map((l, s) => ({ l, s, v: l.y[hi] })).filter((r) => (hover?.s === null || hover?.s === undefined ? true : r.s === hover.s))
  const tipLeft = hi === null ? 0 : x(hi)
  return (
    <div class="svc-chart" data-testid={`${kind}Chart`}>
      {data.length > 1 ? (
        <ul class="svc-legend" role="list">
          {data.map((l) => (
            <li key={l.name}>
              <span class="svc-legend-swatch" style={{ background: l.color }} aria-hidden="true" />
              {l.name}
            </li>
          ))}
        </ul>
      ) : null}
      {props.yLabel ? <div class="svc-axis-title">{props.yLabel}</div> : null}
      <div class="svc-chart-body" ref={ref} style={{ height: `${height}px` }}>
        {width > 0 ? (
          <svg
            width={width}
            height={height}
            role="img"
            aria-label={seriesLabel}
            tabIndex={0}
            onPointerMove={(e) => pick(e.clientX, e.clientY, e.currentTarget)}
            onPointerLeave={() => setHover(null)}
            onBlur={() => setHover(null)}
            onKeyDown={(e) => {
              if (n === 0) return
              const cur = hover?.i ?? -1
              if (e.key === 'ArrowRight') setHover({ i: Math.min(n - 1, cur + 1), s: kind === 'scatter' ? 0 : null })
              else if (e.key === 'ArrowLeft') setHover({ i: Math.max(0, cur < 0 ? n - 1 : cur - 1), s: kind === 'scatter' ? 0 : null })
              else if (e.key === 'Escape') setHover(null)
              else return
              e.preventDefault()
            }}
          >
            <g class="svc-grid">
              {yt.ticks.map((t) => (
                <line key={t} x1={left} x2={left + plotW} y1={r1(y(t))} y2={r1(y(t))} class={t === 0 ? 'is-zero' : undefined} />
              ))}
            </g>
            <g class="svc-axis-labels">
              {yt.ticks.map((t) => (
                <text key={t} x={left - 8} y={y(t)} text-anchor="end" dominant-baseline="middle">
                  {formatTick(t)}
                </text>
              ))}
              {xTicks.map((t, k) => (
                <text key={k} x={t.pos} y={M.top + plotH + 17} text-anchor="middle">
                  {t.label}
                </text>
              ))}
            </g>
            {hi !== null && band ? <rect class="svc-hover-band" x={left + bandW * hi} y={M.top} width={bandW} height={plotH} /> : null}
            {hi !== null && !band && kind !== 'scatter' ? <line class="svc-hover-line" x1={x(hi)} x2={x(hi)} y1={M.top} y2={M.top + plotH} /> : null}
            {marks}
            {hi !== null && (kind === 'line' || kind === 'area')
              ? data.map((l, s) => {
                  const v = stack ? l.hi[hi] : l.y[hi]
                  return v === null || v === undefined || l.y[hi] === null ? null : <circle key={s} cx={x(hi)} cy={y(v)} r={4.5} fill={l.color} stroke="#fff" stroke-width={2} />
                })
              : null}
          </svg>
        ) : null}
        {hi !== null && tipRows.length > 0 ? (
          <div class="svc-tooltip" role="status" style={tipLeft > width * 0.6 ? { right: `${width - tipLeft + 12}px`, top: `${M.top}px` } : { left: `${tipLeft + 12}px`, top: `${M.top}px` }}>
            <div class="svc-tooltip-title">{labelOf(hi)}</div>
            {tipRows.map((r) => (
              <div key={r.s} class="svc-tooltip-row">
                <span class="svc-legend-swatch" style={{ background: r.l.color }} aria-hidden="true" />
                <span class="svc-tooltip-name">{r.l.name}</span>
                <span class="svc-tooltip-value">{r.v === null || r.v === undefined ? '—' : formatValue(r.v)}</span>
              </div>
            ))}
          </div>
        ) : null}
      </div>
      {props.xLabel ? <div class="svc-axis-title is-x">{props.xLabel}</div> : null}
    </div>
  )
}

export const LineChart = ({ props }: ElementProps<ChartProps>) => <Chart props={props} kind="line" />
export const BarChart = ({ props }: ElementProps<ChartProps>) => <Chart props={props} kind="bar" />
export const AreaChart = ({ props }: ElementProps<ChartProps>) => <Chart props={props} kind="area" />
export const ScatterChart = ({ props }: ElementProps<ChartProps>) => <Chart props={props} kind="scatter" />
