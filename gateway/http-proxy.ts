import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Dispatcher } from 'undici'
import { Pool } from '../src/internal/undici-pool.js'
import type { Logger } from 'pino'
import { downstreamResponseHeaders } from './forward-headers.js'
import { sendJsonError } from './json-error.js'
import type { RequestObservation } from './observability/observation.js'
import { ERRORS, isSvcError, type SvcErrorCode } from '../src/errors.js'
import { Lifecycle } from '../src/internal/lifecycle.js'
import { bodyTooLarge, DiskBudget, RequestBody } from './request-body.js'
import { lingerBriefly } from './lingering-close.js'

/**
 * The HTTP hop to the sidecar: one undici keep-alive Pool per worker, response bodies streamed
 * with backpressure, upstream content-encoding kept. A request body is read in full before the
 * request takes an upstream connection (memory, then a temporary file: `RequestBody`), so slow
 * uploads never hold the pool; over the limit it is refused with 413 before the upstream is
 * contacted. An upstream failure is a 502 JSON answer, never a half-open response.
 *
 * At most `poolSize` requests are at the sidecar at once; the rest wait here, in arrival order,
 * for at most `queueTimeoutMs` and then get 503 (so a pool held by slow pages shows as 503s
 * and a not-ready readyz, not as requests hanging). A client body that stalls for
 * `bodyTimeoutMs` gets 408.
 */
export interface HttpProxyOptions {
  maxBodyBytes: number
  /** `gateway_proxy_buffer_disk_bytes`: temporary-file bytes of all bodies being buffered; 0 = unlimited. */
  bufferDiskBytes: number
  connectTimeoutMs: number
  readTimeoutMs: number
  poolSize: number
  /** 0: wait as long as it takes. */
  queueTimeoutMs: number
  bodyTimeoutMs: number
  logger: Logger
  /** Called once per request refused after waiting `queueTimeoutMs` (metrics). */
  onQueueTimeout: () => void
}

export interface ProxyRequest {
  requestId: string
  /** Path and query sent upstream (already root_path-qualified). */
  target: string
  headers: Record<string, string>
  observation: RequestObservation
  /** The client sent `Expect: 100-continue` and waits for 100 before its body. */
  expectsContinue: boolean
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])
/** The first bytes of a body are kept in memory; beyond them it goes to a temporary file. */
export const BODY_MEMORY_BYTES = 64 * 1024
/** With no queue timeout, readyz calls the pool saturated once a request has waited this long. */
const SATURATED_WAIT_MS = 10_000

/** A request waiting for a free upstream connection. */
interface Waiter {
  since: number
  start: () => void
  timer: NodeJS.Timeout | null
}

export class HttpProxy extends Lifecycle {
  readonly #opts: HttpProxyOptions
  #pool: Pool | null = null
  #origin = ''
  #basePath = ''
  /** Requests dispatched to the pool and not finished: at most `poolSize`. */
  #active = 0
  /** Insertion-ordered: the first entry has waited longest. */
  readonly #waiting = new Set<Waiter>()
  #queueTimeouts = 0
  #lastQueueTimeoutAt = 0
  readonly #disk: DiskBudget

  constructor(upstream: string, opts: HttpProxyOptions) {
    super()
    this.#opts = opts
    this.#disk = new DiskBudget(opts.bufferDiskBytes)
    // No pool to close yet: the promise is already settled.
    void this.setUpstream(upstream)
  }

  /** Bytes of request bodies held in temporary files right now. */
  get bufferedOnDisk(): number {
    return this.#disk.used
  }

  get upstream(): string {
    return this.#origin + this.#basePath
  }

