import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { WebSocket, WebSocketServer, type RawData } from 'ws'
import type { Logger } from 'pino'
import { rejectUpgrade } from './json-error.js'
import type { RequestObservation } from './observe.js'

/**
 * The WebSocket hop: the upstream handshake completes first (all offered subprotocols, cookies,
 * auth, origin forwarded), then the client is accepted with the protocol the sidecar chose.
 * Messages are relayed with their text/binary kind, close codes and reasons travel both ways,
 * a slow reader pauses the other side, and a peer that vanishes takes its partner down.
 */
export interface WsProxyOptions {
  connectTimeoutMs: number
  logger: Logger
}

export interface WsProxyRequest {
  requestId: string
  /** ws:// URL of the sidecar including path and query. */
  url: string
  headers: Record<string, string>
  observation: RequestObservation
}

/** Pause the source when this much is queued towards a slow peer; resume below a quarter. */
const HIGH_WATER_BYTES = 1024 * 1024
const LOW_WATER_BYTES = HIGH_WATER_BYTES / 4
/** Detects peers that vanished without FIN (cable pulled, NAT dropped). */
const PING_INTERVAL_MS = 30_000
/** Codes that may not be sent in a close frame (RFC 6455 §7.4.1). */
const RESERVED_CLOSE = new Set([1004, 1005, 1006, 1015])

export class WsProxy {
  readonly #opts: WsProxyOptions
  readonly #wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false })
  readonly #live = new Set<{ client: WebSocket; upstream: WebSocket }>()

  constructor(opts: WsProxyOptions) {
    this.#opts = opts
  }

  get size(): number {
    return this.#live.size
  }

  forward(req: IncomingMessage, socket: Socket, head: Buffer, p: WsProxyRequest): void {
    const offered = (req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
    const upstream = new WebSocket(p.url, offered, {
      headers: p.headers,
      perMessageDeflate: false,
      handshakeTimeout: this.#opts.connectTimeoutMs,
      followRedirects: false,
    })
    let settled = false
    const fail = (message: string, error?: Error): void => {
      if (settled) return
      settled = true
      this.#opts.logger.warn({ err: error }, `gateway websocket upstream failed: ${message}`)
      p.observation.end(502, error)
      rejectUpgrade(socket, 'SVC_ERR_WS_UPSTREAM', `the ui sidecar refused the WebSocket: ${message}`, p.requestId)
      upstream.terminate()
    }
    socket.once('close', () => {
      if (!settled) {
        settled = true
        p.observation.end(499)
        upstream.terminate()
      }
    })
    upstream.once('unexpected-response', (_r, res) => {
      res.resume()
      fail(`handshake answered ${res.statusCode}`)
    })
    upstream.once('error', (err) => fail(err.message, err))
    upstream.once('open', () => {
      if (settled) return
      settled = true
      const chosen = upstream.protocol
      const wss = this.#wss
      wss.options.handleProtocols = (protocols: Set<string>) => (chosen && protocols.has(chosen) ? chosen : false)
      wss.handleUpgrade(req, socket, head, (client) => this.#relay(client, upstream, p))
    })
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
      clearInterval(ping)
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
    client.on('error', (err) => {
      upstream.terminate()
      finish(err)
    })
    upstream.on('error', (err) => {
      client.close(1011, 'upstream error')
      finish(err)
    })
    let alive = true
    client.on('pong', () => {
      alive = true
    })
    const ping = setInterval(() => {
      if (!alive) {
        client.terminate()
        return
      }
      alive = false
      client.ping()
    }, PING_INTERVAL_MS)
    ping.unref()
  }

  /** Close every tunnel with `code` (1001 on drain) and wait until they are gone. */
  closeAll(code: number, reason: string): void {
    for (const { client, upstream } of this.#live) {
      client.close(code, reason)
      upstream.close(code, reason)
    }
  }

  terminateAll(): void {
    for (const { client, upstream } of this.#live) {
      client.terminate()
      upstream.terminate()
    }
    this.#live.clear()
  }
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

function closeWith(ws: WebSocket, code: number, reason: Buffer): void {
  if (ws.readyState === WebSocket.CLOSED) return
  if (code === 1006) {
    ws.terminate()
    return
  }
  if (RESERVED_CLOSE.has(code) || code < 1000) ws.close()
  else ws.close(code, reason)
}
