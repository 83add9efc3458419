import { pino, type ChildLoggerOptions, type Logger, type LoggerOptions, type DestinationStream } from 'pino'
import { JsonLogFormatter, bindRequestId } from './json-formatter.js'
import { stdoutDestination } from './turn-batched-destination.js'

export { JSON_LOG_BASE_FIELDS } from './fields.js'

export type SvcLogger = Logger

export interface LoggerSettings {
  log_level: string
  log_format: 'json' | 'pretty'
  /** Redacted in logged query strings besides the default names. */
  url_session_query_param?: string
  /** More query names redacted in logged URLs (they extend the default list). */
  redact_query_params?: readonly string[]
}

/** The pino options of svc's JSON line (see `JsonLogFormatter`). */
export function jsonLogOptions(level: string, redactQueryKeys: readonly string[] = []): LoggerOptions {
  return new JsonLogFormatter({ level, redactQueryKeys }).options
}

/**
 * The root of svc's logger tree. Name children with `childLogger(root, 'svc.gateway')`.
 * JSON lines on stdout by default, written once per event-loop turn (`stdoutDestination`); `log_format: 'pretty'` renders through pino-pretty (redaction
 * happens before, in pino, so pretty output is as clean as JSON).
 */
export function createRootLogger(settings: LoggerSettings, destination?: DestinationStream): Logger {
  const keys = [...(settings.url_session_query_param ? [settings.url_session_query_param] : []), ...(settings.redact_query_params ?? [])]
  const options = jsonLogOptions(settings.log_level, keys)
  if (destination) return markRoot(pino(options, destination))
  if (settings.log_format === 'pretty') {
    return markRoot(pino({
      ...options,
      transport: {
        target: 'pino-pretty',
        options: { messageKey: 'message', ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l', destination: 1 },
      },
    }))
  }
  return markRoot(pino(options, stdoutDestination()))
}

/** Set on a root from `createRootLogger`; its children inherit it through pino's prototype chain. */
const kTreeRoot = Symbol('svc.logging.treeRoot')

/**
 * A named logger in the tree: `svc`, `svc.gateway`, `svc.api`, `svc.ui`, `svc.supervisor`.
 * Given any logger of svc's tree (the root or a named child), the new logger hangs off the root,
 * so its line carries one `logger` field, never the parent's name as well.
 */
export function childLogger(parent: Logger, name: string, bindings: Record<string, unknown> = {}): Logger {
  const root = (parent as unknown as Record<symbol, Logger | undefined>)[kTreeRoot] ?? parent
  return root.child({ logger: name, ...bindings })
}

function markRoot(root: Logger): Logger {
  ;(root as unknown as Record<symbol, Logger>)[kTreeRoot] = root
  return root
}

/**
 * Fastify `childLoggerFactory` for `app.api`: the per-request child carries the request ID once
 * (Fastify binds it under `requestIdLogLabel`, which svc sets to `request_id`).
 */
export function requestChildLoggerFactory(
  logger: Logger,
  bindings: Record<string, unknown>,
  opts: ChildLoggerOptions,
): Logger {
  const { request_id: id, ...rest } = bindings
  if (typeof id !== 'string') return logger.child(bindings, opts)
  return bindRequestId(logger, id, rest, opts)
}
