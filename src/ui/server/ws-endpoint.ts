import type { IncomingMessage } from 'node:http'
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import { WebSocket } from 'ws'
import { runWithRequestId } from '../../logging/context.js'
import { parseClientMessage, type ClientMessage, type ServerMessage } from '../protocol.js'
import type { StContext } from '../st-types.js'
import type { BoundSession, SessionHost } from './local-sessions.js'

/** A client that sends nothing for this long after connecting is closed (it never said hello). */
export const HELLO_TIMEOUT_MS = 10_000
/** Ping interval; a peer that has not answered the previous ping is dropped (it vanished without a close frame). */
export const HEARTBEAT_MS = 30_000
/** A socket whose unsent output passes this is closed: the browser is not reading. */
export const MAX_BUFFERED_BYTES = 32 * 1024 * 1024

const REQUEST_ID = /^[A-Za-z0-9._:/+=-]{1,128}$/

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  if (!header) return out
  for (const part of header.split(';')) {
    const i = part.indexOf('=')
    if (i <= 0) continue
    const name = part.slice(0, i).trim()
    let value = part.slice(i + 1).trim()
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1)
    try {
      out[name] = decodeURIComponent(value)
    } catch {
      out[name] = value
    }
  }
  return out
}

/** `st.context` from the handshake request. */
export function handshakeContext(req: IncomingMessage): StContext {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v
  const rid = headers['x-request-id']?.trim()
  return Object.freeze({
    headers: Object.freeze(headers),
    cookies: Object.freeze(parseCookies(headers.cookie)),
    requestId: rid !== undefined && REQUEST_ID.test(rid) ? rid : randomUUID(),
  })
}

/** The page path of a browser path under `basePath` (`/tools/reports` → `/reports`). */
export function stripBase(path: string, basePath: string): string {
  if (basePath === '') return path || '/'
  if (path === basePath) return '/'
  return path.startsWith(basePath + '/') ? path.slice(basePath.length) : path || '/'
}

/** Serve one page WebSocket: hello → session, then client messages → the session. */
export function servePageSocket(ws: WebSocket, req: IncomingMessage, deps: { sessions: SessionHost; basePath: string; logger: Logger }): void {
  const context = handshakeContext(req)
  const log = deps.logger
  let session: BoundSession | null = null
  const send = (message: ServerMessage | string): void => {
    if (ws.readyState !== WebSocket.OPEN) return
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      ws.close(1013, 'client too slow')
      return
    }
    ws.send(typeof message === 'string' ? message : JSON.stringify(message))
  }
  const helloTimer = setTimeout(() => ws.close(1008, 'expected hello'), HELLO_TIMEOUT_MS)
  helloTimer.unref()
  let alive = true
  ws.on('pong', () => (alive = true))
  const heartbeat = setInterval(() => {
    if (!alive) {
      ws.terminate()
      return
    }
    alive = false
    ws.ping()
  }, HEARTBEAT_MS)
  heartbeat.unref()

  // Opening may wait for a snapshot on another replica's behalf (Redis) or for a page thread:
  // messages that arrive meanwhile wait in `queued`, then go to the session in order.
  let queued: ClientMessage[] | null = null
  let closed = false
  const dispatch = (msg: ClientMessage): void => {
    if (session === null) {
      send({ v: 1, type: 'error', message: 'send hello first' })
      return
    }
    session.handle(msg.type === 'navigate' || msg.type === 'hello' ? { ...msg, path: stripBase(msg.path, deps.basePath) } : msg)
  }
  const opened = (bound: BoundSession): void => {
    if (closed) {
      bound.release()
      return
    }
    session = bound
    for (const msg of queued ?? []) dispatch(msg)
    queued = null
  }
  ws.on('message', (data, isBinary) => {
    runWithRequestId(context.requestId, () => {
      const msg = isBinary ? null : parseClientMessage(data.toString())
      if (msg === null) {
        log.debug('ui dropped a malformed page message')
        send({ v: 1, type: 'error', message: 'malformed message: expected a JSON page-protocol message with v: 1' })
        return
      }
      if (queued !== null) {
        queued.push(msg)
        return
      }
      if (msg.type === 'hello' && session === null) {
        clearTimeout(helloTimer)
        queued = []
        deps.sessions
          .open({ requestedId: msg.sessionId, path: stripBase(msg.path, deps.basePath), query: msg.query }, context, { send, close: (code, reason) => ws.close(code, reason) })
          .then(
            (bound) => runWithRequestId(context.requestId, () => opened(bound)),
            (err: unknown) => {
              queued = null
              log.error({ err }, 'ui session could not be opened')
              ws.close(1011, 'session unavailable')
            },
          )
        return
      }
      dispatch(msg)
    })
  })
  ws.on('close', (code) => {
    closed = true
    clearTimeout(helloTimer)
    clearInterval(heartbeat)
    runWithRequestId(context.requestId, () => {
      if (session) {
        session.release()
        log.info({ code }, 'ui session disconnected; state kept for the session TTL')
      }
    })
  })
  ws.on('error', (err) => runWithRequestId(context.requestId, () => log.debug({ err }, 'ui websocket error')))
}
