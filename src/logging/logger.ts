import { pino, type Logger, type LoggerOptions, type DestinationStream } from 'pino'
import { getRequestId } from './context.js'

/** Base fields of every JSON log line, in order. */
export const JSON_LOG_BASE_FIELDS = ['time', 'level', 'logger', 'message'] as const

export type SvcLogger = Logger

export interface LoggerSettings {
  log_level: string
  log_format: 'json' | 'pretty'
}

/**
 * The pino options that make svc's JSON line: `time` ISO-8601, `level` by name, `logger`,
 * `message`, `request_id` when one is set, then every extra field.
 */
export function jsonLogOptions(level: string): LoggerOptions {
  return {
    level,
    messageKey: 'message',
    base: null,
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    formatters: {
      level: (label) => ({ level: label }),
    },
    mixin: () => {
      const id = getRequestId()
      return id === undefined ? {} : { request_id: id }
    },
  }
}

/** The root of svc's logger tree. Name children with `childLogger(root, 'svc.gateway')`. */
export function createRootLogger(settings: LoggerSettings, destination?: DestinationStream): Logger {
  const options = jsonLogOptions(settings.log_level)
  if (destination) return pino(options, destination)
  if (settings.log_format === 'pretty') {
    return pino({
      ...options,
      transport: {
        target: 'pino-pretty',
        options: { messageKey: 'message', ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l', destination: 1 },
      },
    })
  }
  return pino(options, pino.destination({ dest: 1, sync: false }))
}

/** A named logger in the tree: `svc`, `svc.gateway`, `svc.api`, `svc.ui`, `svc.supervisor`. */
export function childLogger(root: Logger, name: string, bindings: Record<string, unknown> = {}): Logger {
  return root.child({ logger: name, ...bindings })
}
