import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import type { Svc } from '../src/app.js'
import { childLogger } from '../src/logging/logger.js'
import { kServeErrorDetails, kServeHealth } from '../src/internal/symbols.js'
import type { GatewayRuntime } from './runtime.js'
import { createApiHop } from './api-hop.js'
import { HttpProxy } from './http-proxy.js'
import { WsProxy } from './ws-proxy.js'
import { createGatewayHandler } from './handler.js'
import type { InternalRoutes } from './internal-routes.js'
import { createSecurityHeaders } from './security-headers.js'
import { createStaticRoute } from './static-route.js'
import { NOOP_OBSERVER, type GatewayObserver } from './observability/observation.js'
import { GatewayServer, autoMaxConnections } from './server.js'
import { Lifecycle } from '../src/internal/lifecycle.js'
import { MIN_APP_CLOSE_MS, WS_RETIRE_SPREAD_MS } from '../src/internal/deadlines.js'

/** Everything one gateway worker (or an in-process test client) serves with. */
export interface Gateway {
  readonly server: GatewayServer
  readonly logger: Logger
  /** The request path without a socket server (in-process test client). */
  handleRequest: (req: IncomingMessage, res: ServerResponse) => void
  /** Resolves once requests in flight to the previous sidecar are done. */
  setUpstream(url: string): Promise<void>
  /**
   * Stop accepting, readyz 503, WebSockets closed with 1001, in-flight finished within the grace;
   * then the app's Fastify `onClose` hooks (DB pools) run, within what is left of the grace.
   * `wsGraceMs` > 0 (a reload): WebSockets stay open until they close or that time passes, then
   * get 1001 spread over `WS_RETIRE_SPREAD_MS`; the close resolves once they are gone. The same
   * promise as `close()`: the first call sets the graces.
   */
  drainWithin(graceMs: number, wsGraceMs?: number): Promise<void>
  /** `drainWithin` the app's `shutdown_grace_s`, WebSockets closed now. */
  close(): Promise<void>
  /** During a reload's close: WebSockets still open get 1001 spread over time, starting `afterMs` from now. */
  retireWebSockets(afterMs: number): void
  /** During a close: every WebSocket gets 1001 now (a shutdown while a reload's drain waits for them). */
  closeWebSockets(): void
  /** Now: WebSockets and connections dropped, the upstream pool aborted (requests waiting on it fail with `err`), the app closed; cuts a running close short. */
  destroy(err?: Error): Promise<void>
}

export interface BuildGatewayOptions {
  /** Upstream, drain and saturation state, shared with the observability routes. */
  runtime: GatewayRuntime
  observer?: GatewayObserver
  internal?: InternalRoutes | null
  /** Started by `svc dev`: API server errors show their message unless `show_error_details` says otherwise. */
  devMode?: boolean
}

async function closeApp(app: Svc, ms: number, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)))
  try {
    const how = await Promise.race([app.api.close().then(() => 'closed' as const), timeout])
    if (how === 'timeout') logger.warn(`the app's onClose hooks did not finish within ${ms} ms; exiting without them`)
  } catch (err) {
    logger.error({ err }, `an onClose hook of the app failed: ${(err as Error).message}`)
  } finally {
    clearTimeout(timer)
  }
}

