import type { IncomingMessage } from 'node:http'
import { resolveRequestId } from '../../logging/request-id.js'
import { performance } from 'node:perf_hooks'
import type { Logger } from 'pino'
import { WebSocket } from 'ws'
import { runWithRequestId } from '../../logging/context.js'
import { startHeartbeat } from '../../internal/ws-heartbeat.js'
import { parseClientMessage, type ServerMessage } from '../wire/protocol.js'
import type { SocketContext } from '../st-types.js'
import { clientAddress, helloContext } from '../runtime/socket-context.js'
import type { ClientMessage } from '../wire/protocol.js'
import type { BoundSession, SessionHost } from './local-sessions.js'
import { UI_PROTOCOL_VERSION } from '../wire/protocol.js'
import { stripBase } from './base-path.js'

/** A client that sends nothing for this long after connecting is closed (it never said hello). */
export const HELLO_TIMEOUT_MS = 10_000
/** A socket whose unsent output passes this is closed: the browser is not reading. */
export const MAX_BUFFERED_BYTES = 32 * 1024 * 1024
/** The largest first message (a `hello`): until it is answered, nothing bigger is read. */
export const HELLO_MAX_BYTES = 64 * 1024
/**
 * Client messages read but not yet handled by their session (on its page thread): past either
 * bound the socket is not read until the session catches up, so one fast sender queues nothing
 * in the page server but what TCP holds.
 */
export const FLOW_MAX_BYTES = 1024 * 1024
export const FLOW_MAX_MESSAGES = 64
/**
 * A page socket is read at this many bytes per second on average, with bursts of twice as much:
 * `ui_max_message_bytes` per second (at least 1 MiB/s). A browser's widget input is far below it;
 * a client that sends as fast as it can is held to it by TCP, so it cannot take the page
 * server's CPU from the other sessions.
 */
export function readRate(maxMessageBytes: number): number {
  return Math.max(maxMessageBytes, 1024 * 1024)
}


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

/** `st.context` from the handshake request (`trustProxy`: the `trust_proxy` setting, for the visitor's address). */
export function handshakeContext(req: IncomingMessage, trustProxy = false): SocketContext {
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v
  return Object.freeze({
    headers: Object.freeze(headers),
    cookies: Object.freeze(parseCookies(headers.cookie)),
    requestId: resolveRequestId(headers['x-request-id']),
    ipAddress: clientAddress(headers['x-forwarded-for'], req.socket.remoteAddress, trustProxy),
  })
}


