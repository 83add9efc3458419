import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Logger } from 'pino'
import { resolveRequestId } from '../../logging/request-id.js'
import { ERRORS } from '../../errors.js'

const CODE = 'SVC_ERR_UI_INTERNAL'
const MESSAGE = 'the page server failed on this request; its log has the details under this request ID'

/**
 * A page-server handler threw: log it with the request ID and answer 500 JSON, so one bad
 * request never takes the process down. The message is generic: the details are in the log.
 */
export function answerInternalError(req: IncomingMessage, res: ServerResponse, err: unknown, logger: Logger): void {
  const requestId = resolveRequestId(req.headers['x-request-id'])
  logger.error({ err, request_id: requestId, method: req.method, path: pathOf(req) }, 'ui request failed')
  if (res.headersSent) {
    res.destroy()
    return
  }
  const body = JSON.stringify({ error: ERRORS[CODE].error, message: MESSAGE, request_id: requestId })
  // Whatever the failed handler set (a half-built header set) does not go out with the 500.
  for (const name of res.getHeaderNames()) res.removeHeader(name)
  res.writeHead(ERRORS[CODE].status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store', 'x-request-id': requestId })
  res.end(body)
}

/** The same for a WebSocket handshake: nothing was upgraded yet, so the socket gets a plain 500. */
export function refuseUpgrade(req: IncomingMessage, socket: Socket, err: unknown, logger: Logger): void {
  const requestId = resolveRequestId(req.headers['x-request-id'])
  logger.error({ err, request_id: requestId, path: pathOf(req) }, 'ui request failed')
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const body = JSON.stringify({ error: ERRORS[CODE].error, message: MESSAGE, request_id: requestId })
  socket.end(`HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-ID: ${requestId}\r\n\r\n${body}`)
}

/** The path without the query: a query may carry a URL-session id. */
function pathOf(req: IncomingMessage): string {
  return (req.url ?? '/').split('?', 1)[0]!
}
