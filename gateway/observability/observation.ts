import type { Dispatch } from '../classify.js'

/**
 * The seam between the gateway's request path and observability (access log, metrics, trace
 * spans, debug ring). The request path calls `begin()` once per request, `upstream()` around the
 * HTTP hop to the sidecar, and `end()` exactly once when the response (or WebSocket) is done.
 * Implementations must cost (almost) nothing when everything is off: `begin()` may return
 * `NOOP_OBSERVATION`.
 */
export interface RequestInfo {
  requestId: string
  dispatch: Dispatch
  /** Upper-case HTTP method, or `WEBSOCKET`. */
  methodKind: string
  /** HTTP method, or the literal `websocket`. */
  methodOrType: string
  /** Raw path the gateway saw (before the root_path split), without the query. */
  path: string
  /** Raw query string without `?` (redaction is the observer's job). */
  query: string
  /** Optional, for the debug-mode split line: the path after the root_path split. */
  dispatchPath?: string
  /** Optional, for the debug-mode split line: the path the inner API routes (`api` only). */
  apiPath?: string
  /** Optional, for the debug-mode split line: the path sent to the sidecar (`ui` only). */
  uiPath?: string
  /** Optional: the client's W3C `traceparent` / `tracestate`, handed to the trace hook. */
  traceparent?: string
  tracestate?: string
}

export interface UpstreamObservation {
  end(error?: Error): void
}

export interface RequestObservation {
  /** Around the HTTP hop to the sidecar (span `svc.gateway.upstream_http`). */
  upstream(method: string, urlFull: string): UpstreamObservation
  /** Once: status code sent (101 for a WebSocket that opened), error if the request failed. */
  end(statusCode: number, error?: Error): void
}

export interface GatewayObserver {
  /** False when `begin()` would return `NOOP_OBSERVATION`: the caller can skip building `RequestInfo`. */
  observing(): boolean
  begin(info: RequestInfo): RequestObservation
  /** A request waited longer than `gateway_upstream_queue_timeout_s` for an upstream connection. */
  upstreamQueueTimeout(): void
}

export const NOOP_UPSTREAM: UpstreamObservation = { end() {} }
export const NOOP_OBSERVATION: RequestObservation = { upstream: () => NOOP_UPSTREAM, end() {} }
export const NOOP_OBSERVER: GatewayObserver = { observing: () => false, begin: () => NOOP_OBSERVATION, upstreamQueueTimeout() {} }