/** Serve one page WebSocket: hello → session, then client messages → the session (parsed there, once). */
export function servePageSocket(
  ws: WebSocket,
  req: IncomingMessage,
  deps: {
    sessions: SessionHost
    basePath: string
    logger: Logger
    maxMessageBytes: number
    /** True while the dev overlay shows a load error: sessions cannot open, and the error was logged once already. */
    loadFailing?: () => boolean
    /** Dev: call `then` once the app loads again (the next good save). */
    whenLoads?: (then: () => void) => void
    /** `trust_proxy`: the visitor's address is the one the proxy in front reported. */
    trustProxy?: boolean
  },
): void {
  const context = handshakeContext(req, deps.trustProxy ?? false)
  const log = deps.logger
  let session: BoundSession | null = null
  let closed = false
  /** The session left this socket once (its thread was replaced): stray input until the next hello is dropped. */
  let unbound = false
  const send = (message: ServerMessage | string): void => {
    if (ws.readyState !== WebSocket.OPEN) return
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      ws.close(1013, 'client too slow')
      return
    }
    ws.send(typeof message === 'string' ? message : JSON.stringify(message))
  }
  const tooLarge = (limit: number): void => {
    log.warn({ code: 'SVC_ERR_UI_MESSAGE_TOO_LARGE', limit_bytes: limit }, `ui page message over ${limit} bytes refused; socket closed with 1009`)
  }
  const helloTimer = setTimeout(() => ws.close(1008, 'expected hello'), HELLO_TIMEOUT_MS)
  helloTimer.unref()
  const stopHeartbeat = startHeartbeat(ws)

  // The socket is not read while messages read but not yet handled pass the flow bounds, or while
  // it is ahead of its read rate (a token bucket).
  let inflightBytes = 0
  let inflightMessages = 0
  const rate = readRate(deps.maxMessageBytes)
  let tokens = 2 * rate
  let refilled = performance.now()
  let rateTimer: NodeJS.Timeout | null = null
  let paused = false
  const sync = (): void => {
    const hold = rateTimer !== null || inflightBytes > FLOW_MAX_BYTES || inflightMessages > FLOW_MAX_MESSAGES
    if (hold === paused || closed) return
    paused = hold
    if (hold) ws.pause()
    else ws.resume()
  }
  const track = (n: number): (() => void) => {
    const now = performance.now()
    tokens = Math.min(2 * rate, tokens + ((now - refilled) / 1000) * rate) - n
    refilled = now
    if (tokens < 0 && rateTimer === null) {
      rateTimer = setTimeout(() => {
        rateTimer = null
        sync()
      }, (-tokens / rate) * 1000)
    }
    inflightBytes += n
    inflightMessages++
    sync()
    return () => {
      inflightBytes -= n
      inflightMessages--
      sync()
    }
  }

  // Opening may wait for a snapshot on another replica's behalf (Redis) or for a page thread:
  // messages that arrive meanwhile wait in `queued`, then go to the session in order.
  let queued: { bytes: Uint8Array; done: () => void }[] | null = null
  const forward = (bytes: Uint8Array): void => {
    const done = track(bytes.byteLength)
    if (queued !== null) queued.push({ bytes, done })
    else session!.handle(bytes, done)
  }
  const opened = (bound: BoundSession): void => {
    if (closed) {
      bound.release()
      return
    }
    session = bound
    const waiting = queued ?? []
    queued = null
    for (const { bytes, done } of waiting) bound.handle(bytes, done)
  }
  const open = (hello: Extract<ClientMessage, { type: 'hello' }>): void => {
    clearTimeout(helloTimer)
    queued = []
    unbound = false
    // What only the browser knows (locale, time zone, URL, theme, frame), checked against the socket.
    const known = Object.freeze({ ...context, ...helloContext(hello.client, context.headers, deps.basePath) })
    deps.sessions
      .open({ requestedId: hello.sessionId, path: stripBase(hello.path, deps.basePath), query: hello.query, ...(hello.storage ? { storage: hello.storage } : {}) }, known, {
        send,
        close: (code, reason) => ws.close(code, reason),
        unbind: (message) => {
          session = null
          unbound = true
          send(message)
        },
      })
      .then(
        (bound) => runWithRequestId(context.requestId, () => opened(bound)),
        (err: unknown) => {
          for (const { done } of queued ?? []) done()
          queued = null
          // Under `svc dev` with a broken save the socket stays: the tab shows the overlay (not a
          // reconnect loop that logs the same failure again) and says hello again once the app loads.
          if (deps.loadFailing?.() && deps.whenLoads) {
            log.debug({ err }, 'ui session could not be opened: the app does not load (the dev overlay says why); waiting for the next good save')
            unbound = true
            deps.whenLoads(() => {
              if (!closed) send({ v: UI_PROTOCOL_VERSION, type: 'resume' })
            })
            return
          }
          log.error({ err }, 'ui session could not be opened')
          ws.close(1011, 'session unavailable')
        },
      )
  }
  /** Without a session only a small `hello` is read; after one was lost, stray input is dropped. */
  const beforeSession = (bytes: Uint8Array): void => {
    if (bytes.byteLength > HELLO_MAX_BYTES) {
      if (unbound) return
      tooLarge(HELLO_MAX_BYTES)
      ws.close(1009, 'first message too large')
      return
    }
    const msg = parseClientMessage(bytes)
    if (msg?.type === 'hello') return open(msg)
    if (unbound) return log.debug('ui dropped a page message sent while its session moved to another thread')
    if (msg === null) {
      log.debug('ui dropped a malformed page message')
      send({ v: UI_PROTOCOL_VERSION, type: 'error', message: 'malformed message: expected a JSON page-protocol message with v: 1' })
    } else send({ v: UI_PROTOCOL_VERSION, type: 'error', message: 'send hello first' })
  }
  ws.on('message', (data, isBinary) => {
    runWithRequestId(context.requestId, () => {
      const bytes = data as Buffer
      if (isBinary) {
        send({ v: UI_PROTOCOL_VERSION, type: 'error', message: 'malformed message: expected a JSON page-protocol message with v: 1' })
        return
      }
      if (session !== null || queued !== null) forward(bytes)
      else beforeSession(bytes)
    })
  })
  ws.on('close', (code) => {
    closed = true
    if (rateTimer) clearTimeout(rateTimer)
    clearTimeout(helloTimer)
    stopHeartbeat()
    runWithRequestId(context.requestId, () => {
      if (session) {
        session.release()
        log.info({ code }, 'ui session disconnected; state kept for the session TTL')
      }
    })
  })
  ws.on('error', (err: Error & { code?: string }) =>
    runWithRequestId(context.requestId, () => {
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') tooLarge(deps.maxMessageBytes)
      else log.debug({ err }, 'ui websocket error')
    }),
  )
}
