/** Calendar-aligned ticks for time axes (local time): minutes, hours, days, weeks, months, years. */

const MIN = 60_000
const HOUR = 60 * MIN
const DAY = 24 * HOUR

const FIXED = [MIN, 5 * MIN, 15 * MIN, 30 * MIN, HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY]
const MONTH_STEPS = [1, 3, 6, 12, 24, 60, 120]

export function timeTicks(min: number, max: number, count: number): number[] {
  if (!(max > min)) return [min]
  // Up to 1.5× the asked count: a 14-day step for a 30-day span would leave only two ticks.
  const target = (max - min) / Math.max(1, count) / 1.5
  const fixed = FIXED.find((s) => s >= target)
  if (fixed !== undefined) {
    const start = new Date(min)
    if (fixed >= DAY) start.setHours(0, 0, 0, 0)
    else start.setMinutes(Math.floor(start.getMinutes() / Math.min(60, fixed / MIN)) * Math.min(60, fixed / MIN), 0, 0)
    if (fixed >= HOUR && fixed < DAY) start.setHours(Math.floor(start.getHours() / (fixed / HOUR)) * (fixed / HOUR), 0, 0, 0)
    if (fixed === 7 * DAY || fixed === 14 * DAY) start.setDate(start.getDate() - ((start.getDay() + 6) % 7))
    const out: number[] = []
    for (let t = start.getTime(); t <= max; t = fixed >= DAY ? addDays(t, fixed / DAY) : t + fixed) if (t >= min) out.push(t)
    return out
  }
  const months = MONTH_STEPS.find((m) => m * 30 * DAY >= target) ?? 120
  const d = new Date(min)
  d.setHours(0, 0, 0, 0)
  d.setDate(1)
  d.setMonth(Math.floor(d.getMonth() / Math.min(12, months)) * Math.min(12, months))
  if (months >= 12) d.setFullYear(Math.floor(d.getFullYear() / (months / 12)) * (months / 12), 0)
  const out: number[] = []
  while (d.getTime() <= max) {
    if (d.getTime() >= min) out.push(d.getTime())
    d.setMonth(d.getMonth() + months)
  }
  return out
}

function addDays(t: number, days: number): number {
  const d = new Date(t)
  d.setDate(d.getDate() + days)
  return d.getTime()
}
