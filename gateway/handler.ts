import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { Logger } from 'pino'
import type { ResolvedSettings } from '../src/settings/schema.js'
import { runWithRequestId } from '../src/logging/context.js'
import { createClassifier, type Classified, type Dispatch } from './classify.js'
import { resolveRequestId } from '../src/logging/request-id.js'
import { forwardView, upstreamRequestHeaders } from './forward-headers.js'
import { sendJsonError, rejectUpgrade } from './json-error.js'
import type { ApiHop } from './api-hop.js'
import type { HttpProxy } from './http-proxy.js'
import type { WsProxy } from './ws-proxy.js'
import { NOOP_OBSERVATION, type GatewayObserver, type RequestInfo } from './observability/observation.js'
import { DEBUG_PATH, type InternalRoutes } from './internal-routes.js'
import { lingerBriefly } from './lingering-close.js'
import type { StaticRoute } from './static-route.js'


export interface GatewayParts {
  settings: ResolvedSettings
  logger: Logger
  api: ApiHop
  http: HttpProxy
  ws: WsProxy
  observer: GatewayObserver
  internal: InternalRoutes | null
  /** The bundled page server's static files, served without the proxy hop; null with a ui_command. */
  staticFiles: StaticRoute | null
  /** Sets response headers every answer carries (security headers); null when off. */
  decorate: ((req: IncomingMessage, res: ServerResponse) => void) | null
  isDraining: () => boolean
}

/**
 * The request path of a gateway worker: request ID → classify → internal route | API hop |
 * HTTP proxy | WebSocket proxy. Everything per-request is a lookup in values prepared here.
 */
