import type { Cell, DataColumn } from '../../wire/elements.js'

/**
 * How dataframe cells read: number and date formats of `columnConfig`, link texts, progress.
 * Pure (no DOM), so the server-side unit tests check the same code the browser runs.
 */

// No digit grouping by default (ids and years read wrong as "1,239"), like pandas and Streamlit.
const plain = new Intl.NumberFormat('en-US', { maximumFractionDigits: 4, useGrouping: false })

const NAMED: Record<string, Intl.NumberFormat | ((n: number) => string)> = {
  plain,
  localized: new Intl.NumberFormat(undefined, { maximumFractionDigits: 4 }),
  dollar: new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }),
  euro: new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }),
  yen: new Intl.NumberFormat('en-US', { style: 'currency', currency: 'JPY' }),
  percent: new Intl.NumberFormat('en-US', { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }),
  compact: new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 }),
  scientific: new Intl.NumberFormat('en-US', { notation: 'scientific', maximumFractionDigits: 3 }),
  engineering: new Intl.NumberFormat('en-US', { notation: 'engineering', maximumFractionDigits: 3 }),
  accounting: (n: number) => {
    const s = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(Math.abs(n))
    return n < 0 ? `(${s})` : s
  },
}

// %[flags][width][.precision]type — flags: `,` groups thousands, `+` shows the sign, `0` pads.
const PRINTF = /%([,+0]*)(\d+)?(?:\.(\d+))?([difes%])/g

function printf(format: string, n: number): string {
  return format.replace(PRINTF, (_m, flags: string, width: string | undefined, precision: string | undefined, type: string) => {
    if (type === '%') return '%'
    if (type === 's') return String(n)
    let out: string
    if (type === 'e') out = n.toExponential(precision === undefined ? 6 : Number(precision))
    else {
      const digits = type === 'd' || type === 'i' ? 0 : precision === undefined ? 6 : Number(precision)
      const value = type === 'd' || type === 'i' ? Math.trunc(n) : n
      out = new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: flags.includes(',') }).format(value)
    }
    if (flags.includes('+') && n >= 0) out = `+${out}`
    if (width !== undefined) out = out.padStart(Number(width), flags.includes('0') ? '0' : ' ')
    return out
  })
}

/** A number as `format` says: a named format (`dollar`, `percent`, ...) or printf (`%.2f`, `$%,.2f`). */
export function formatNumber(n: number, format: string | null): string {
  if (format === null) return plain.format(n)
  const named = NAMED[format]
  if (named) return typeof named === 'function' ? named(n) : named.format(n)
  return format.includes('%') ? printf(format, n) : plain.format(n)
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const pad = (n: number, w = 2) => String(n).padStart(w, '0')
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/

function distance(d: Date, now: number): string {
  const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' })
  const seconds = (d.getTime() - now) / 1000
  const units: [Intl.RelativeTimeFormatUnit, number][] = [['year', 31536000], ['month', 2592000], ['day', 86400], ['hour', 3600], ['minute', 60]]
  for (const [unit, size] of units) if (Math.abs(seconds) >= size) return rtf.format(Math.round(seconds / size), unit)
  return rtf.format(Math.round(seconds), 'second')
}

/**
 * A date/datetime as `format` says: `localized`, `iso8601`, `distance` ("3 days ago"), or tokens
 * `YYYY MMM MM DD HH mm ss` (UTC, so a date reads the same in every time zone). Unparseable: as is.
 */
export function formatDate(value: string, format: string | null, type: 'date' | 'datetime', now = Date.now()): string {
  if (format === null) return value
  const d = new Date(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value)
  if (Number.isNaN(d.getTime())) return value
  if (format === 'iso8601') return type === 'date' ? d.toISOString().slice(0, 10) : d.toISOString()
  if (format === 'localized') return type === 'date' ? d.toLocaleDateString(undefined, { timeZone: 'UTC' }) : d.toLocaleString()
  if (format === 'distance') return distance(d, now)
  return format.replace(/YYYY|MMM|MM|DD|HH|mm|ss/g, (t) =>
    t === 'YYYY' ? String(d.getUTCFullYear())
      : t === 'MMM' ? MONTHS[d.getUTCMonth()]!
        : t === 'MM' ? pad(d.getUTCMonth() + 1)
          : t === 'DD' ? pad(d.getUTCDate())
            : t === 'HH' ? pad(d.getUTCHours())
              : t === 'mm' ? pad(d.getUTCMinutes())
                : pad(d.getUTCSeconds()),
  )
}

/** A link's text: `displayText` as is, or, when it is a regex with a group, the group's match in the URL. */
export function linkText(url: string, displayText: string | null): string {
  if (displayText === null) return url
  if (!/\(.*\)/.test(displayText)) return displayText
  try {
    const m = new RegExp(displayText).exec(url)
    return m?.[1] ?? url
  } catch {
    return displayText
  }
}

/** Progress columns: the bar's fill in 0..1. */
export function progressFraction(n: number, min: number | null, max: number | null): number {
  const lo = min ?? 0
  const hi = max ?? 1
  if (!(hi > lo)) return 0
  return Math.min(1, Math.max(0, (n - lo) / (hi - lo)))
}

/** A cell as plain text, per its column's type and format. */
export function formatCell(value: Cell | undefined, column: Pick<DataColumn, 'type' | 'format' | 'displayText'>): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'number') return formatNumber(value, column.format)
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'object') return JSON.stringify(value)
  if (column.type === 'date' || column.type === 'datetime') return formatDate(value, column.format, column.type)
  // Time cells arrive as "HH:MM[:SS]" (st/dataframe.ts); a format reads them with the date tokens.
  if (column.type === 'time' && column.format !== null) return formatDate(`1970-01-01T${value}Z`, column.format, 'datetime')
  if (column.type === 'link') return linkText(value, column.displayText)
  return value
}
