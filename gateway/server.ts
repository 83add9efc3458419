import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { http } from '../src/internal/node-http.js'
import { Server as NetServer, type Socket } from 'node:net'
import { once } from 'node:events'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { SvcErrorCode } from '../src/errors.js'
import { errorBody, rejectUpgrade, sendJsonError } from './json-error.js'
import { resolveRequestId } from '../src/logging/request-id.js'
import { discardInput, lingerBriefly, lingeringClose, lingeringDestroySoon } from './lingering-close.js'
import { Lifecycle } from '../src/internal/lifecycle.js'

/**
 * The worker's HTTP server and its lifecycle: listen on the handle the supervisor passed (or a
 * port, in-process), then `close(graceMs)`: stop accepting, serve what arrives on open connections with
 * `Connection: close`, let idle keep-alive connections expire, and after the grace destroy the
 * rest. State: idle → listening → draining → closed.
 */
export type ServerState = 'idle' | 'listening' | 'draining' | 'closed'

export interface ServerHandlers {
  handleRequest: (req: IncomingMessage, res: ServerResponse) => void
  /** A request with `Expect: 100-continue`: the handler sends 100 once it wants the body. */
  handleContinue: (req: IncomingMessage, res: ServerResponse) => void
  handleUpgrade: (req: IncomingMessage, socket: Socket, head: Buffer) => void
}

/** Client-side limits (nginx's client_header_timeout, keepalive_timeout, worker_connections). */
export interface ServerLimits {
  headerTimeoutMs: number
  keepAliveTimeoutMs: number
  /** Over this many open connections the worker drops new ones at accept. */
  maxConnections: number
}

/** How often Node checks header deadlines: often enough for short test timeouts, at most once a second. */
function checkingIntervalMs(headerTimeoutMs: number): number {
  return Math.min(1_000, Math.max(50, Math.floor(headerTimeoutMs / 4)))
}

/**
 * The backstop for a connection's first request head: node:http's sweep over its connection list
 * (every `checkingIntervalMs`) answers a head that is late; this per-connection deadline fires a
 * sweep and a second later, so it only acts on a connection that sweep missed. A round-four probe
 * (issue 34.6) saw silent connections outlive the header timeout after a hostile sequence, which
 * no local run reproduced; with this deadline no first head can, whatever node's list holds.
 */
function headDeadlineMs(headerTimeoutMs: number): number {
  return headerTimeoutMs + 2 * checkingIntervalMs(headerTimeoutMs) + 1_000
}

/** A parse error or timeout on a socket no request handler owns yet, as a JSON answer. */
function clientErrorAnswer(code: string | undefined): { status: number; reason: string; svc: SvcErrorCode; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, reason: 'Request Header Fields Too Large', svc: 'SVC_ERR_GATEWAY_HEADERS_TOO_LARGE', message: 'request headers are larger than the limit (16 KiB by default, node --max-http-header-size)' }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, reason: 'Request Timeout', svc: 'SVC_ERR_GATEWAY_HEADER_TIMEOUT', message: 'the request headers did not arrive in time (gateway_client_header_timeout_s)' }
    default:
      return { status: 400, reason: 'Bad Request', svc: 'SVC_ERR_GATEWAY_BAD_REQUEST', message: `malformed HTTP request (${code ?? 'parse error'})` }
  }
}

/** Without a soft open-file limit to go by (not Linux, or unlimited). */
const FALLBACK_MAX_CONNECTIONS = 4_096

/**
 * `gateway_max_connections` 0: half the process's soft open-file limit (Node raises it to the
 * hard limit at start), since a proxied client connection may hold an upstream socket too and
 * the rest (pool, logs, the app's own files) needs descriptors left over.
 */
export function autoMaxConnections(limitsFile = '/proc/self/limits'): number {
  let text: string
  try {
    text = readFileSync(limitsFile, 'utf8')
  } catch {
    return FALLBACK_MAX_CONNECTIONS
  }
  const soft = /^Max open files\s+(\d+)/m.exec(text)
  return soft ? Math.max(64, Math.floor(Number(soft[1]) / 2)) : FALLBACK_MAX_CONNECTIONS
}

/** Node's own link from a socket to the response it is writing (what its default clientError handler checks). */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null }