export function createGatewayHandler(parts: GatewayParts): {
  handleRequest: (req: IncomingMessage, res: ServerResponse) => void
  handleContinue: (req: IncomingMessage, res: ServerResponse) => void
  handleUpgrade: (req: IncomingMessage, socket: Socket, head: Buffer) => void
} {
  const { settings, observer, internal, decorate, staticFiles } = parts
  const classify = createClassifier({ apiMountPath: settings.api_mount_path, rootPath: settings.root_path })
  const root = settings.root_path
  const trustProxy = settings.trust_proxy
  const docsTarget = `${root}${settings.api_mount_path}/docs`
  const redirects = new Map([
    ['/docs', docsTarget],
    ['/docs/', docsTarget],
    ['/openapi.json', `${root}${settings.api_mount_path}/openapi.json`],
  ])

  const apiBodyTimeoutMs = settings.gateway_client_body_timeout_s * 1000

  /** `expectsContinue`: the client waits for 100 Continue, sent only on the paths that read the body. */
  const handle = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean, requestId: string): void => {
    const hostProblem = badHost(req)
    if (hostProblem !== null) {
      res.setHeader('connection', 'close')
      sendJsonError(res, 'SVC_ERR_GATEWAY_BAD_REQUEST', hostProblem, requestId)
      return
    }
    // Answers the gateway writes itself carry the id in their head, and the app's Fastify adds
    // it to its own (src/app.ts). Setting it early would cost a header merge per request.
    if (parts.isDraining()) res.setHeader('connection', 'close')
    decorate?.(req, res)
    const rawUrl = req.url ?? '/'
    const c = classify(rawUrl)
    if (c.kind === 'bad') {
      sendJsonError(res, 'SVC_ERR_GATEWAY_BAD_PATH', `bad request path: ${c.reason}`, requestId)
      return
    }
    const method = req.method ?? 'GET'
    const kind = internal?.match(method, c.dispatchPath) ?? null
    if (kind !== null) {
      res.setHeader('x-request-id', requestId)
      runWithRequestId(requestId, () => {
        internal!.serve(kind, req, res).catch((err: Error) => {
          parts.logger.error({ err }, `gateway internal route ${kind} failed`)
          sendJsonError(res, 'SVC_ERR_GATEWAY_INTERNAL', `${kind} endpoint failed: ${err.message}`, requestId)
        })
      })
      return
    }
    if (c.dispatchPath === DEBUG_PATH) {
      sendJsonError(res, 'SVC_ERR_GATEWAY_NOT_FOUND', `${DEBUG_PATH} is served only in debug mode (SVC_DEBUG=1)`, requestId)
      return
    }
    const observation = observer.observing() ? observer.begin(requestInfo(req, requestId, c, method.toUpperCase(), method)) : NOOP_OBSERVATION
    if (c.kind === 'api') {
      // A listener per response costs an allocation and two list updates; only one that observes needs it.
      if (observation !== NOOP_OBSERVATION) res.once('close', () => observation.end(res.statusCode))
      if (expectsContinue) res.writeContinue()
      if (hasBody(req) && hasSocketTimer(req)) watchApiBodyIdle(req, res, apiBodyTimeoutMs, requestId)
      // The app's code runs here: getRequestId() and its log lines see the resolved id.
      runWithRequestId(requestId, () => parts.api(req, res, c.apiPath, c.query))
      return
    }
    const redirect = method === 'GET' || method === 'HEAD' ? redirects.get(c.dispatchPath) : undefined
    if (redirect !== undefined) {
      res.writeHead(307, { location: redirect, 'content-length': 0, 'x-request-id': requestId })
      res.end()
      observation.end(307)
      return
    }
    if (staticFiles !== null && (method === 'GET' || method === 'HEAD') && staticFiles(req, res, c.uiPath, requestId)) {
      if (observation !== NOOP_OBSERVATION) res.once('close', () => observation.end(res.statusCode))
      return
    }
    // No user code on the proxy path: it passes the id explicitly and needs no async context.
    const view = forwardView(req, root, trustProxy)
    parts.http.forward(req, res, {
      requestId,
      target: c.query === '' ? c.uiPath : `${c.uiPath}?${c.query}`,
      headers: upstreamRequestHeaders(req, view, requestId, false),
      observation,
      expectsContinue,
    })
  }
  /** Nothing thrown on the request path may escape either: 500 JSON, and the worker goes on. */
  const guarded = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void => {
    const requestId = resolveRequestId(req.headers['x-request-id'])
    try {
      handle(req, res, expectsContinue, requestId)
    } catch (err) {
      parts.logger.error({ err, request_id: requestId }, 'gateway request failed')
      sendJsonError(res, 'SVC_ERR_GATEWAY_INTERNAL', 'the gateway failed on this request; its log has the details under this request ID', requestId)
    }
  }
  const handleRequest = (req: IncomingMessage, res: ServerResponse): void => guarded(req, res, false)
  const handleContinue = (req: IncomingMessage, res: ServerResponse): void => guarded(req, res, true)

  /** Nothing thrown on the upgrade path may escape: it would take the whole worker down. */
  const handleUpgrade = (req: IncomingMessage, socket: Socket, head: Buffer): void => {
    socket.on('error', () => socket.destroy())
    const requestId = resolveRequestId(req.headers['x-request-id'])
    try {
      upgrade(req, socket, head, requestId)
    } catch (err) {
      parts.logger.error({ err }, 'gateway websocket upgrade failed')
      rejectUpgrade(socket, 'SVC_ERR_GATEWAY_INTERNAL', `WebSocket upgrade failed: ${(err as Error).message}`, requestId)
    }
  }

  const upgrade = (req: IncomingMessage, socket: Socket, head: Buffer, requestId: string): void => {
    const hostProblem = badHost(req)
    if (hostProblem !== null) {
      rejectUpgrade(socket, 'SVC_ERR_GATEWAY_BAD_REQUEST', hostProblem, requestId)
      return
    }
    const rawUrl = req.url ?? '/'
    const c = classify(rawUrl)
    if (c.kind === 'bad') {
      rejectUpgrade(socket, 'SVC_ERR_GATEWAY_BAD_PATH', `bad request path: ${c.reason}`, requestId)
      return
    }
    // Node hands over any request with `Connection: upgrade`; a WebSocket handshake is a GET
    // (RFC 6455 §4.1). Proxying a `POST … Upgrade: websocket` would turn it into a GET upstream.
    if (req.method !== 'GET') {
      rejectUpgrade(socket, 'SVC_ERR_GATEWAY_BAD_UPGRADE', `a WebSocket handshake must use GET, not ${req.method}`, requestId)
      return
    }
    if (c.kind === 'api' || parts.isDraining()) {
      const draining = parts.isDraining()
      rejectUpgrade(
        socket,
        draining ? 'SVC_ERR_GATEWAY_DRAINING' : 'SVC_ERR_GATEWAY_NOT_FOUND',
        draining ? 'the gateway is shutting down' : 'WebSockets under the API mount are not supported; use a path outside it',
        requestId,
      )
      return
    }
    const upstream = parts.http.upstream
    if (!upstream) {
      rejectUpgrade(socket, 'SVC_ERR_PROXY_NO_UPSTREAM', 'no ui upstream is configured', requestId)
      return
    }
    const observation = observer.begin(requestInfo(req, requestId, c, 'WEBSOCKET', 'websocket'))
    const view = forwardView(req, root, trustProxy)
    const target = c.query === '' ? c.uiPath : `${c.uiPath}?${c.query}`
    runWithRequestId(requestId, () => {
      parts.ws.forward(req, socket, head, {
        requestId,
        upstream,
        target,
        headers: upstreamRequestHeaders(req, view, requestId, true),
        observation,
      })
    })
  }

  return { handleRequest, handleContinue, handleUpgrade }
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request without Host, any request with more than one, or one whose
 * value is not `host[:port]`, gets 400 (Node keeps the first of several, so the sidecar and the
 * gateway could disagree on the host).
 */
