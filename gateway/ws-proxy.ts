import type { ClientRequest, IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { WebSocket, WebSocketServer, type RawData } from 'ws'
import type { Logger } from 'pino'
import { ERRORS, type SvcErrorCode } from '../src/errors.js'
import { rejectUpgrade } from './json-error.js'
import type { RequestObservation } from './observability/observation.js'
import { startHeartbeat } from '../src/internal/ws-heartbeat.js'
import { Lifecycle } from '../src/internal/lifecycle.js'

/**
 * The WebSocket hop. Order of a handshake: the gateway's own checks (below) and `ws`'s
 * (`handleUpgrade`: Upgrade, Sec-WebSocket-Key, subprotocol list) refuse a bad client handshake
 * before the sidecar is contacted; then `verifyClient` opens the upstream handshake (all offered
 * subprotocols, cookies, auth, origin forwarded, the client's raw path); only when the sidecar
 * accepted is the client accepted, with the protocol the sidecar chose. Messages are relayed with
 * their text/binary kind, close codes and reasons travel both ways, a slow reader pauses the other
 * side, a peer that vanishes takes its partner down, and a message over the size limit closes
 * both legs with 1009.
 */
export interface WsProxyOptions {
  connectTimeoutMs: number
  /** Largest message relayed either way; 0 = unlimited. */
  maxMessageBytes: number
  logger: Logger
}

export interface WsProxyRequest {
  requestId: string
  /** The sidecar's base URL (http[s]://host:port[/base]), as the HTTP proxy uses it. */
  upstream: string
  /** Path and query as classified (root_path included), sent after the base path byte for byte. */
  target: string
  headers: Record<string, string>
  observation: RequestObservation
}

/** Pause the source when this much is queued towards a slow peer; resume below a quarter. */
const HIGH_WATER_BYTES = 1024 * 1024
const LOW_WATER_BYTES = HIGH_WATER_BYTES / 4
/** Codes that may not be sent in a close frame (RFC 6455 §7.4.1). */
const RESERVED_CLOSE = new Set([1004, 1005, 1006, 1015])
/** Close code for the partner leg when `ws` failed one leg on a protocol error (its `err.code`). */
const CLOSE_FOR_WS_ERROR: Record<string, number> = {
  WS_ERR_UNSUPPORTED_MESSAGE_LENGTH: 1009,
  WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH: 1009,
  WS_ERR_INVALID_UTF8: 1007,
  WS_ERR_TOO_MANY_BUFFERED_PARTS: 1008,
}

interface Refusal {
  code: SvcErrorCode
  message: string
  extraHead?: string
}

/** One handshake between the client's upgrade request and the start of the relay. */
interface Pending {
  p: WsProxyRequest
  socket: Socket
  upstream: WebSocket | null
  /** Set once the observation ended or the relay took over. */
  done: boolean
}

export class WsProxy extends Lifecycle {
  readonly #opts: WsProxyOptions
  readonly #wss: WebSocketServer
  readonly #pending = new WeakMap<IncomingMessage, Pending>()
  readonly #live = new Set<{ client: WebSocket; upstream: WebSocket }>()
  /** The next step of `retire()`: the start of the spread, or the next close in it. */
  #retireTimer: NodeJS.Timeout | null = null

  constructor(opts: WsProxyOptions) {
    super()
    this.#opts = opts
    this.#wss = new WebSocketServer({
      noServer: true,
      perMessageDeflate: false,
      clientTracking: false,
      maxPayload: opts.maxMessageBytes,
      handleProtocols: (protocols, req) => {
        const chosen = this.#pending.get(req)?.upstream?.protocol
        return chosen && protocols.has(chosen) ? chosen : false
      },
      verifyClient: (info: { req: IncomingMessage }, accept: (ok: boolean) => void) => this.#connectUpstream(info.req, accept),
    })
    // `ws` found the handshake invalid (Upgrade, Sec-WebSocket-Key, Sec-WebSocket-Protocol): all 400s.
    this.#wss.on('wsClientError', (err, socket, req) => {
      const pending = this.#pending.get(req)
      if (pending) this.#refuse(pending, { code: 'SVC_ERR_WS_BAD_HANDSHAKE', message: `bad WebSocket handshake: ${err.message}` })
      else (socket as Socket).destroy()
    })
  }

  get size(): number {
    return this.#live.size
  }

  forward(req: IncomingMessage, socket: Socket, head: Buffer, p: WsProxyRequest): void {
    const pending: Pending = { p, socket, upstream: null, done: false }
    socket.once('close', () => this.#abandon(pending))
    const refusal = checkHandshake(req)
    if (refusal) {
      this.#refuse(pending, refusal)
      return
    }
    this.#pending.set(req, pending)
    try {
      this.#wss.handleUpgrade(req, socket, head, (client) => {
        pending.done = true
        this.#relay(client, pending.upstream!, p)
      })
    } catch (err) {
      this.#opts.logger.error({ err }, 'gateway websocket handshake failed')
      this.#refuse(pending, { code: 'SVC_ERR_GATEWAY_INTERNAL', message: `WebSocket handshake failed: ${(err as Error).message}` }, err as Error)
    }
  }

  /** `verifyClient`: runs after `ws` validated the client handshake; accepts once the sidecar did. */
  #connectUpstream(req: IncomingMessage, accept: (ok: boolean) => void): void {
    const pending = this.#pending.get(req)!
    const { p } = pending
    // `ws` has checked the header is a list of distinct tokens, so this split is exact.
    const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()).filter(Boolean)
    let upstream: WebSocket
    try {
      const base = new URL(p.upstream)
      const path = p.upstream.slice(base.origin.length) + p.target
      // ws would build the request path from a WHATWG URL, which resolves `%2e%2e` and friends:
      // it gets the bare origin, and the request its path just before the head is written.
      upstream = new WebSocket(base.origin.replace(/^http/, 'ws'), offered, {
        headers: p.headers,
        perMessageDeflate: false,
        // Masking guards intermediaries' caches (RFC 6455 §10.3); on loopback there are none, and a
        // zero key lets ws skip XOR-ing (and copying) every relayed byte. The sidecar's text is
        // checked by the browser that receives it; the client's, by `ws` on the client leg.
        ...(isLoopback(base.hostname) ? { generateMask: zeroMask, skipUTF8Validation: true } : {}),
        handshakeTimeout: this.#opts.connectTimeoutMs,
        followRedirects: false,
        maxPayload: this.#opts.maxMessageBytes,
        finishRequest: (request: ClientRequest) => {
          request.path = path
          request.end()
        },
      })
    } catch (err) {
      this.#upstreamFailed(pending, (err as Error).message, err as Error)
      return
    }
    pending.upstream = upstream
    upstream.once('unexpected-response', (_r, res) => {
      res.resume()
      this.#upstreamFailed(pending, `handshake answered ${res.statusCode}`)
    })
    upstream.once('error', (err) => this.#upstreamFailed(pending, err.message, err))
    upstream.once('open', () => {
      if (pending.done) {
        upstream.terminate()
        return
      }
      try {
        accept(true)
      } catch (err) {
        this.#opts.logger.error({ err }, 'gateway websocket handshake failed')
        this.#refuse(pending, { code: 'SVC_ERR_GATEWAY_INTERNAL', message: `WebSocket handshake failed: ${(err as Error).message}` }, err as Error)
      }
      // `ws` destroys a client socket that half-closed meanwhile, without calling back.
      this.#abandon(pending)
    })
  }

  #upstreamFailed(pending: Pending, message: string, error?: Error): void {
    if (pending.done) return
    this.#opts.logger.warn({ err: error }, `gateway websocket upstream failed: ${message}`)
    this.#refuse(pending, { code: 'SVC_ERR_WS_UPSTREAM', message: `the ui sidecar refused the WebSocket: ${message}` }, error)
  }

  /** The client left before its tunnel was open (499): release both sockets. */
  #abandon(pending: Pending): void {
    if (pending.done) return
    pending.done = true
    pending.upstream?.terminate()
    pending.socket.destroy()
    pending.p.observation.end(499)
  }

  /** Answer the handshake with a JSON error and release both sockets. */
  #refuse(pending: Pending, r: Refusal, error?: Error): void {
    pending.upstream?.terminate()
    if (pending.done) {
      pending.socket.destroy()
      return
    }
    pending.done = true
    pending.p.observation.end(ERRORS[r.code].status, error)
    rejectUpgrade(pending.socket, r.code, r.message, pending.p.requestId, r.extraHead)
  }

  #relay(client: WebSocket, upstream: WebSocket, p: WsProxyRequest): void {
    const pair = { client, upstream }
    this.#live.add(pair)
    pipe(upstream, client)
    pipe(client, upstream)
    let closed = false
    const finish = (error?: Error): void => {
      if (closed) return
      closed = true
      stopHeartbeat()
      this.#live.delete(pair)
      p.observation.end(101, error)
    }
    client.on('close', (code, reason) => {
      closeWith(upstream, code, reason)
      finish()
    })
    upstream.on('close', (code, reason) => {
      closeWith(client, code, reason)
      finish()
    })
    // `ws` already closed the failing leg with the right code (1009 for an oversized message);
    // the partner gets the same code, or 1011 / a cut for errors that are not protocol errors.
    client.on('error', (err) => {
      failPartner(upstream, err, null)
      finish(err)
    })
    upstream.on('error', (err) => {
      failPartner(client, err, 1011)
      finish(err)
    })
    const stopHeartbeat = startHeartbeat(client)
  }

  /**
   * A reload replaced this worker: keep the tunnels (no new ones arrive) until they close by
   * themselves; those still open after `afterMs` get 1001 one by one over `spreadMs`, so their
   * clients reconnect spread out, not all in the same instant. Called again, the deadline moves.
   */
  retire(afterMs: number, spreadMs: number): void {
    if (this.closed) return
    if (this.#retireTimer) clearTimeout(this.#retireTimer)
    this.#retireTimer = setTimeout(() => this.#closeSpread(spreadMs), afterMs)
  }

  #closeSpread(spreadMs: number): void {
    const pairs = [...this.#live]
    const step = pairs.length > 0 ? spreadMs / pairs.length : 0
    let next = 0
    const closeNext = (): void => {
      this.#retireTimer = null
      const pair = pairs[next++]
      if (pair === undefined) return
      // One that closed by itself meanwhile is skipped, and its time slot with it.
      if (this.#live.has(pair)) closePair(pair, 1001, 'server going away')
      if (next < pairs.length) this.#retireTimer = setTimeout(closeNext, step)
    }
    closeNext()
  }

  /** Send a close frame (1001, going away) to both ends of every live pair now; resolves once sent. */
  protected async drain(): Promise<void> {
    this.#cancelRetire()
    for (const pair of this.#live) closePair(pair, 1001, 'server going away')
  }

  #cancelRetire(): void {
    if (this.#retireTimer) clearTimeout(this.#retireTimer)
    this.#retireTimer = null
  }

  /** Drop every live pair now, without a close handshake. */
  protected async abort(): Promise<void> {
    this.#cancelRetire()
    for (const { client, upstream } of this.#live) {
      client.terminate()
      upstream.terminate()
    }
    this.#live.clear()
  }
}

/**
 * What `ws` does not check, or answers differently than the gateway wants: HTTP/1.1, GET (ws: 405),
 * version 13 only with a 426 (ws also takes 8 and answers 400), and a `#fragment`, which no client
 * sends in a request target. (`Connection: upgrade` is Node's: without it there is no upgrade.)
 */
function checkHandshake(req: IncomingMessage): Refusal | null {
  const bad = (message: string): Refusal => ({ code: 'SVC_ERR_WS_BAD_HANDSHAKE', message: `bad WebSocket handshake: ${message}` })
  if (req.httpVersion !== '1.1') return bad(`HTTP/${req.httpVersion}; a WebSocket handshake needs HTTP/1.1`)
  if (req.method !== 'GET') return bad(`method ${req.method}; a WebSocket handshake is a GET`)
  if ((req.url ?? '').includes('#')) return bad('the request target contains a "#" fragment')
  const version = req.headers['sec-websocket-version']
  if (version !== '13') {
    return {
      code: 'SVC_ERR_WS_VERSION',
      message: `Sec-WebSocket-Version ${version === undefined ? 'missing' : JSON.stringify(version)}; only version 13 (RFC 6455) is supported`,
      extraHead: 'Sec-WebSocket-Version: 13\r\n',
    }
  }
  return null
}

function closePair(pair: { client: WebSocket; upstream: WebSocket }, code: number, reason: string): void {
  pair.client.close(code, reason)
  pair.upstream.close(code, reason)
}

function failPartner(partner: WebSocket, err: Error, fallback: number | null): void {
  if (partner.readyState !== WebSocket.OPEN) return
  const code = CLOSE_FOR_WS_ERROR[(err as NodeJS.ErrnoException).code ?? ''] ?? (/^WS_ERR_/.test((err as NodeJS.ErrnoException).code ?? '') ? 1002 : fallback)
  if (code === null) partner.terminate()
  else partner.close(code, code === 1009 ? 'message too big' : 'peer error')
}

function pipe(from: WebSocket, to: WebSocket): void {
  let paused = false
  from.on('message', (data: RawData, isBinary: boolean) => {
    if (to.readyState !== WebSocket.OPEN) return
    to.send(data, { binary: isBinary }, () => {
      if (paused && to.bufferedAmount < LOW_WATER_BYTES) {
        paused = false
        from.resume()
      }
    })
    if (!paused && to.bufferedAmount > HIGH_WATER_BYTES) {
      paused = true
      from.pause()
    }
  })
}

/** Mirror a close onto the partner leg, if it is still open (one already closing finishes on its own). */
function closeWith(ws: WebSocket, code: number, reason: Buffer): void {
  if (ws.readyState !== WebSocket.OPEN) return
  if (code === 1006) {
    ws.terminate()
    return
  }
  if (RESERVED_CLOSE.has(code) || code < 1000) ws.close()
  else ws.close(code, reason)
}

function zeroMask(mask: Buffer): void {
  mask.fill(0)
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname)
}
