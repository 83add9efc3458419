import { REDACTED } from './redact.js'

/**
 * Secret values (`app.secrets`) are scrubbed from every log line svc writes, whatever logged them
 * and under whatever key: a connection string in an error message, a token a page logged by
 * mistake. Values are registered when the app loads its secrets; every root logger's
 * `streamWrite` hook replaces them in the finished line. One registry per process (a
 * `Symbol.for` slot, so a second copy of svc in the same process shares it).
 */

/** Shorter strings are not scrubbed by value: they are not secrets, and would mangle every line. */
export const MIN_SCRUBBED_LENGTH = 6

const kRegistry = Symbol.for('svc.logging.secretValues')

interface Registry {
  values: Set<string>
  /** Longest first, so a value that contains another is replaced whole. */
  ordered: string[]
}

function registry(): Registry {
  const slot = globalThis as unknown as Record<symbol, Registry | undefined>
  return (slot[kRegistry] ??= { values: new Set(), ordered: [] })
}

/** Register every string leaf of `value` (objects and arrays are walked) for scrubbing. */
export function registerSecretValues(value: unknown): void {
  const r = registry()
  const before = r.values.size
  const add = (s: string): void => {
    if (s.length < MIN_SCRUBBED_LENGTH) return
    r.values.add(s)
    // In a JSON line the value appears escaped (quotes, backslashes, control characters).
    const escaped = JSON.stringify(s).slice(1, -1)
    if (escaped !== s) r.values.add(escaped)
  }
  const walk = (v: unknown, depth: number): void => {
    if (typeof v === 'string') add(v)
    else if (depth < 16 && typeof v === 'object' && v !== null) for (const item of Object.values(v)) walk(item, depth + 1)
  }
  walk(value, 0)
  if (r.values.size !== before) r.ordered = [...r.values].sort((a, b) => b.length - a.length)
}

/** `line` with every registered secret value replaced by `<redacted>`. */
export function scrubSecrets(line: string): string {
  const { ordered } = registry()
  if (ordered.length === 0) return line
  let out = line
  for (const v of ordered) if (out.includes(v)) out = out.replaceAll(v, REDACTED)
  return out
}
