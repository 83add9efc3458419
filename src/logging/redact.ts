/**
 * Redaction helpers: what svc writes to logs (access-log queries, header maps, Fastify's request
 * objects) passes through here first, so session ids, one-time codes and credentials never reach
 * a log line.
 */

/** What a redacted value becomes. */
export const REDACTED = '<redacted>'

/**
 * Query parameter names whose values are always redacted, compared case-insensitively after
 * percent/plus decoding (a trailing `[]` or `[x]` array suffix is ignored). The
 * `url_session_query_param` key and the `redact_query_params` setting extend it, never shrink it.
 */
export const DEFAULT_REDACTED_QUERY_KEYS: readonly string[] = [
  'access_token',
  'token',
  'code',
  'state',
  'id_token',
  'refresh_token',
  'password',
  'secret',
  'api_key',
  'apikey',
  'key',
  'signature',
  'sig',
  'svc_sid',
  'auth_code',
  'client_secret',
  'passwd',
  'x-amz-credential',
]

/**
 * A name whose last word is one of these is redacted too, whatever comes before it: words are
 * split at `_`, `-`, `.`, spaces and camelCase humps, so `client_secret`, `X-Amz-Signature`,
 * `x-amz-security-token`, `apiKey` and `session.token` match. `code` and `state` are exact names
 * only (`error_code` or `us_state` are not credentials).
 */
export const REDACTED_QUERY_KEY_WORDS: readonly string[] = ['token', 'secret', 'password', 'passwd', 'signature', 'key', 'apikey', 'credential']

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

const WORD_BREAK = /(?<=[a-z0-9])(?=[A-Z])|[\s_.-]+/
const ARRAY_SUFFIX = /\[[^\]]*\]$/

