import { createRequire } from 'node:module'
import type { Logger } from 'pino'
import { SvcError } from '../src/errors.js'
import type { ResolvedSettings } from '../src/settings/schema.js'
import type { Dispatch } from './classify.js'

/**
 * Gateway metrics in Prometheus text format, through prom-client (an optional peer dependency,
 * loaded with `import()` only when metrics are switched on). Names, labels and buckets below are
 * a stable contract for 0.x dashboards; changing a bucket boundary is a minor/major change.
 */

export const GATEWAY_DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const

export interface GatewayMetricSpec {
  name: string
  type: 'counter' | 'histogram'
  labels: readonly string[]
  /** Machine-readable: `stable` means name, labels (and buckets) hold for all 0.x releases. */
  stability: 'stable' | 'experimental'
  buckets: readonly number[] | null
  help: string
}

export const GATEWAY_PROMETHEUS_METRICS = [
  {
    name: 'svc_gateway_requests_total',
    type: 'counter',
    labels: ['dispatch', 'method_kind'],
    stability: 'stable',
    buckets: null,
    help: 'Gateway requests observed at dispatch',
  },
  {
    name: 'svc_gateway_request_duration_seconds',
    type: 'histogram',
    labels: ['dispatch'],
    stability: 'stable',
    buckets: GATEWAY_DURATION_BUCKETS,
    help: 'Wall time of one gateway request, dispatch to response end (WebSocket: connection lifetime)',
  },
] as const satisfies readonly GatewayMetricSpec[]

/** One gateway worker's metrics. */
export interface GatewayMetrics {
  /** Content-Type of `metricsText()`. */
  readonly contentType: string
  /** Count one request at dispatch. `methodKind`: upper-case method or `WEBSOCKET`. */
  countRequest(dispatch: Dispatch, methodKind: string): void
  /** Observe one finished request's wall time; may throw (the caller logs and carries on). */
  observeDuration(dispatch: Dispatch, seconds: number): void
  /** This worker's metrics as prom-client JSON, for the supervisor to aggregate over IPC. */
  getMetricsJSON(): Promise<unknown>
  /** This worker's metrics as exposition text. */
  metricsText(): Promise<string>
}

export interface GatewayMetricsOptions {
  /** Value of the `worker` label on Node process metrics (`enable_node_metrics`). */
  workerId?: string
  /** How prom-client is loaded (tests swap it); default `import('prom-client')`. */
  importPromClient?: () => Promise<unknown>
}

type PromClient = typeof import('prom-client')

const PROM_CLIENT = 'prom-client'

/** True when prom-client can be loaded (the doctor row `svc_metrics_extra`). */
export function isPromClientAvailable(): boolean {
  try {
    createRequire(import.meta.url).resolve(PROM_CLIENT)
    return true
  } catch {
    return false
  }
}

const importPromClient = (): Promise<unknown> => import(PROM_CLIENT)

async function loadPromClient(load: () => Promise<unknown> = importPromClient): Promise<PromClient | null> {
  try {
    return (await load()) as PromClient
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return null
    throw err
  }
}

/** Why the metrics path cannot be used, or null when it can. */
export function metricsPathConflict(settings: ResolvedSettings): string | null {
  const path = settings.gateway_prometheus_metrics_path
  const mount = settings.api_mount_path
  if (path === mount || path.startsWith(mount + '/')) {
    return `gateway_prometheus_metrics_path must not start with api_mount_path (${JSON.stringify(path)} is under ${JSON.stringify(mount)}); metrics disabled`
  }
  return null
}

const DISPATCHES: readonly Dispatch[] = ['api', 'ui']
const COMMON_METHOD_KINDS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'WEBSOCKET']

/**
 * Build this worker's metrics, or null (with one WARNING) when they are switched on but cannot
 * run: the path lies under the API mount, or prom-client is not installed. Null without a warning
 * when `enable_gateway_prometheus_metrics` is off.
 */
