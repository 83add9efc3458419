import { SvcError } from '../../errors.js'

/** Turning arbitrary page values into JSON-safe element props. */

/** Dates → ISO strings, bigint → string, Map/Set → objects/arrays, cycles → "[Circular]", functions dropped. */
export function toJsonSafe(value: unknown, seen: WeakSet<object> = new WeakSet()): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      return Number.isFinite(value) ? value : String(value)
    case 'bigint':
      return value.toString()
    case 'undefined':
      return null
    case 'function':
    case 'symbol':
      return undefined
  }
  if (value === null) return null
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
  if (value instanceof Error) return { name: value.name, message: value.message }
  if (ArrayBuffer.isView(value)) return `<${value.byteLength} bytes>`
  const obj = value as object
  if (seen.has(obj)) return '[Circular]'
  seen.add(obj)
  try {
    if (Array.isArray(obj)) return obj.map((v) => toJsonSafe(v, seen) ?? null)
    if (obj instanceof Set) return [...obj].map((v) => toJsonSafe(v, seen) ?? null)
    const entries = obj instanceof Map ? [...obj.entries()].map(([k, v]) => [String(k), v] as const) : Object.entries(obj)
    const out: Record<string, unknown> = {}
    for (const [k, v] of entries) {
      const safe = toJsonSafe(v, seen)
      if (safe !== undefined) out[k] = safe
    }
    return out
  } finally {
    seen.delete(obj)
  }
}

/** A short display string for any value (options of select widgets, metric values). */
export function displayString(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === null || value === undefined) return String(value)
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'object') {
    const label = (value as { label?: unknown }).label
    if (typeof label === 'string') return label
    return JSON.stringify(toJsonSafe(value))
  }
  return String(value)
}

/** Format a number for display like `1,234.5`. */
export function formatNumber(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 4 })
}

/** Deep equality for widget values (JSON-shaped data, Dates, typed arrays). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime()
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length) return false
  return ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

/** A widget value from the browser that the widget cannot hold. */
export const bad = (what: string): never => {
  throw new SvcError('SVC_ERR_UI_BAD_CALL', `invalid widget value: ${what}`)
}
