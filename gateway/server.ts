import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { Server as NetServer, type Socket } from 'node:net'
import { once } from 'node:events'

/**
 * The worker's HTTP server and its lifecycle: listen on the handle the supervisor passed (or a
 * port, in-process), then `drain()`: stop accepting, serve what arrives on open connections with
 * `Connection: close`, let idle keep-alive connections expire, and after the grace destroy the
 * rest. State: idle → listening → draining → closed.
 */
export type ServerState = 'idle' | 'listening' | 'draining' | 'closed'

export interface ServerHandlers {
  handleRequest: (req: IncomingMessage, res: ServerResponse) => void
  handleUpgrade: (req: IncomingMessage, socket: Socket, head: Buffer) => void
}

/** Idle keep-alive sockets close after this; clients learn it from `Keep-Alive: timeout=5`. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000

export class GatewayServer {
  readonly server: Server
  #state: ServerState = 'idle'
  #draining: Promise<void> | null = null
  /** Connections the supervisor handed over: net.Server's own count does not include them. */
  readonly #handedOver = new Set<Socket>()
  #lastHandedOverClosed: (() => void) | null = null

  constructor(handlers: ServerHandlers) {
    this.server = createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, requestTimeout: 0 }, handlers.handleRequest)
    this.server.on('upgrade', handlers.handleUpgrade)
    this.server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
      if (err.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy()
        return
      }
      const body = JSON.stringify({ error: 'bad_request', message: `malformed HTTP request (${err.code ?? 'parse error'})`, request_id: null })
      socket.end(`HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
    })
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
   * Stop accepting and finish in-flight work within `graceMs`, then destroy what is left.
   * `beforeWait` runs after accepting stopped (close WebSockets there). Same promise on repeat.
   */
  drain(graceMs: number, beforeWait?: () => void): Promise<void> {
    this.#draining ??= this.#drain(graceMs, beforeWait)
    return this.#draining
  }

  async #drain(graceMs: number, beforeWait?: () => void): Promise<void> {
    if (this.#state !== 'listening') {
      this.#state = 'closed'
      return
    }
    this.#state = 'draining'
    // net.Server#close, not http.Server#close: the latter also drops idle keep-alive sockets at
    // once, racing a client that is sending on one right now. Those expire on their own instead.
    const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(this.server, () => resolve()))
    beforeWait?.()
    const timer = setTimeout(() => this.server.closeAllConnections(), graceMs)
    timer.unref()
    await closed
    if (this.#handedOver.size > 0) await new Promise<void>((resolve) => (this.#lastHandedOverClosed = resolve))
    clearTimeout(timer)
    this.#state = 'closed'
  }

  /** Now: drop every connection. */
  destroy(): void {
    this.server.closeAllConnections()
    if (this.#state !== 'closed') this.server.close()
    this.#state = 'closed'
  }
}
