import type { ChildLoggerOptions, Logger, LoggerOptions } from 'pino'
import pino from 'pino'
import { getRequestId } from './context.js'
import { JSON_LOG_BASE_FIELDS } from './fields.js'
import { REDACTED, createQueryRedactor, redactAuthorization, redactCredentialsInText, redactHeaders, redactUrl, type HeaderInput } from './redact.js'
import { scrubSecrets } from './secret-scrub.js'

/** What every credential `redactCredentialsInText` finds holds: a cheap test before its patterns run. */
const MAY_QUOTE_CREDENTIAL = /[?=@]|bearer|basic/i

/** Marks a child logger whose bindings already carry `request_id`, so the mixin adds none. */
const kRequestIdBound = Symbol('svc.logging.requestIdBound')

/**
 * Paths pino censors in every log object, whatever logged it: credential headers wherever a
 * header map is logged, and token-like keys at the top level. Exact paths only: a leading
 * wildcard would make pino inspect every key of every line.
 */
const HEADER_HOLDERS = ['', 'req.', 'res.', 'request.', 'reply.', 'upstream.']
const HEADER_KEYS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie']
export const LOG_REDACT_PATHS: readonly string[] = [
  ...HEADER_HOLDERS.flatMap((h) => HEADER_KEYS.map((k) => `${h}headers["${k}"]`)),
  ...HEADER_KEYS.map((k) => `["${k}"]`),
  'access_token',
  'id_token',
  'refresh_token',
  'client_secret',
  'password',
  'token',
  'svc_access_token',
  'svc_sid',
  'auth_code',
]

function censor(value: unknown, path: string[]): string {
  const key = path[path.length - 1]
  return key === 'authorization' || key === 'proxy-authorization' ? redactAuthorization(String(value)) : REDACTED
}

/** An error as one string: its stack (or `Name: message`), then each `cause`. */
export function formatException(error: unknown): string {
  const parts: string[] = []
  let e: unknown = error
  for (let depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    parts.push(e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e))
    e = e instanceof Error ? e.cause : undefined
  }
  return parts.join('\nCaused by: ')
}

interface RequestLike {
  method?: string
  url?: string
  raw?: { method?: string; url?: string }
}

export interface JsonLogFormatterOptions {
  /** pino level name: trace, debug, info, warn, error, fatal. */
  level: string
  /** Query keys redacted in logged URLs besides the default list (url_session_query_param, redact_query_params). */
  redactQueryKeys?: readonly string[]
}

/**
 * svc's JSON line, as pino options: one object per line with `time` (ISO-8601), `level` (name),
 * `logger`, `message`, `request_id` when one is set (bound on the logger or current in the
 * request context), then every extra field. Errors logged under `err` (or passed directly) become
 * an `exception` field holding the stack, its credentials redacted
 * (`redactCredentialsInText`). Credentials are censored (`LOG_REDACT_PATHS`), logged
 * `req` objects are reduced to method and query-redacted URL, `headers` maps pass `redactHeaders`,
 * `url` / `upstream_url` fields and URLs quoted in the message have their query redacted.
 *
 * ```ts
 * const logger = pino(new JsonLogFormatter({ level: 'info' }).options)
 * ```
 */
export class JsonLogFormatter {
  static readonly BASE_FIELDS = JSON_LOG_BASE_FIELDS
  readonly options: LoggerOptions

  constructor(opts: JsonLogFormatterOptions) {
    const redactQuery = createQueryRedactor(opts.redactQueryKeys ?? [])
    // An error's message and stack quote what the failing code held: a connection string, a token.
    // Registered secrets first: a secret that is a whole URL goes as one, before the pattern
    // takes only its password.
    const exception = (error: unknown): string => redactCredentialsInText(scrubSecrets(formatException(error)), redactQuery)
    this.options = {
      level: opts.level,
      messageKey: 'message',
      errorKey: 'exception',
      base: null,
      timestamp: () => `,"time":"${new Date().toISOString()}"`,
      formatters: {
        level: (label) => ({ level: label }),
        log: (obj) => {
          // Fastify and most libraries log errors under `err`; svc's field is `exception`.
          if (obj.err === undefined || obj.exception !== undefined) return obj
          const { err, ...rest } = obj
          return { ...rest, exception: err }
        },
      },
      serializers: {
        exception,
        err: exception,
        headers: (h: HeaderInput) => (h && typeof h === 'object' ? redactHeaders(h) : h),
        req: (req: RequestLike) => {
          const method = req.method ?? req.raw?.method
          const url = req.url ?? req.raw?.url
          return { method, url: url === undefined ? undefined : redactUrl(url, redactQuery) }
        },
        res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
        url: (url: unknown) => (typeof url === 'string' ? redactUrl(url, redactQuery) : url),
        upstream_url: (url: unknown) => (typeof url === 'string' ? redactUrl(url, redactQuery) : url),
      },
      hooks: {
        // A message quoting a URL (`upstream error for http://…?code=…`) or a credential (an
        // error's message logged as the line's: `connect failed: postgres://app:pw@db`) is
        // redacted like a field and like the error's own `exception`.
        logMethod(args, method) {
          const i = typeof args[0] === 'string' ? 0 : 1
          const msg = args[i]
          if (typeof msg === 'string' && MAY_QUOTE_CREDENTIAL.test(msg)) args[i] = redactCredentialsInText(scrubSecrets(msg), redactQuery)
          return method.apply(this, args)
        },
        // The app's secret values never reach a line, under any key (src/logging/secret-scrub.ts).
        streamWrite: scrubSecrets,
      },
      redact: { paths: [...LOG_REDACT_PATHS], censor },
      mixin: (_merge, _level, logger) => {
        const id = getRequestId()
        if (id === undefined || hasBoundRequestId(logger)) return {}
        return { request_id: id }
      },
    }
  }
}

/**
 * The logger already carries `request_id` in its bindings: Fastify's per-request `request.log`
 * (a plain `child({ request_id })`, `requestIdLogLabel` being `request_id`) or `bindRequestId`.
 */
function hasBoundRequestId(logger: unknown): boolean {
  const l = logger as Record<symbol, unknown>
  if (l[kRequestIdBound] === true) return true
  const bindings = l[pino.symbols.chindingsSym]
  return typeof bindings === 'string' && bindings.includes('"request_id":')
}

/**
 * A child of `logger` bound to one request: its lines carry `request_id` even when logged
 * outside the request's async context, and never twice.
 */
export function bindRequestId(
  logger: Logger,
  requestId: string,
  bindings: Record<string, unknown> = {},
  options?: ChildLoggerOptions,
): Logger {
  const child = logger.child({ ...bindings, request_id: requestId }, options)
  ;(child as unknown as Record<symbol, unknown>)[kRequestIdBound] = true
  return child
}
