import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import type { ResolvedSettings } from '../src/settings/schema.js'
import { getRequestId } from '../src/logging/context.js'
import { buildDebugSnapshot, type DebugRing } from './observability/debug-snapshot.js'
import { sendJsonError } from './json-error.js'
import type { GatewayMetrics } from './observability/metrics.js'

/** The debug snapshot's fixed path, matched on the dispatch path (after the root_path split). */
export const DEBUG_PATH = '/__svc/debug'

export type InternalRouteKind = 'metrics' | 'debug'

/**
 * The gateway's own endpoints: the metrics scrape and the debug snapshot. Both are GET only and
 * unauthenticated (restrict them at the ingress). The gateway calls neither the observer nor the
 * access log for them, so scrapes never count themselves.
 */
export interface InternalRoutes {
  match(method: string, dispatchPath: string): InternalRouteKind | null
  serve(kind: InternalRouteKind, req: IncomingMessage, res: ServerResponse): Promise<void>
}

export interface InternalRoutesOptions {
  settings: ResolvedSettings
  logger: Logger
  metrics: GatewayMetrics | null
  debugRing: DebugRing | null
  /** The scrape body: this worker's text, or the sum over all workers from the supervisor. */
  collectMetrics: () => Promise<string>
  /** The sidecar URL as this worker knows it (gateway/runtime.ts); '' when not given. */
  uiUpstream?: () => string
}

/** True when api_mount_path equals `/__svc/debug` or is a path prefix of it. */
export function debugPathConflicts(apiMountPath: string): boolean {
  return DEBUG_PATH === apiMountPath || DEBUG_PATH.startsWith(apiMountPath + '/')
}

/**
 * Null when neither endpoint is on. The debug snapshot is on in debug mode, unless the API mount
 * covers its path (then one WARNING, and the gateway answers 404 for it).
 */
export function createInternalRoutes(opts: InternalRoutesOptions): InternalRoutes | null {
  const { settings, logger, metrics, debugRing, collectMetrics } = opts
  const uiUpstream = opts.uiUpstream ?? (() => '')
  let debugOn = settings.debug && debugRing !== null
  if (debugOn && debugPathConflicts(settings.api_mount_path)) {
    logger.warn(
      { api_mount_path: settings.api_mount_path },
      `debug endpoint ${DEBUG_PATH} conflicts with api_mount_path ${JSON.stringify(settings.api_mount_path)}; it answers 404`,
    )
    debugOn = false
  }
  const metricsPath = metrics === null ? null : settings.gateway_prometheus_metrics_path
  if (metricsPath === null && !debugOn) return null

  return {
    match(method, dispatchPath) {
      if (method !== 'GET') return null
      if (dispatchPath === metricsPath) return 'metrics'
      if (debugOn && dispatchPath === DEBUG_PATH) return 'debug'
      return null
    },

    async serve(kind, _req, res) {
      const requestId = getRequestId() ?? ''
      if (kind === 'debug') {
        send(res, 200, 'application/json; charset=utf-8', JSON.stringify(buildDebugSnapshot(settings, debugRing!, uiUpstream())), requestId)
        return
      }
      let text: string
      try {
        text = await collectMetrics()
      } catch (err) {
        logger.error({ err }, 'metrics scrape failed')
        sendJsonError(res, 'SVC_ERR_GATEWAY_METRICS_UNAVAILABLE', `metrics scrape failed: ${(err as Error).message}`, requestId)
        return
      }
      send(res, 200, metrics!.contentType, text, requestId)
    },
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string, requestId: string): void {
  const headers: Record<string, string | number> = {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  }
  if (requestId !== '') headers['x-request-id'] = requestId
  res.writeHead(status, headers)
  res.end(body)
}
