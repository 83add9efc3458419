/**
 * Redaction helpers: what svc writes to logs (access-log queries, header maps, Fastify's request
 * objects) passes through here first, so session ids, one-time codes and credentials never reach
 * a log line.
 */

/** What a redacted value becomes. */
export const REDACTED = '<redacted>'

/** Query keys whose values are always redacted (compared case-insensitively after decoding). */
export const DEFAULT_REDACTED_QUERY_KEYS: readonly string[] = ['svc_sid', 'auth_code']

/** Header names whose values are always redacted (lower case). */
export const REDACTED_HEADER_NAMES: readonly string[] = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie']

const AUTH_SCHEME = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)\s+\S/

/**
 * `Bearer abc` → `Bearer <redacted>` (the scheme is kept, it tells a reader what was sent),
 * a bare credential → `<redacted>`, blank → ``.
 */
export function redactAuthorization(value: string | null | undefined): string {
  if (value == null) return ''
  const v = value.trim()
  if (v === '') return ''
  const m = AUTH_SCHEME.exec(v)
  return m ? `${m[1]} ${REDACTED}` : REDACTED
}

/** Decode a query key the way WHATWG URLSearchParams does (`+` is a space, bad `%` kept). */
function decodeKey(raw: string): string {
  const plus = raw.includes('+') ? raw.replaceAll('+', ' ') : raw
  if (!plus.includes('%')) return plus
  try {
    return decodeURIComponent(plus)
  } catch {
    return new URLSearchParams(`${raw}=`).keys().next().value ?? plus
  }
}

/**
 * Build a query redactor for a fixed key set; the key set is prepared once, and a query that
 * cannot contain any of the keys is returned untouched without being split.
 */
export function createQueryRedactor(extraKeys: readonly string[] = []): (query: string) => string {
  const keys = new Set([...DEFAULT_REDACTED_QUERY_KEYS, ...extraKeys].filter(Boolean).map((k) => k.toLowerCase()))
  const needles = [...keys]
  return (query) => {
    if (query === '') return query
    const lower = query.toLowerCase()
    if (!lower.includes('%') && !lower.includes('+') && !needles.some((k) => lower.includes(k))) return query
    const pairs = query.split('&')
    let changed = false
    for (let i = 0; i < pairs.length; i++) {
      const pair = pairs[i]!
      const eq = pair.indexOf('=')
      if (eq === -1 || eq === pair.length - 1) continue // empty values stay empty
      if (!keys.has(decodeKey(pair.slice(0, eq)).toLowerCase())) continue
      pairs[i] = `${pair.slice(0, eq + 1)}${REDACTED}`
      changed = true
    }
    return changed ? pairs.join('&') : query
  }
}

/**
 * Replace the values of sensitive query keys with `<redacted>`: `svc_sid`, `auth_code` and any
 * `extraKeys` (pass the `url_session_query_param` setting). Other pairs are kept byte for byte;
 * empty values stay empty (`svc_sid=&x=1` is unchanged). The query has no leading `?`.
 */
export function redactQuery(query: string, extraKeys: readonly string[] = []): string {
  return createQueryRedactor(extraKeys)(query)
}

/** `/path?svc_sid=abc` → `/path?svc_sid=<redacted>`; a URL without a query is returned as is. */
export function redactUrl(url: string, redactor: (query: string) => string = createQueryRedactor()): string {
  const q = url.indexOf('?')
  if (q === -1) return url
  return `${url.slice(0, q + 1)}${redactor(url.slice(q + 1))}`
}

export type HeaderInput =
  | Readonly<Record<string, string | readonly string[] | number | undefined>>
  | Headers
  | Iterable<readonly [string, string]>

/**
 * Copy a header map for a log line: `authorization` / `proxy-authorization` keep their scheme
 * only, `cookie` / `set-cookie` become `<redacted>`, other values are kept (numbers as strings).
 */
export function redactHeaders(headers: HeaderInput): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  const entries: Iterable<readonly [string, unknown]> =
    headers instanceof Headers || Symbol.iterator in headers
      ? (headers as Iterable<readonly [string, string]>)
      : Object.entries(headers)
  for (const [name, value] of entries) {
    if (value === undefined) continue
    const lower = name.toLowerCase()
    if (lower === 'authorization' || lower === 'proxy-authorization') {
      out[name] = Array.isArray(value) ? value.map((v) => redactAuthorization(String(v))) : redactAuthorization(String(value))
    } else if (lower === 'cookie' || lower === 'set-cookie') {
      out[name] = REDACTED
    } else {
      out[name] = Array.isArray(value) ? value.map(String) : String(value)
    }
  }
  return out
}
