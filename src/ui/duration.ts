import { z } from '../internal/zod.js'

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/

/** A duration as pages write it: seconds (like Streamlit), or a string with a unit: `'500ms'`, `'90s'`, `'15m'`, `'1h'`, `'1d'`. */
export const DurationSchema = z.union([
  z.number().positive().finite(),
  z.string().regex(DURATION, 'expected a number of seconds or a duration like "90s", "15m", "1h", "1d"'),
])
export type Duration = z.infer<typeof DurationSchema>

export function durationMs(d: Duration): number {
  if (typeof d === 'number') return d * 1_000
  const [, n, unit] = DURATION.exec(d)!
  return Number(n) * UNITS[unit!]!
}
