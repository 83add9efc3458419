import { SvcError } from '../../errors.js'
import type { DatetimeInputOptions, DatetimeValue } from '../st-types.js'
import { base, register } from './widgets.js'
import type { Emitter } from './run-context.js'
import { bad } from './values.js'

/**
 * `st.datetimeInput`: a date and a wall-clock time in one widget, like Streamlit's naive
 * `datetime`. The page gets a `Date` whose UTC fields are what the visitor picked (as
 * `dateInput` gives a day at UTC midnight), so no time zone of server or browser shifts it.
 */

const WIRE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/
const pad = (n: number): string => String(n).padStart(2, '0')

/** `"YYYY-MM-DDTHH:MM[:SS]"` → its instant in UTC; a date or time off the calendar is refused, never rolled over. */
export function parseDatetime(v: unknown, strict: boolean): Date {
  if (v instanceof Date && !strict) {
    if (!Number.isNaN(v.getTime())) return new Date(Math.floor(v.getTime() / 1000) * 1000)
  } else if (typeof v === 'string') {
    const m = WIRE.exec(strict ? v : v.trim().replace(/(\.\d+)?Z?$/, ''))
    if (m) {
      const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number]
      const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s))
      if (t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d && t.getUTCHours() === h && t.getUTCMinutes() === mi && t.getUTCSeconds() === s) return t
      return bad(`${v} is not a date and time of the calendar`)
    }
  }
  return bad('expected a date and time (YYYY-MM-DDTHH:MM)')
}

/** The wire form: seconds only when the step has them. */
export function formatDatetime(d: Date, withSeconds: boolean): string {
  const day = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`
  return withSeconds ? `${day}:${pad(d.getUTCSeconds())}` : day
}

export function datetimeInput(em: Emitter, label: string, o: DatetimeInputOptions<DatetimeValue | null> = {}): Date | null {
  const call = `datetimeInput("${String(label).slice(0, 40)}")`
  const step = o.step ?? 900
  if (!Number.isInteger(step) || step < 60 || step > 82_800) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: step must be whole seconds from 60 to 82800, got ${String(step)}`)
  const withSeconds = step % 60 !== 0
  const given = (name: string, v: unknown): Date => {
    try {
      return parseDatetime(v, false)
    } catch {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: ${name} ${JSON.stringify(v)} is not a date and time; pass a Date or "YYYY-MM-DDTHH:MM"`)
    }
  }
  const min = o.min === undefined ? null : given('min', o.min)
  const max = o.max === undefined ? null : given('max', o.max)
  if (min && max && min > max) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: min ${formatDatetime(min, true)} is after max ${formatDatetime(max, true)}`)
  // "now" is this minute (or second), as a wall clock in UTC: what the picker can show.
  const now = (): Date => new Date(Math.floor(Date.now() / (withSeconds ? 1000 : 60_000)) * (withSeconds ? 1000 : 60_000))
  const def = o.value === undefined || o.value === 'now' ? now() : o.value === null ? null : given('value', o.value)
  // The default may be off the grid or outside min/max (the page chose it); what the visitor picks is on it, within them.
  const check = (v: unknown, strict: boolean): Date | null => {
    if (v === null) return def === null ? null : bad('a date and time is required')
    const t = parseDatetime(v, strict)
    if (def !== null && t.getTime() === def.getTime()) return t
    if (min && t < min) return bad(`${formatDatetime(t, true)} is before the minimum ${formatDatetime(min, true)}`)
    if (max && t > max) return bad(`${formatDatetime(t, true)} is after the maximum ${formatDatetime(max, true)}`)
    const seconds = Math.floor(t.getTime() / 1000) % 86_400
    if (seconds % step !== 0) return bad(`${formatDatetime(t, true)} is not on the ${step}-second grid`)
    return t
  }
  const wire = (v: Date | null): string | null => (v === null ? null : formatDatetime(v, withSeconds))
  const { id, value } = register<Date | null>(em, {
    type: 'datetimeInput', label, key: o.key, identity: [o.value === undefined || o.value === 'now' ? 'now' : wire(def), step], default: def, disabled: o.disabled,
    deserialize: (r) => check(r, true), fromState: (v) => check(v, false), onChange: o.onChange,
  }, wire(def))
  em.emit('datetimeInput', { ...base(em, label, o), value: wire(value), min: min && formatDatetime(min, withSeconds), max: max && formatDatetime(max, withSeconds), step }, id)
  return value
}
