/** Linear scales and tick choice for the hand-rolled SVG charts (no chart library). */

export interface Ticks {
  min: number
  max: number
  ticks: number[]
}

/** Round bounds and 1/2/5×10^k steps, about `count` ticks. */
export function niceTicks(lo: number, hi: number, count = 5): Ticks {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return { min: 0, max: 1, ticks: [0, 1] }
  if (lo === hi) {
    const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1
    lo -= pad
    hi += pad
  }
  const raw = (hi - lo) / Math.max(1, count)
  const mag = 10 ** Math.floor(Math.log10(raw))
  const norm = raw / mag
  const step = (norm >= 5 ? 10 : norm >= 2 ? 5 : norm >= 1 ? 2 : 1) * mag
  const min = Math.floor(lo / step) * step
  const max = Math.ceil(hi / step) * step
  const ticks: number[] = []
  for (let v = min; v <= max + step / 2; v += step) ticks.push(Number(v.toPrecision(12)))
  return { min, max, ticks }
}

export function linear(d0: number, d1: number, r0: number, r1: number): (v: number) => number {
  const span = d1 - d0 || 1
  return (v) => r0 + ((v - d0) / span) * (r1 - r0)
}

const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 })
const plain = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 })

export function formatTick(v: number): string {
  return Math.abs(v) >= 10_000 ? compact.format(v) : plain.format(v)
}

export function formatValue(v: number): string {
  return new Intl.NumberFormat(undefined, { maximumFractionDigits: 4 }).format(v)
}

const DAY = 86_400_000

/** Date label precision from the visible span: times within a day, dates within years, else months. */
export function timeFormatter(spanMs: number): (ms: number) => string {
  const opts: Intl.DateTimeFormatOptions =
    spanMs <= 2 * DAY
      ? { hour: '2-digit', minute: '2-digit' }
      : spanMs <= 400 * DAY
        ? { month: 'short', day: 'numeric' }
        : { year: 'numeric', month: 'short' }
  const f = new Intl.DateTimeFormat(undefined, opts)
  return (ms) => f.format(new Date(ms))
}

export function fullTimeFormat(ms: number): string {
  const d = new Date(ms)
  const midnight = d.getHours() === 0 && d.getMinutes() === 0 && d.getSeconds() === 0
  return new Intl.DateTimeFormat(undefined, midnight ? { dateStyle: 'medium' } : { dateStyle: 'medium', timeStyle: 'short' }).format(d)
}

export const PALETTE = ['#4f46e5', '#0ea5a4', '#f59e0b', '#e11d48', '#0284c7', '#8b5cf6', '#65a30d', '#ea580c']
