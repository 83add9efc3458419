import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { ERRORS, type SvcErrorCode } from '../src/errors.js'

/** Body of every answer the gateway gives itself: `{ error, message, request_id }`. */
export function errorBody(code: SvcErrorCode, message: string, requestId: string): string {
  return JSON.stringify({ error: ERRORS[code].error, message, request_id: requestId })
}

export function sendJsonError(res: ServerResponse, code: SvcErrorCode, message: string, requestId: string): void {
  if (res.headersSent) {
    res.destroy()
    return
  }
  const body = errorBody(code, message, requestId)
  res.writeHead(ERRORS[code].status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
  })
  res.end(body)
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  431: 'Request Header Fields Too Large',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
}

/** Refuse a WebSocket handshake on the raw socket (nothing was upgraded yet). */
export function rejectUpgrade(socket: Socket, code: SvcErrorCode, message: string, requestId: string): void {
  if (socket.destroyed) return
  const status = ERRORS[code].status
  const body = errorBody(code, message, requestId)
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-ID: ${requestId}\r\n\r\n` +
      body,
  )
}
