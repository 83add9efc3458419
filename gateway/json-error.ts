import type { ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { ERRORS, type SvcErrorCode } from '../src/errors.js'
import { lingeringClose } from './lingering-close.js'

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
  417: 'Expectation Failed',
  426: 'Upgrade Required',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
}

/**
 * Refuse a WebSocket handshake on the raw socket (nothing was upgraded yet), then close it with
 * a bounded lingering close: `end()` alone would keep the descriptor for as long as the client
 * keeps its side open, and closing at once could reset the answer away.
 */
export function rejectUpgrade(socket: Socket, code: SvcErrorCode, message: string, requestId: string, extraHead = ''): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const status = ERRORS[code].status
  const body = errorBody(code, message, requestId)
  lingeringClose(
    socket,
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      extraHead +
      `X-Request-ID: ${requestId}\r\n\r\n` +
      body,
  )
}