  /**
   * Point at a new sidecar (full reload); the old pool drains its in-flight requests. Resolves
   * once they are done, so the old sidecar can be stopped without cutting one (a 502).
   */
  setUpstream(upstream: string): Promise<void> {
    const old = this.#pool
    this.#pool = null
    this.#origin = ''
    this.#basePath = ''
    if (upstream) {
      const url = new URL(upstream)
      this.#origin = url.origin
      this.#basePath = url.pathname.replace(/\/+$/, '')
      this.#pool = new Pool(this.#origin, {
        connections: this.#opts.poolSize,
        pipelining: 1,
        connect: { timeout: this.#opts.connectTimeoutMs },
        headersTimeout: this.#opts.readTimeoutMs,
        bodyTimeout: this.#opts.readTimeoutMs,
      })
    }
    return old ? old.close().catch(() => {}) : Promise.resolve()
  }

  forward(req: IncomingMessage, res: ServerResponse, p: ProxyRequest): void {
    if (!this.#pool) {
      p.observation.end(502)
      sendJsonError(res, 'SVC_ERR_PROXY_NO_UPSTREAM', 'no ui upstream is configured (SVC_UI_UPSTREAM is empty)', p.requestId)
      return
    }
    const limit = this.#opts.maxBodyBytes
    const declared = req.headers['content-length']
    const length = declared === undefined ? -1 : Number(declared)
    if (limit > 0 && length > limit) {
      // With `Expect: 100-continue` no 100 was sent: the client learns before it uploads.
      p.observation.end(413)
      refuseBody(req, res, 'SVC_ERR_PROXY_BODY_TOO_LARGE', bodyTooLarge(limit).message, p.requestId)
      return
    }
    const relay = new ResponseRelay(req, res, p, this.#opts.logger, () => this.#release())
    const hasBody = length > 0 || (length === -1 && req.headers['transfer-encoding'] !== undefined)
    if (!hasBody) {
      this.#admit(res, p, relay, null)
      return
    }
    // The whole body is read before an upstream connection is taken, so a client that trickles
    // it in holds only its own connection (and a temporary file), never one of the pool's.
    if (p.expectsContinue) res.writeContinue()
    watchBodyIdle(req, res, this.#opts.bodyTimeoutMs, relay)
    // The exchange is over (answered, or the client gone) while the body is still being read:
    // stop reading it; a client gone before its body arrived still ends its observation.
    const ended = new AbortController()
    res.once('close', () => {
      ended.abort()
      if (!req.complete) p.observation.end(499)
    })
    RequestBody.read(req, { maxBytes: limit, memoryBytes: BODY_MEMORY_BYTES, disk: this.#disk }, ended.signal).then(
      (body) => {
        if (relay.refused || res.destroyed) {
          void body.dispose()
          return
        }
        // The temporary file lives as long as the exchange: until the answer is out or the client gone.
        res.once('close', () => void body.dispose())
        this.#admit(res, p, relay, body)
      },
      (err: Error) => {
        if (relay.refused || res.destroyed || !isSvcError(err)) return
        relay.refused = true
        p.observation.end(ERRORS[err.code].status, err)
        if (err.code === 'SVC_ERR_PROXY_BUFFER_FULL') {
          this.#opts.logger.warn({ request_id: p.requestId, buffered_bytes: this.#disk.used }, `gateway cannot buffer a request body: ${err.message}`)
        }
        // Whatever the client still sends is read and discarded while it gets the answer.
        req.resume()
        refuseBody(req, res, err.code, err.message, p.requestId)
      },
    )
  }

  /** Dispatch now when a pooled connection is free, else wait for one in arrival order. */
  #admit(res: ServerResponse, p: ProxyRequest, relay: ResponseRelay, body: RequestBody | null): void {
    const start = (): void => {
      if (relay.refused) {
        this.#release()
        return
      }
      void this.#dispatch(p, relay, body)
    }
    if (this.#active < this.#opts.poolSize) {
      this.#active++
      start()
    } else {
      this.#enqueue(res, p, relay, start)
    }
  }

  /**
   * Why readyz should say not ready, or null: requests are waiting for a connection right now
   * and one timed out waiting within the last queue timeout (or, without a queue timeout, one
   * has waited over 10 s).
   */
  saturation(): string | null {
    if (this.#waiting.size === 0) return null
    const now = Date.now()
    const window = this.#opts.queueTimeoutMs
    const oldest = this.#waiting.values().next().value!
    const saturated = window > 0 ? now - this.#lastQueueTimeoutAt <= window : now - oldest.since > SATURATED_WAIT_MS
    if (!saturated) return null
    return (
      `upstream_pool_saturated: ${this.#active} of ${this.#opts.poolSize} upstream connections busy (gateway_upstream_pool_size), ` +
      `${this.#waiting.size} requests waiting, ${this.#queueTimeouts} refused after gateway_upstream_queue_timeout_s so far`
    )
  }

  #enqueue(res: ServerResponse, p: ProxyRequest, relay: ResponseRelay, start: () => void): void {
    const waiter: Waiter = { since: Date.now(), start, timer: null }
    this.#waiting.add(waiter)
    // A client that leaves (or a body that timed out) gives its place up.
    res.once('close', () => {
      if (this.#waiting.delete(waiter) && waiter.timer) clearTimeout(waiter.timer)
    })
    const timeoutMs = this.#opts.queueTimeoutMs
    if (timeoutMs === 0) return
    waiter.timer = setTimeout(() => {
      if (!this.#waiting.delete(waiter)) return
      this.#queueTimeouts++
      this.#lastQueueTimeoutAt = Date.now()
      this.#opts.onQueueTimeout()
      relay.refused = true
      p.observation.end(503)
      this.#opts.logger.warn(
        { request_id: p.requestId, upstream_pool_size: this.#opts.poolSize, waiting: this.#waiting.size },
        `gateway upstream pool busy: request waited ${timeoutMs} ms for a free connection (gateway_upstream_queue_timeout_s); answered 503`,
      )
      refuseBody(
        relay.req,
        res,
        'SVC_ERR_PROXY_UPSTREAM_BUSY',
        `all ${this.#opts.poolSize} connections to the ui sidecar stayed busy for ${timeoutMs / 1000} s (gateway_upstream_pool_size, gateway_upstream_queue_timeout_s); retry later`,
        p.requestId,
      )
    }, timeoutMs)
  }

  /** One dispatched request finished: its slot goes to the longest-waiting request. */
  #release(): void {
    this.#active--
    for (const next of this.#waiting) {
      this.#waiting.delete(next)
      if (next.timer) clearTimeout(next.timer)
      this.#active++
      next.start()
      return
    }
  }

  async #dispatch(p: ProxyRequest, relay: ResponseRelay, body: RequestBody | null): Promise<void> {
    const req = relay.req
    const urlFull = this.#origin + this.#basePath + p.target
    relay.begin(p.observation.upstream(req.method ?? 'GET', urlFull), urlFull)
    let content: Buffer | NodeJS.ReadableStream | null = null
    try {
      content = body === null ? null : await body.content()
    } catch (err) {
      relay.onResponseError(null, err as Error)
      return
    }
    const pool = this.#pool
    if (!pool) {
      relay.onResponseError(null, new Error('the ui upstream was removed'))
      return
    }
    // A chunked body was buffered whole: the sidecar gets its length instead.
    const headers = body === null ? p.headers : { ...p.headers, 'content-length': String(body.length) }
    pool.dispatch(
      {
        origin: this.#origin,
        path: this.#basePath + p.target,
        method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
        headers,
        body: content as Dispatcher.DispatchOptions['body'],
      },
      relay,
    )
  }

  /** Let in-flight requests finish, then close the pool. */
  protected drain(): Promise<void> {
    return this.#pool?.close() ?? Promise.resolve()
  }

  /** Abort what is in flight (with `err`) and close the pool now. */
  protected abort(err: Error | undefined): Promise<void> {
    return (err ? this.#pool?.destroy(err) : this.#pool?.destroy()) ?? Promise.resolve()
  }
}

/**
 * Refuse a request (413, 503) while the client may still be sending. Closing at once would
 * reset the connection under its upload, and the client would see a write error instead of the
 * answer; so a refusal of a body still arriving says `Connection: close`, and Node ends such an
 * exchange with the gateway's lingering close (gateway/lingering-close.ts), which reads and
 * discards the rest.
 */
function refuseBody(req: IncomingMessage, res: ServerResponse, code: SvcErrorCode, message: string, requestId: string): void {
  if (!req.complete) res.shouldKeepAlive = false
  sendJsonError(res, code, message, requestId)
}

/**
 * nginx's client_body_timeout: the client sent no body bytes for `ms` → 408. The socket's idle
 * timer (reset by every read) measures it; bytes still waiting to be read mean the gateway is
 * the slow side (its temporary file), so the timer is re-armed instead.
 */
function watchBodyIdle(req: IncomingMessage, res: ServerResponse, ms: number, relay: ResponseRelay): void {
  // The in-process test client's requests (light-my-request) have no socket to time.
  if (typeof req.setTimeout !== 'function') return
  req.setTimeout(ms, () => {
    if (req.complete) return
    if (req.readableLength > 0 && !relay.refused) {
      req.socket.setTimeout(ms)
      return
    }
    relay.bodyTimedOut(ms)
  })
  // Node arms the keep-alive timer on the same socket once the answer is out; keep that one.
  req.once('end', () => {
    if (!res.writableFinished) req.socket.setTimeout(0)
  })
}

class ResponseRelay implements Dispatcher.DispatchHandler {
  readonly req: IncomingMessage
  readonly #res: ServerResponse
  readonly #p: ProxyRequest
  readonly #logger: Logger
  readonly #release: () => void
  /** The gateway answered this request itself (queue or body timeout); the upstream side is dropped. */
  refused = false
  #span: { end(error?: Error): void } | null = null
  #url = ''
  #controller: Dispatcher.DispatchController | null = null
  #status = 0
  #resumeOnDrain = false

  constructor(req: IncomingMessage, res: ServerResponse, p: ProxyRequest, logger: Logger, release: () => void) {
    this.req = req
    this.#res = res
    this.#p = p
    this.#logger = logger
    this.#release = release
    // The client's side is over (the client left, or the gateway answered it itself, e.g. a 400
    // for a malformed body) while the sidecar exchange is not: end that too, or it would hold a
    // pooled connection until the read timeout.
    res.once('close', () => {
      if (this.#span !== null && this.#controller && !this.#controller.aborted) {
        this.#controller.abort(new Error('client closed the connection'))
      }
    })
  }

  /** Dispatched: from now on exactly one of onResponseEnd / onResponseError frees the slot. */
  begin(span: { end(error?: Error): void }, url: string): void {
    this.#span = span
    this.#url = url
  }

  #done(error?: Error): void {
    const span = this.#span
    if (span === null) return
    this.#span = null
    span.end(error)
    this.#release()
  }

  bodyTimedOut(ms: number): void {
    const res = this.#res
    if (this.refused) {
      // Second expiry: the client did not even read the 408.
      res.destroy()
      return
    }
    this.refused = true
    this.#p.observation.end(408)
    if (this.#controller && !this.#controller.aborted) this.#controller.abort(new Error('client body timeout'))
    if (res.headersSent) {
      res.destroy()
      return
    }
    res.setHeader('connection', 'close')
    if (res.socket) lingerBriefly(res.socket)
    sendJsonError(res, 'SVC_ERR_GATEWAY_BODY_TIMEOUT', `the request body stalled: no bytes for ${ms / 1000} s (gateway_client_body_timeout_s)`, this.#p.requestId)
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller
    if (this.refused || this.#res.closed) controller.abort(new Error('answered by the gateway'))
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.#status = statusCode
    const res = this.#res
    if (res.destroyed || this.refused) {
      controller.abort(new Error('client closed the connection'))
      return
    }
    res.writeHead(statusCode, downstreamResponseHeaders(headers, this.#p.requestId))
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#res.write(chunk)) return
    controller.pause()
    // Most answers fit the socket buffer; the listener is added only for those that do not.
    if (!this.#resumeOnDrain) {
      this.#resumeOnDrain = true
      this.#res.on('drain', () => controller.resume())
    }
  }

  onResponseEnd(): void {
    this.#done()
    this.#res.end()
    this.#p.observation.end(this.#status)
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    this.#done(error)
    if (this.refused) return
    const res = this.#res
    if (res.destroyed || (res.headersSent && res.writableEnded)) {
      // Answered already: by the relayed upstream head, or by the gateway (a malformed body's 400).
      this.#p.observation.end(res.headersSent ? res.statusCode : 499, error)
      return
    }
    const code = (error as NodeJS.ErrnoException).code ?? error.name
    this.#logger.warn({ err: error, request_id: this.#p.requestId, upstream_url: this.#url }, `gateway upstream HTTP error for ${this.#url}: ${code}`)
    this.#p.observation.end(502, error)
    sendJsonError(
      res,
      TIMEOUT_CODES.has(code) ? 'SVC_ERR_PROXY_UPSTREAM_TIMEOUT' : 'SVC_ERR_PROXY_UPSTREAM',
      TIMEOUT_CODES.has(code) ? `the ui sidecar did not answer in time (${code})` : `the ui sidecar could not be reached (${code})`,
      this.#p.requestId,
    )
  }
}
