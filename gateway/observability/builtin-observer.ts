import { performance } from 'node:perf_hooks'
import type { Logger } from 'pino'
import type { ResolvedSettings } from '../../src/settings/schema.js'
import { createQueryRedactor, redactUrl } from '../../src/logging/redact.js'
import type { DebugRing } from './debug-snapshot.js'
import { createAccessLogWriter, type AccessLogWrite } from './access-log.js'
import type { GatewayMetrics } from './metrics.js'
import {
  NOOP_OBSERVATION,
  NOOP_UPSTREAM,
  type GatewayObserver,
  type RequestInfo,
  type RequestObservation,
  type UpstreamObservation,
} from './observation.js'

export interface GatewayObserverOptions {
  settings: ResolvedSettings
  /** Logger `svc.gateway`. */
  logger: Logger
  metrics: GatewayMetrics | null
  debugRing: DebugRing | null
}

interface Prepared {
  logger: Logger
  accessLevel: 'info' | 'debug'
  writeAccess: AccessLogWrite
  redactQuery: (query: string) => string
  mount: string
  debug: boolean
  metrics: GatewayMetrics | null
  debugRing: DebugRing | null
}

/**
 * The gateway's observability: one access-log record per request (written when the response
 * ends, so it carries `status` and `duration_ms`), the debug split line and debug ring, and the
 * request counter and duration histogram. Trace spans come from the tracing channels
 * (diagnostics.ts), to which the trace hook subscribes. `begin()` returns
 * `NOOP_OBSERVATION` when none of these is on.
 */
export function createGatewayObserver(opts: GatewayObserverOptions): GatewayObserver {
  const { settings, logger, metrics, debugRing } = opts
  const accessLevel = settings.enable_gateway_access_log ? 'info' : 'debug'
  const p: Prepared = {
    logger,
    accessLevel,
    writeAccess: createAccessLogWriter(logger, accessLevel),
    redactQuery: createQueryRedactor([settings.url_session_query_param, ...settings.redact_query_params]),
    mount: settings.api_mount_path,
    debug: settings.debug,
    metrics,
    debugRing,
  }
  const observing = (): boolean => metrics !== null || debugRing !== null || logger.isLevelEnabled(p.accessLevel)
  return {
    observing,
    begin(info) {
      return observing() ? new Observation(p, info) : NOOP_OBSERVATION
    },
    upstreamQueueTimeout() {
      metrics?.countUpstreamQueueTimeout()
    },
  }
}

class Observation implements RequestObservation {
  readonly #p: Prepared
  readonly #info: RequestInfo
  readonly #start = performance.now()
  #ended = false

  constructor(p: Prepared, raw: RequestInfo) {
    this.#p = p
    const info = redactInfo(raw, p.redactQuery)
    this.#info = info
    p.debugRing?.push({ request_id: info.requestId, dispatch: info.dispatch, path: info.path })
    if (p.debug && p.logger.isLevelEnabled('debug')) logSplit(p, info)
    p.metrics?.countRequest(info.dispatch, info.methodKind)
  }

  upstream(): UpstreamObservation {
    return NOOP_UPSTREAM
  }

  end(statusCode: number, error?: Error): void {
    if (this.#ended) return
    this.#ended = true
    const p = this.#p
    const info = this.#info
    const seconds = (performance.now() - this.#start) / 1000
    if (p.metrics !== null) {
      try {
        p.metrics.observeDuration(info.dispatch, seconds)
      } catch (err) {
        p.logger.debug(
          { request_id: info.requestId, svc_dispatch: info.dispatch, err },
          `gateway_prometheus_observe_failed dispatch=${info.dispatch} err=${(err as Error)?.name ?? typeof err}`,
        )
      }
    }
    if (p.logger.isLevelEnabled(p.accessLevel)) {
      const errorName = error ? ((error as NodeJS.ErrnoException).code ?? error.name) : undefined
      p.writeAccess(info, p.redactQuery(info.query), statusCode, Math.round(seconds * 1_000_000) / 1000, errorName)
    }
  }
}

/**
 * The request info with credentials out of its paths: the query is redacted when written, and a
 * raw `#fragment` in the request target (`/cb#access_token=…`, which browsers never send but
 * other clients may) is redacted here, once, for the access log, debug line, ring and spans.
 */
function redactInfo(info: RequestInfo, redactQuery: (query: string) => string): RequestInfo {
  if (!info.path.includes('#')) return info
  const r = (path: string | undefined): string | undefined => (path === undefined ? undefined : redactUrl(path, redactQuery))
  return { ...info, path: r(info.path)!, dispatchPath: r(info.dispatchPath), apiPath: r(info.apiPath), uiPath: r(info.uiPath) }
}

function logSplit(p: Prepared, info: RequestInfo): void {
  const apiPath = info.dispatch === 'api' ? (info.apiPath ?? stripMount(info.dispatchPath ?? info.path, p.mount)) : '-'
  const uiPath = info.dispatch === 'ui' ? (info.uiPath ?? info.path) : '-'
  p.logger.debug(
    { request_id: info.requestId, path_in: info.path, mount: p.mount, api_path: apiPath, ui_path: uiPath },
    `svc debug split path_in=${info.path} mount=${p.mount} api_path=${apiPath} ui_path=${uiPath}`,
  )
}

function stripMount(path: string, mount: string): string {
  return path.startsWith(mount) ? path.slice(mount.length) || '/' : path
}