/** Separators of query pairs: `&`, plus `#` and `?` so a fragment or a stray `?` cannot hide a pair. */
const PAIR_SEPARATOR = /([&#?])/

/**
 * Build a query redactor for a fixed key set (the defaults plus `extraKeys`); the key set is
 * prepared once, and a query that cannot contain any of the keys is returned untouched.
 * Within a pair, `;` also separates sub-pairs (`x=1;token=a`); the redacted value runs to the
 * next `&`, `#` or `?`. Empty values stay empty.
 */
export function createQueryRedactor(extraKeys: readonly string[] = []): QueryRedactor {
  const keys = new Set([...DEFAULT_REDACTED_QUERY_KEYS, ...extraKeys].map((k) => k.trim().toLowerCase()).filter(Boolean))
  const words = new Set(REDACTED_QUERY_KEY_WORDS)
  // One case-insensitive scan for every name (and for `%`/`+`, which may encode one): a text
  // without a match holds no pair to redact. Log messages and access-line queries mostly don't.
  const mayHold = new RegExp([...keys, ...words].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).concat('[%+]').join('|'), 'i')
  const sensitive = (rawKey: string): boolean => {
    const name = decodeKey(rawKey).trim().replace(ARRAY_SUFFIX, '')
    if (keys.has(name.toLowerCase())) return true
    const parts = name.split(WORD_BREAK)
    return words.has(parts[parts.length - 1]!.toLowerCase())
  }
  const redactPair = (pair: string): string | null => {
    let from = 0
    while (from < pair.length) {
      const semi = pair.indexOf(';', from)
      const sub = semi === -1 ? pair.slice(from) : pair.slice(from, semi)
      const eq = sub.indexOf('=')
      if (eq > 0 && sensitive(sub.slice(0, eq))) {
        const valueStart = from + eq + 1
        return valueStart === pair.length ? null : `${pair.slice(0, valueStart)}${REDACTED}`
      }
      if (semi === -1) break
      from = semi + 1
    }
    return null
  }
  const redact = (query: string): string => {
    if (query === '' || !mayHold.test(query)) return query
    const parts = query.split(PAIR_SEPARATOR)
    let changed = false
    for (let i = 0; i < parts.length; i += 2) {
      const out = redactPair(parts[i]!)
      if (out === null) continue
      parts[i] = out
      changed = true
    }
    return changed ? parts.join('') : query
  }
  return Object.assign(redact, { mayHoldCredential: (text: string) => mayHold.test(text) })
}

/**
 * A query redactor (`createQueryRedactor`): call it on a query; `mayHoldCredential(text)` is
 * false when no name it redacts (nor a `%`/`+` that could encode one) occurs in `text`, so a
 * caller can skip finding pairs in text that cannot hold one.
 */
export type QueryRedactor = ((query: string) => string) & { readonly mayHoldCredential: (text: string) => boolean }

/**
 * Replace the values of sensitive query keys with `<redacted>`: `DEFAULT_REDACTED_QUERY_KEYS`,
 * names ending in a `REDACTED_QUERY_KEY_WORDS` word, and any `extraKeys` (pass the
 * `url_session_query_param` and `redact_query_params` settings). Other pairs are kept byte for
 * byte; empty values stay empty (`token=&x=1` is unchanged). The query has no leading `?`.
 */
export function redactQuery(query: string, extraKeys: readonly string[] = []): string {
  return createQueryRedactor(extraKeys)(query)
}

/**
 * `/path?code=abc` → `/path?code=<redacted>`; everything after the first `?` or `#` (query and
 * fragment, `#access_token=…` included) is redacted as pairs. A URL without either is returned as is.
 */
export function redactUrl(url: string, redactor: (query: string) => string = createQueryRedactor()): string {
  const q = url.indexOf('?')
  const h = url.indexOf('#')
  const cut = q === -1 ? h : h === -1 ? q : Math.min(q, h)
  if (cut === -1) return url
  return `${url.slice(0, cut + 1)}${redactor(url.slice(cut + 1))}`
}

/**
 * Redact every `?query` that appears inside free text (a log message that quotes a URL). Used by
 * the logger on messages; a message without `?` is returned as is.
 */
export function redactUrlsInText(text: string, redactor: (query: string) => string): string {
  if (!text.includes('?')) return text
  return text.replace(/\?[^\s"'<>`]+/g, (m) => `?${redactor(m.slice(1))}`)
}

/** `scheme://user:password@` inside text: the password, up to the `@`. */
const URL_PASSWORD_IN_TEXT = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*:)([^\s/?#@]+)@/gi
/** `Bearer <token>`, and `Basic <base64>` (its value holds a digit or `=`; "basic settings" is prose). */
const AUTH_IN_TEXT = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{6,}|\b(Basic\s+)(?=[A-Za-z0-9+/]*[0-9=])[A-Za-z0-9+/]{6,}=*/gi
/** `name=value` outside a URL query; the value runs to white space, a quote, `,`, `;`, `&` or a bracket. */
const PAIR_IN_TEXT = /([A-Za-z0-9_.[\]-]+)=([^\s"'`<>,;&()]+)/g
/** Exact names that are credentials in a URL query only: in prose `code=500` or `state=open` are not. */
const QUERY_ONLY_NAMES = new Set(['code', 'state'])

/**
 * Credentials inside free text such as an error message or stack: URL passwords
 * (`postgres://app:pw@db` → `postgres://app:<redacted>@db`), `Bearer` and `Basic` credentials,
 * URL queries (as `redactUrlsInText`), and `name=value` pairs whose name reads as a credential by
 * the query-key rule (`api_key=…`, `password=…`). Other text is kept byte for byte.
 */
export function redactCredentialsInText(text: string, redactor: (query: string) => string = createQueryRedactor()): string {
  let out = redactUrlsInText(text, redactor)
  if (out.includes('://')) out = out.replace(URL_PASSWORD_IN_TEXT, `$1${REDACTED}@`)
  out = out.replace(AUTH_IN_TEXT, (_m, bearer: string | undefined, basic: string | undefined) => `${bearer ?? basic}${REDACTED}`)
  if (!out.includes('=') || !mayHoldCredential(redactor, out)) return out
  return out.replace(PAIR_IN_TEXT, (pair: string, name: string) =>
    QUERY_ONLY_NAMES.has(name.toLowerCase()) || redactor(pair) === pair ? pair : `${name}=${REDACTED}`,
  )
}

/** A redactor from `createQueryRedactor` knows which texts cannot hold a pair; any other may. */
function mayHoldCredential(redactor: (query: string) => string, text: string): boolean {
  const test = (redactor as Partial<QueryRedactor>).mayHoldCredential
  return test === undefined || test(text)
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

/** `redis://user:pw@host` → `redis://user:<redacted>@host`; text that is not such a URL is returned as is. */
export function redactUrlPassword(value: string): string {
  if (!value.includes('@')) return value
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return value
  }
  if (url.password === '') return value
  url.password = REDACTED
  return url.href.replace(encodeURIComponent(REDACTED), REDACTED)
}

const FLAG = /^-{1,2}([^=\s-][^=\s]*)(=.*)?$/s

/**
 * A command line for a log line or a config listing: the value of a flag whose name reads as a
 * credential by the query-key rule (`--api-key=…`, `--token …`, `--server.cookieSecret …`) is
 * `<redacted>`, as are URL passwords and sensitive query values inside any argument.
 */
export function redactArgv(argv: readonly string[], redactor: (query: string) => string = createQueryRedactor()): string[] {
  const secretName = (name: string): boolean => redactor(`${name}=x`) !== `${name}=x`
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const flag = FLAG.exec(arg)
    if (flag !== null && secretName(flag[1]!)) {
      const value = flag[2]
      if (value !== undefined) out.push(value === '=' ? arg : `${arg.slice(0, arg.indexOf('=') + 1)}${REDACTED}`)
      else {
        out.push(arg)
        const next = argv[i + 1]
        if (next !== undefined && !next.startsWith('-')) {
          out.push(next === '' ? next : REDACTED)
          i++
        }
      }
      continue
    }
    const eq = flag?.[2] === undefined ? -1 : arg.indexOf('=') + 1
    out.push(arg.slice(0, Math.max(eq, 0)) + redactUrlsInText(redactUrlPassword(eq === -1 ? arg : arg.slice(eq)), redactor))
  }
  return out
}
