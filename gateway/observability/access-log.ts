import { pino, type Logger } from 'pino'
import { isDeferringDestination } from '../../src/logging/turn-batched-destination.js'
import type { RequestInfo } from './observation.js'

/**
 * The access-log line, written by hand: at one line per request it is the gateway's hottest
 * log call, and pino's general path (mixin, redaction paths, serializers, child bindings) cost
 * about 10 µs a line in a busy worker (bench/proxy.ts). The line has exactly the fields pino
 * would write (level, time, logger, the access-log fields, status, duration_ms, error, message)
 * and goes to the same destination, so JSON and pretty output are unchanged. On svc's stdout
 * destination the record is formatted at the end of the event-loop turn, with the turn's other
 * access lines, in order with every other line of the process.
 * The request id (validated against REQUEST_ID_PATTERN) and the method (an HTTP token or
 * `websocket`) need no JSON escaping; path, query and error do.
 */
export type AccessLogWrite = (info: RequestInfo, query: string, status: number, durationMs: number, error: string | undefined) => void

interface AccessRecord {
  info: RequestInfo
  query: string
  status: number
  durationMs: number
  error: string | undefined
  /** Epoch ms when the response ended. */
  time: number
}

export function createAccessLogWriter(logger: Logger, level: 'info' | 'debug'): AccessLogWrite {
  const stream = (logger as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym]!
  const format = accessLineFormatter(level)
  if (isDeferringDestination(stream)) {
    return (info, query, status, durationMs, error) => {
      stream.deferLine(format, { info, query, status, durationMs, error, time: Date.now() })
    }
  }
  return (info, query, status, durationMs, error) => {
    stream.write(format({ info, query, status, durationMs, error, time: Date.now() }))
  }
}

function accessLineFormatter(level: 'info' | 'debug'): (r: AccessRecord) => string {
  const head = `{"level":"${level}","time":"`
  const loggerField = '","logger":"svc.gateway","request_id":"'
  // Formatting a Date is the costliest step left; one string per millisecond is enough.
  let lastMs = 0
  let lastIso = ''
  return ({ info, query, status, durationMs, error, time }) => {
    if (time !== lastMs) {
      lastMs = time
      lastIso = new Date(time).toISOString()
    }
    const path = JSON.stringify(info.path)
    return (
      head +
      lastIso +
      loggerField +
      info.requestId +
      `","svc_dispatch":"${info.dispatch}","http_method_or_type":"${info.methodOrType}","path":` +
      path +
      ',"query":' +
      (query === '' ? '""' : JSON.stringify(query)) +
      ',"status":' +
      status +
      ',"duration_ms":' +
      durationMs +
      (error === undefined ? '' : ',"error":' + JSON.stringify(error)) +
      ',"message":"gateway ' +
      info.methodOrType +
      ' ' +
      path.slice(1, -1) +
      ' request_id=' +
      info.requestId +
      '"}\n'
    )
  }
}
