import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import type { Svc } from '../src/app.js'
import { childLogger } from '../src/logging/logger.js'
import { kRuntime } from '../src/internal/symbols.js'
import { normalizeUpstream } from '../src/internal/runtime-state.js'
import { createApiHop } from './api-hop.js'
import { HttpProxy } from './http-proxy.js'
import { WsProxy } from './ws-proxy.js'
import { createGatewayHandler } from './handler.js'
import type { InternalRoutes } from './internal-routes.js'
import { createSecurityHeaders } from './security-headers.js'
import { NOOP_OBSERVER, type GatewayObserver } from './observe.js'
import { GatewayServer, autoMaxConnections } from './server.js'

/** Everything one gateway worker (or an in-process test client) serves with. */
export interface Gateway {
  readonly server: GatewayServer
  readonly logger: Logger
  /** The request path without a socket server (in-process test client). */
  handleRequest: (req: IncomingMessage, res: ServerResponse) => void
  setUpstream(url: string): void
  /** Stop accepting, readyz 503, WebSockets closed with 1001, in-flight finished within the grace. */
  drain(graceMs: number): Promise<void>
  destroy(): Promise<void>
}

export interface BuildGatewayOptions {
  /** Sidecar URL; default `SVC_UI_UPSTREAM` as seen by the app. */
  upstream?: string
  observer?: GatewayObserver
  internal?: InternalRoutes | null
}

export async function buildGateway(app: Svc, opts: BuildGatewayOptions = {}): Promise<Gateway> {
  const settings = app.settings
  const runtime = app[kRuntime]
  if (opts.upstream !== undefined) runtime.uiUpstream = normalizeUpstream(opts.upstream)
  const logger = childLogger(app.logger, 'svc.gateway')
  const observer = opts.observer ?? NOOP_OBSERVER
  const api = await createApiHop(app.api)
  const http = new HttpProxy(runtime.uiUpstream, {
    maxBodyBytes: settings.gateway_max_proxy_request_body_bytes,
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
    decorate: createSecurityHeaders(settings),
    isDraining: () => runtime.draining,
  })
  const server = new GatewayServer(handlers, {
    headerTimeoutMs: settings.gateway_client_header_timeout_s * 1000,
    keepAliveTimeoutMs: settings.gateway_keepalive_timeout_s * 1000,
    maxConnections: settings.gateway_max_connections || autoMaxConnections(),
  })
  return {
    server,
    logger,
    handleRequest: handlers.handleRequest,
    setUpstream(url) {
      runtime.uiUpstream = normalizeUpstream(url)
      http.setUpstream(runtime.uiUpstream)
    },
    async drain(graceMs) {
      runtime.draining = true
      await server.drain(graceMs, () => ws.closeAll(1001, 'server going away'))
      ws.terminateAll()
      await http.close()
    },
    async destroy() {
      runtime.draining = true
      ws.terminateAll()
      server.destroy()
      await http.destroy()
      await app.api.close()
    },
  }
}