export async function buildGateway(app: Svc, opts: BuildGatewayOptions): Promise<Gateway> {
  const settings = app.settings
  const runtime = opts.runtime
  app[kServeHealth](runtime)
  app[kServeErrorDetails](opts.devMode ?? false)
  const logger = childLogger(app.logger, 'svc.gateway')
  const observer = opts.observer ?? NOOP_OBSERVER
  const api = await createApiHop(app.api)
  const http = new HttpProxy(runtime.uiUpstream, {
    maxBodyBytes: settings.gateway_max_proxy_request_body_bytes,
    bufferDiskBytes: settings.gateway_proxy_buffer_disk_bytes,
    connectTimeoutMs: settings.gateway_upstream_connect_timeout_s * 1000,
    readTimeoutMs: settings.gateway_upstream_read_timeout_s * 1000,
    poolSize: settings.gateway_upstream_pool_size,
    queueTimeoutMs: settings.gateway_upstream_queue_timeout_s * 1000,
    bodyTimeoutMs: settings.gateway_client_body_timeout_s * 1000,
    logger,
    onQueueTimeout: () => observer.upstreamQueueTimeout(),
  })
  runtime.upstreamSaturation = () => http.saturation()
  const ws = new WsProxy({
    connectTimeoutMs: settings.gateway_upstream_connect_timeout_s * 1000,
    maxMessageBytes: settings.gateway_ws_max_message_bytes,
    logger,
  })
  const handlers = createGatewayHandler({
    settings,
    logger,
    api,
    http,
    ws,
    observer,
    internal: opts.internal ?? null,
    staticFiles: createStaticRoute(settings, logger),
    decorate: createSecurityHeaders(settings),
    isDraining: () => runtime.draining,
  })
  // Every request counts, whatever it is for: `svc status` shows it, `gateway_max_requests` acts on it.
  const counted: typeof handlers = {
    ...handlers,
    handleRequest: (req, res) => {
      runtime.countRequest()
      handlers.handleRequest(req, res)
    },
    handleContinue: (req, res) => {
      runtime.countRequest()
      handlers.handleContinue(req, res)
    },
    handleUpgrade: (req, socket, head) => {
      runtime.countRequest()
      handlers.handleUpgrade(req, socket, head)
    },
  }
  const server = new GatewayServer(counted, {
    headerTimeoutMs: settings.gateway_client_header_timeout_s * 1000,
    keepAliveTimeoutMs: settings.gateway_keepalive_timeout_s * 1000,
    maxConnections: settings.gateway_max_connections || autoMaxConnections(),
  })
  return new BuiltGateway({ app, runtime, logger, server, http, ws, handleRequest: handlers.handleRequest })
}

class BuiltGateway extends Lifecycle implements Gateway {
  readonly server: GatewayServer
  readonly logger: Logger
  readonly handleRequest: (req: IncomingMessage, res: ServerResponse) => void
  readonly #app: Svc
  readonly #runtime: GatewayRuntime
  readonly #http: HttpProxy
  readonly #ws: WsProxy
  #graces: { graceMs: number; wsGraceMs: number } | null = null

  constructor(parts: { app: Svc; runtime: GatewayRuntime; logger: Logger; server: GatewayServer; http: HttpProxy; ws: WsProxy; handleRequest: Gateway['handleRequest'] }) {
    super()
    this.#app = parts.app
    this.#runtime = parts.runtime
    this.logger = parts.logger
    this.server = parts.server
    this.#http = parts.http
    this.#ws = parts.ws
    this.handleRequest = parts.handleRequest
  }

  setUpstream(url: string): Promise<void> {
    this.#runtime.uiUpstream = url
    return this.#http.setUpstream(this.#runtime.uiUpstream)
  }

  drainWithin(graceMs: number, wsGraceMs = 0): Promise<void> {
    this.#graces ??= { graceMs, wsGraceMs }
    return this.close()
  }

  retireWebSockets(afterMs: number): void {
    this.#ws.retire(afterMs, WS_RETIRE_SPREAD_MS)
  }

  closeWebSockets(): void {
    void this.#ws.close()
  }

  protected async drain(): Promise<void> {
    const { graceMs, wsGraceMs } = this.#graces ?? { graceMs: this.#app.settings.shutdown_grace_s * 1000, wsGraceMs: 0 }
    const deadline = Date.now() + graceMs
    this.#runtime.draining = true
    // Resolves once every connection is gone, upgraded ones included.
    const drained = this.server.close()
    if (wsGraceMs > 0) this.retireWebSockets(wsGraceMs)
    else this.closeWebSockets()
    const timer = setTimeout(() => this.server.endHttpConnections(), graceMs)
    timer.unref()
    await drained
    clearTimeout(timer)
    await this.#ws.destroy()
    await this.#http.close()
    await closeApp(this.#app, Math.max(deadline - Date.now(), MIN_APP_CLOSE_MS), this.logger)
  }

  protected async abort(err: Error | undefined): Promise<void> {
    this.#runtime.draining = true
    await this.#ws.destroy()
    await this.server.destroy()
    await this.#http.destroy(err)
    await this.#app.api.close()
  }
}
