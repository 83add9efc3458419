import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { Pool, type Dispatcher } from 'undici'
import type { Logger } from 'pino'
import { downstreamResponseHeaders } from './forward-headers.js'
import { sendJsonError } from './json-error.js'
import type { RequestObservation } from './observe.js'

/**
 * The HTTP hop to the sidecar: one undici keep-alive Pool per worker, request and response
 * bodies streamed both ways with backpressure, upstream content-encoding kept. A body over the
 * limit is refused with 413 before the upstream is contacted (Content-Length) or as soon as the
 * streamed bytes pass it; an upstream failure is a 502 JSON answer, never a half-open response.
 */
export interface HttpProxyOptions {
  maxBodyBytes: number
  connectTimeoutMs: number
  readTimeoutMs: number
  logger: Logger
}

export interface ProxyRequest {
  requestId: string
  /** Path and query sent upstream (already root_path-qualified). */
  target: string
  headers: Record<string, string>
  observation: RequestObservation
}

class BodyTooLargeError extends Error {
  constructor(limit: number) {
    super(`request body exceeds the proxy limit of ${limit} bytes (gateway_max_proxy_request_body_bytes); send large uploads to the API instead`)
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])
/** How long the rest of a refused body is read and discarded before the connection is closed. */
const REFUSED_BODY_LINGER_MS = 2_000
const POOL_CONNECTIONS = 256

export class HttpProxy {
  readonly #opts: HttpProxyOptions
  #pool: Pool | null = null
  #origin = ''
  #basePath = ''

  constructor(upstream: string, opts: HttpProxyOptions) {
    this.#opts = opts
    this.setUpstream(upstream)
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
        connections: POOL_CONNECTIONS,
        pipelining: 1,
        connect: { timeout: this.#opts.connectTimeoutMs },
        headersTimeout: this.#opts.readTimeoutMs,
        bodyTimeout: this.#opts.readTimeoutMs,
      })
    }
    return old ? old.close().catch(() => {}) : Promise.resolve()
  }

  forward(req: IncomingMessage, res: ServerResponse, p: ProxyRequest): void {
    const pool = this.#pool
    if (!pool) {
      p.observation.end(502)
      sendJsonError(res, 'SVC_ERR_PROXY_NO_UPSTREAM', 'no ui upstream is configured (SVC_UI_UPSTREAM is empty)', p.requestId)
      return
    }
    const limit = this.#opts.maxBodyBytes
    const declared = req.headers['content-length']
    const length = declared === undefined ? -1 : Number(declared)
    if (limit > 0 && length > limit) {
      p.observation.end(413)
      refuseBody(req, res, new BodyTooLargeError(limit), p.requestId)
      return
    }
    const hasBody = length > 0 || (length === -1 && req.headers['transfer-encoding'] !== undefined)
    const body = !hasBody ? null : limit > 0 && length === -1 ? Readable.from(limitedBody(req, limit)) : req
    const urlFull = this.#origin + this.#basePath + p.target
    const upstreamSpan = p.observation.upstream(req.method ?? 'GET', urlFull)
    const handler = new ResponseRelay(req, res, p, upstreamSpan, this.#opts.logger, urlFull)
    pool.dispatch(
      {
        origin: this.#origin,
        path: this.#basePath + p.target,
        method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
        headers: p.headers,
        body,
      },
      handler,
    )
  }

  /** Let in-flight requests finish, then close the pool. */
  async close(): Promise<void> {
    await this.#pool?.close()
  }

  async destroy(): Promise<void> {
    await this.#pool?.destroy()
  }
}

async function* limitedBody(req: IncomingMessage, limit: number): AsyncGenerator<Buffer> {
  let seen = 0
  // Not destroyed on the throw below: the client must still get the 413 on this connection.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    seen += chunk.length
    if (seen > limit) throw new BodyTooLargeError(limit)
    yield chunk
  }
}

/**
 * Answer 413 while the client may still be sending. Closing at once would reset the connection
 * under its upload, and the client would see a write error instead of the answer; so the rest
 * of the body is read and discarded (what nginx calls a lingering close) for at most
 * `REFUSED_BODY_LINGER_MS`, then the connection is closed if the body has not ended.
 */
function refuseBody(req: IncomingMessage, res: ServerResponse, error: BodyTooLargeError, requestId: string): void {
  if (!req.complete) {
    const timer = setTimeout(() => req.socket.destroy(), REFUSED_BODY_LINGER_MS)
    timer.unref()
    req.once('end', () => clearTimeout(timer))
    req.once('close', () => clearTimeout(timer))
    req.resume()
  }
  sendJsonError(res, 'SVC_ERR_PROXY_BODY_TOO_LARGE', error.message, requestId)
}

class ResponseRelay implements Dispatcher.DispatchHandler {
  readonly #req: IncomingMessage
  readonly #res: ServerResponse
  readonly #p: ProxyRequest
  readonly #span: { end(error?: Error): void }
  readonly #logger: Logger
  readonly #url: string
  #controller: Dispatcher.DispatchController | null = null
  #status = 0
  #resumeOnDrain = false

  constructor(req: IncomingMessage, res: ServerResponse, p: ProxyRequest, span: { end(error?: Error): void }, logger: Logger, url: string) {
    this.#req = req
    this.#res = res
    this.#p = p
    this.#span = span
    this.#logger = logger
    this.#url = url
    res.once('close', () => {
      if (!res.writableFinished && this.#controller && !this.#controller.aborted) {
        this.#controller.abort(new Error('client closed the connection'))
      }
    })
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.#status = statusCode
    const out = downstreamResponseHeaders(headers, this.#p.requestId)
    const res = this.#res
    if (res.destroyed) {
      controller.abort(new Error('client closed the connection'))
      return
    }
    res.writeHead(statusCode, out)
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
    this.#span.end()
    this.#res.end()
    this.#p.observation.end(this.#status)
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.#span.end(error)
    const res = this.#res
    if (error instanceof BodyTooLargeError) {
      this.#p.observation.end(413, error)
      refuseBody(this.#req, res, error, this.#p.requestId)
      return
    }
    if (res.destroyed || (res.headersSent && res.writableEnded)) {
      this.#p.observation.end(this.#status || 499, error)
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