function badHost(req: IncomingMessage): string | null {
  const raw = req.rawHeaders
  let seen = 0
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!
    if (name.length === 4 && name.toLowerCase() === 'host') seen++
  }
  if (seen > 1) return `the request has ${seen} Host headers; send exactly one`
  if (seen === 0 && req.httpVersion !== '1.0') return 'an HTTP/1.1 request needs a Host header'
  const host = req.headers.host
  if (host !== undefined && host !== '' && !HOST_VALUE.test(host)) {
    return `invalid Host header ${JSON.stringify(host.slice(0, 100))}; send host[:port]`
  }
  return null
}

/** RFC 9110 §7.2 `uri-host [ ":" port ]`: an IP literal or a reg-name, and a port of at most 5 digits. */
const HOST_VALUE = /^(?:\[[0-9A-Fa-f:.]+(?:%25[\w.~-]+)?\]|\[v[0-9A-Fa-f]+\.[\w.~!$&'()*+,;=:-]+\]|[\w.~!$&'()*+,;=%-]*)(?::\d{0,5})?$/

/** False for the in-process test client's requests (light-my-request): no socket to time. */
function hasSocketTimer(req: IncomingMessage): boolean {
  return typeof req.setTimeout === 'function'
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length']
  return length !== undefined ? length !== '0' : req.headers['transfer-encoding'] !== undefined
}

/**
 * nginx's client_body_timeout on the API: no body bytes for `ms` → 408 and the connection
 * closes. Fastify reads bodies as they arrive, so an idle socket means an idle client.
 */
function watchApiBodyIdle(req: IncomingMessage, res: ServerResponse, ms: number, requestId: string): void {
  let timedOut = false
  req.setTimeout(ms, () => {
    if (req.complete) return
    if (timedOut || res.headersSent) {
      res.destroy()
      return
    }
    timedOut = true
    res.setHeader('connection', 'close')
    lingerBriefly(req.socket)
    sendJsonError(res, 'SVC_ERR_GATEWAY_BODY_TIMEOUT', `the request body stalled: no bytes for ${ms / 1000} s (gateway_client_body_timeout_s)`, requestId)
  })
  req.once('end', () => {
    if (!res.writableFinished) req.socket.setTimeout(0)
  })
}

type Routed = Extract<Classified, { kind: Dispatch }>

/** What the observer learns about one request (access log, spans, metrics, debug ring). */
function requestInfo(req: IncomingMessage, requestId: string, c: Routed, methodKind: string, methodOrType: string): RequestInfo {
  const rawUrl = req.url ?? '/'
  const q = rawUrl.indexOf('?')
  return {
    requestId,
    dispatch: c.kind,
    methodKind,
    methodOrType,
    path: q === -1 ? rawUrl : rawUrl.slice(0, q),
    query: c.query,
    dispatchPath: c.dispatchPath,
    apiPath: c.apiPath,
    uiPath: c.uiPath,
    traceparent: single(req.headers.traceparent),
    tracestate: single(req.headers.tracestate),
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined
}