export async function createGatewayMetrics(
  settings: ResolvedSettings,
  logger: Logger,
  options: GatewayMetricsOptions = {},
): Promise<GatewayMetrics | null> {
  if (!settings.enable_gateway_prometheus_metrics) return null
  const conflict = metricsPathConflict(settings)
  if (conflict) {
    logger.warn({ metrics_path: settings.gateway_prometheus_metrics_path, api_mount_path: settings.api_mount_path }, conflict)
    return null
  }
  const prom = await loadPromClient(options.importPromClient)
  if (!prom) {
    logger.warn('enable_gateway_prometheus_metrics is on but prom-client is not installed (npm install prom-client); metrics disabled')
    return null
  }
  return new PromGatewayMetrics(prom, settings, options)
}

type CounterChild = { inc(value?: number): void }
type HistogramChild = { observe(value: number): void }

class PromGatewayMetrics implements GatewayMetrics {
  readonly #registry: InstanceType<PromClient['Registry']>
  readonly #shared: InstanceType<PromClient['Registry']>
  readonly #counter: InstanceType<PromClient['Counter']>
  // Label children prepared once: the request path does one Map lookup, no label validation.
  readonly #countChildren = new Map<string, CounterChild>()
  readonly #durationChildren = new Map<string, HistogramChild>()

  constructor(prom: PromClient, settings: ResolvedSettings, options: GatewayMetricsOptions) {
    const [requests, duration] = GATEWAY_PROMETHEUS_METRICS
    this.#registry = new prom.Registry()
    this.#shared = prom.register
    this.#counter = new prom.Counter({
      name: requests.name,
      help: requests.help,
      labelNames: [...requests.labels],
      registers: [this.#registry],
    })
    const histogram = new prom.Histogram({
      name: duration.name,
      help: duration.help,
      labelNames: [...duration.labels],
      buckets: [...duration.buckets],
      registers: [this.#registry],
    })
    // Known series start at zero so rate() and histogram_quantile() work from the first scrape.
    for (const dispatch of DISPATCHES) {
      histogram.zero({ dispatch })
      this.#durationChildren.set(dispatch, histogram.labels({ dispatch }))
      for (const kind of COMMON_METHOD_KINDS) this.#childFor(dispatch, kind).inc(0)
    }
    if (settings.enable_node_metrics) {
      prom.collectDefaultMetrics({
        register: this.#registry,
        labels: { worker: options.workerId ?? process.env.SVC_WORKER_ID ?? String(process.pid) },
      })
    }
  }

  get contentType(): string {
    return this.#registry.contentType
  }

  #childFor(dispatch: string, methodKind: string): CounterChild {
    const key = `${dispatch} ${methodKind}`
    let child = this.#countChildren.get(key)
    if (child === undefined) {
      child = this.#counter.labels({ dispatch, method_kind: methodKind })
      this.#countChildren.set(key, child)
    }
    return child
  }

  countRequest(dispatch: Dispatch, methodKind: string): void {
    this.#childFor(dispatch, methodKind).inc()
  }

  observeDuration(dispatch: Dispatch, seconds: number): void {
    this.#durationChildren.get(dispatch)!.observe(seconds)
  }

  /** svc's metrics, then whatever the app registered on prom-client's default registry. */
  async getMetricsJSON(): Promise<unknown> {
    const own = await this.#registry.getMetricsAsJSON()
    const names = new Set(own.map((m) => m.name))
    const app = (await this.#shared.getMetricsAsJSON()).filter((m) => !names.has(m.name))
    return [...own, ...app]
  }

  async metricsText(): Promise<string> {
    const own = new Set(this.#registry.getMetricsAsArray().map((m) => m.name))
    let text = await this.#registry.metrics()
    for (const metric of this.#shared.getMetricsAsArray()) {
      if (!own.has(metric.name)) text += (await this.#shared.getSingleMetricAsString(metric.name)) + '\n'
    }
    return text
  }
}

/**
 * Sum the metrics of several workers (each the value of `getMetricsJSON()`) into one exposition
 * text, with prom-client's `AggregatorRegistry.aggregate`: counters and histograms add up.
 */
export async function aggregateWorkerMetrics(perWorker: unknown[]): Promise<string> {
  const prom = await loadPromClient()
  if (!prom) {
    throw new SvcError('SVC_ERR_GATEWAY_METRICS_UNAVAILABLE', 'aggregating worker metrics needs prom-client: npm install prom-client')
  }
  const lists = perWorker.filter((w): w is object[] => Array.isArray(w))
  return prom.AggregatorRegistry.aggregate(lists).metrics()
}