export class GatewayServer extends Lifecycle {
  readonly server: Server
  #state: ServerState = 'idle'
  /** Connections the supervisor handed over: net.Server's own count does not include them. */
  readonly #handedOver = new Set<Socket>()
  #lastHandedOverClosed: (() => void) | null = null
  /** Connections whose first request head has not been parsed yet, with their head deadline. */
  readonly #headDeadlines = new WeakMap<Socket, NodeJS.Timeout>()

  constructor(handlers: ServerHandlers, limits: ServerLimits) {
    super()
    this.server = http.createServer(
      {
        keepAliveTimeout: limits.keepAliveTimeoutMs,
        // No whole-request deadline (uploads and long polls may take long); the header deadline
        // and the body idle timeout (handler) bound what a client can hold without sending.
        requestTimeout: 0,
        headersTimeout: limits.headerTimeoutMs,
        connectionsCheckingInterval: checkingIntervalMs(limits.headerTimeoutMs),
        // The handler answers a missing Host itself, as JSON (Node's own answer has no body).
        requireHostHeader: false,
      },
      handlers.handleRequest,
    )
    this.server.maxConnections = limits.maxConnections
    // Node ends a `Connection: close` exchange with `socket.destroySoon()`: linger instead.
    const headDeadline = headDeadlineMs(limits.headerTimeoutMs)
    this.server.on('connection', (socket: Socket & { destroySoon?: () => void }) => {
      socket.destroySoon = lingeringDestroySoon
      this.#armHeadDeadline(socket, headDeadline)
    })
    // Emitted once a head is parsed: the head deadline is met (later heads are node's sweep's).
    const headArrived = (req: IncomingMessage): void => this.#clearHeadDeadline(req.socket)
    for (const event of ['request', 'checkContinue', 'checkExpectation', 'upgrade', 'connect']) this.server.prependListener(event, headArrived)
    this.server.on('checkContinue', handlers.handleContinue)
    this.server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
      res.setHeader('connection', 'close')
      sendJsonError(res, 'SVC_ERR_GATEWAY_EXPECTATION_FAILED', `unsupported Expect header ${JSON.stringify(req.headers.expect)}; only 100-continue is understood`, resolveRequestId(req.headers['x-request-id']))
    })
    this.server.on('upgrade', handlers.handleUpgrade)
    // Node drops a CONNECT without a word when nobody listens; the gateway is no forward proxy.
    this.server.on('connect', (req: IncomingMessage, socket: Socket) => {
      socket.on('error', () => socket.destroy())
      rejectUpgrade(socket, 'SVC_ERR_GATEWAY_BAD_REQUEST', 'CONNECT is not supported: the gateway is not a forward proxy', resolveRequestId(req.headers['x-request-id']))
    })
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket: HttpSocket) => this.#answerClientError(err, socket))
  }

  #armHeadDeadline(socket: Socket, ms: number): void {
    const timer = setTimeout(() => {
      this.#headDeadlines.delete(socket)
      // Answered already (node's sweep, a parse error): that answer's lingering close ends it.
      if (!socket.writable) return
      this.#answerClientError(Object.assign(new Error('the request head did not arrive in time'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket)
    }, ms)
    timer.unref()
    this.#headDeadlines.set(socket, timer)
    socket.once('close', () => this.#clearHeadDeadline(socket))
  }

  #clearHeadDeadline(socket: Socket): void {
    const timer = this.#headDeadlines.get(socket)
    if (timer === undefined) return
    clearTimeout(timer)
    this.#headDeadlines.delete(socket)
  }

  /** node:http's 'clientError': a parse error or a late head on a connection, answered as JSON. */
  #answerClientError(err: NodeJS.ErrnoException, socket: HttpSocket): void {
    const inFlight = socket._httpMessage
    // Bytes after a request that closes the connection (HTTP/1.0 without keep-alive): the
    // request before them is still being answered, and Node closes the connection after it.
    if (err.code === 'HPE_CLOSED_CONNECTION' && inFlight && socket.writable) {
      discardInput(socket)
      return
    }
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy()
      return
    }
    const a = clientErrorAnswer(err.code)
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') lingerBriefly(socket)
    const answer = (): void => {
      const requestId = randomUUID()
      const body = errorBody(a.svc, a.message, requestId)
      lingeringClose(
        socket,
        `HTTP/1.1 ${a.status} ${a.reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-ID: ${requestId}\r\n\r\n${body}`,
      )
    }
    // The bytes that broke the parser are the body of the request being answered (its head was
    // fine, so it was dispatched): that request is the malformed one, and it gets the 400 now.
    // Waiting for its answer would give the proxy's 502 or 408 for a body that cannot complete.
    if (inFlight && !inFlight.headersSent && inFlight.req && !inFlight.req.complete) {
      discardInput(socket)
      inFlight.shouldKeepAlive = false
      sendJsonError(inFlight, a.svc, a.message, resolveRequestId(inFlight.req.headers['x-request-id']))
      return
    }
    // A pipelined request broke the parser while the one before it is still being answered
    // (a proxied answer is on its way): HTTP/1.1 answers in order, so that answer goes first
    // and the error after it. Written at once, the error would pass for the earlier request's
    // answer, and the real one would then hit a closed connection.
    if (inFlight && !inFlight.writableFinished) {
      discardInput(socket)
      inFlight.once('finish', () => {
        if (socket.writable) answer()
      })
      inFlight.once('close', () => {
        if (!inFlight.writableFinished) socket.destroy()
      })
      return
    }
    answer()
  }

  get state(): ServerState {
    return this.#state
  }

  /** Open client connections (keep-alive ones included); no per-request bookkeeping on the hot path. */
  openConnections(): Promise<number> {
    return new Promise((resolve) => this.server.getConnections((err, count) => resolve((err ? 0 : count) + this.#handedOver.size)))
  }

  /** Listen on a handle from the supervisor, or on `{ port, host }` when run in-process. */
  async listen(target: object | { port: number; host: string }): Promise<void> {
    this.server.listen(target)
    // `once` rejects on 'error': EADDRINUSE when the shared socket cannot listen.
    await once(this.server, 'listening')
    this.#state = 'listening'
  }

  /**
   * Several workers: the supervisor accepts on the public port and hands each connection over
   * (`acceptSocket`), so nothing listens here. Emitting 'listening' still starts node:http's own
   * connection tracking (header and request timeouts, closeAllConnections), as a listen would.
   */
  takeConnections(): void {
    this.server.emit('listening')
    this.#state = 'listening'
  }

  /**
   * Serve a connection accepted by the supervisor, as if accepted here; false (socket untouched)
   * once draining. Nothing has been read from it yet: the client's first bytes are still queued.
   */
  acceptSocket(socket: Socket): boolean {
    if (this.#state !== 'listening') return false
    // gateway_max_connections holds for handed-over connections too: dropped as at accept.
    if (this.#handedOver.size >= this.server.maxConnections) {
      socket.destroy()
      return true
    }
    // What node:http sets on the sockets it accepts itself (its net.Server is half-open, no Nagle).
    socket.allowHalfOpen = true
    socket.setNoDelay(true)
    this.#handedOver.add(socket)
    socket.once('close', () => {
      this.#handedOver.delete(socket)
      if (this.#handedOver.size === 0) this.#lastHandedOverClosed?.()
    })
    this.server.emit('connection', socket)
    // A socket accepted with pauseOnConnect reads nothing until resumed (no-op when flowing).
    socket.resume()
    return true
  }

  /**
   * Stop accepting and let every connection finish, handed-over and upgraded ones included; no
   * deadline of its own: at the drain's deadline the caller ends what is left of HTTP
   * (`endHttpConnections`), or destroys. Synchronously stops accepting, so the caller can close
   * WebSockets right after calling it.
   */
  protected async drain(): Promise<void> {
    if (this.#state !== 'listening') {
      this.#state = 'closed'
      return
    }
    this.#state = 'draining'
    // net.Server#close, not http.Server#close: the latter also drops idle keep-alive sockets at
    // once, racing a client that is sending on one right now. Those expire on their own instead.
    await new Promise<void>((resolve) => NetServer.prototype.close.call(this.server, () => resolve()))
    if (this.#handedOver.size > 0) await new Promise<void>((resolve) => (this.#lastHandedOverClosed = resolve))
    this.#state = 'closed'
  }

  /** The drain's deadline: every HTTP connection, busy or idle, is closed now (upgraded ones are not HTTP's any more). */
  endHttpConnections(): void {
    this.server.closeAllConnections()
  }

  /** Now: drop every connection; cuts a running close() short. */
  protected async abort(): Promise<void> {
    this.server.closeAllConnections()
    if (this.#state !== 'closed') this.server.close()
    this.#state = 'closed'
  }
}
