import type { Logger } from 'pino'
import { SvcError } from '../../src/errors.js'
import type { ResolvedSettings } from '../../src/settings/schema.js'
import type { Dispatch } from '../classify.js'
import { loadPromClient, type PromClient } from '../../src/internal/prom-client.js'

export { aggregateWorkerMetrics, isPromClientAvailable } from '../../src/internal/prom-client.js'
export { TREE_PROMETHEUS_METRICS } from '../../src/internal/tree-metrics.js'
export type { TreeMetricSpec } from '../../src/internal/tree-metrics.js'

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
  {
    name: 'svc_gateway_upstream_queue_timeouts_total',
    type: 'counter',
    labels: [],
    stability: 'experimental',
    buckets: null,
    help: 'UI requests refused with 503 after waiting gateway_upstream_queue_timeout_s for a free upstream connection',
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
  /** Count one request refused because no upstream connection became free in time. */
  countUpstreamQueueTimeout(): void
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

/**
 * The shape prom-client's registry reads from a metric at scrape time (`get()`), the same shape
 * its own Counter and Histogram return; `AggregatorRegistry` sums these across workers.
 */
interface MetricSnapshot {
  name: string
  help: string
  type: 'counter' | 'histogram'
  aggregator: 'sum'
  values: { labels: Record<string, string | number>; value: number; metricName?: string }[]
}

/**
 * The gateway metrics are counted in plain numbers on the request path and handed to
 * prom-client's registry as metric objects it reads at scrape time, so exposition, the registry
 * and the sum over workers stay prom-client's. prom-client's own labelled `inc()`/`observe()`
 * validate and hash the label set on every call, which cost about 3 µs per request in a busy
 * worker (bench/proxy.ts); these cost an array index.
 */
class RequestCounter {
  readonly name: string
  readonly help: string
  readonly type = 'counter'
  readonly aggregator = 'sum'
  /** dispatch → method kind → series: two lookups by interned strings, no key built per request. */
  readonly #series = new Map<string, Map<string, { labels: { dispatch: string; method_kind: string }; value: number }>>()

  constructor(spec: GatewayMetricSpec) {
    this.name = spec.name
    this.help = spec.help
  }

  inc(dispatch: string, methodKind: string, by = 1): void {
    let byKind = this.#series.get(dispatch)
    if (byKind === undefined) this.#series.set(dispatch, (byKind = new Map<string, { labels: { dispatch: string; method_kind: string }; value: number }>()))
    const series = byKind.get(methodKind)
    if (series === undefined) byKind.set(methodKind, { labels: { dispatch, method_kind: methodKind }, value: by })
    else series.value += by
  }

  async get(): Promise<MetricSnapshot> {
    const values = [...this.#series.values()].flatMap((byKind) => [...byKind.values()].map((s) => ({ labels: { ...s.labels }, value: s.value })))
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }
}

/** A counter without labels, read by the registry at scrape time like the two above. */
class PlainCounter {
  readonly name: string
  readonly help: string
  readonly type = 'counter'
  readonly aggregator = 'sum'
  value = 0

  constructor(spec: GatewayMetricSpec) {
    this.name = spec.name
    this.help = spec.help
  }

  async get(): Promise<MetricSnapshot> {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: [{ labels: {}, value: this.value }] }
  }
}

/** Cumulative `le` buckets per dispatch, as Prometheus defines them (a value equal to a bound counts in it). */
class DurationHistogram {
  readonly name: string
  readonly help: string
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  readonly #bounds: readonly number[]
  /** Per dispatch: count per bucket (last slot: above every bound), then sum and count. */
  readonly #series = new Map<string, { perBucket: Float64Array; sum: number; count: number }>()

  constructor(spec: GatewayMetricSpec) {
    this.name = spec.name
    this.help = spec.help
    this.#bounds = spec.buckets ?? []
  }

  /** Start a series at zero so rate() and histogram_quantile() work from the first scrape. */
  zero(dispatch: string): void {
    if (!this.#series.has(dispatch)) this.#series.set(dispatch, { perBucket: new Float64Array(this.#bounds.length + 1), sum: 0, count: 0 })
  }

  observe(dispatch: string, seconds: number): void {
    if (!Number.isFinite(seconds)) throw new SvcError('SVC_ERR_GATEWAY_INTERNAL', `duration is not a finite number: ${seconds}`)
    this.zero(dispatch)
    const series = this.#series.get(dispatch)!
    const bounds = this.#bounds
    let i = 0
    while (i < bounds.length && seconds > bounds[i]!) i++
    series.perBucket[i]!++
    series.sum += seconds
    series.count++
  }

  async get(): Promise<MetricSnapshot> {
    const values: MetricSnapshot['values'] = []
    for (const [dispatch, s] of this.#series) {
      let cumulative = 0
      this.#bounds.forEach((le, i) => {
        cumulative += s.perBucket[i]!
        values.push({ labels: { dispatch, le }, value: cumulative, metricName: `${this.name}_bucket` })
      })
      values.push({ labels: { dispatch, le: '+Inf' }, value: s.count, metricName: `${this.name}_bucket` })
      values.push({ labels: { dispatch }, value: s.sum, metricName: `${this.name}_sum` })
      values.push({ labels: { dispatch }, value: s.count, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }
}

type PromMetric = Parameters<InstanceType<PromClient['Registry']>['registerMetric']>[0]

class PromGatewayMetrics implements GatewayMetrics {
  readonly #registry: InstanceType<PromClient['Registry']>
  readonly #shared: InstanceType<PromClient['Registry']>
  readonly #requests: RequestCounter
  readonly #durations: DurationHistogram
  readonly #queueTimeouts: PlainCounter

  constructor(prom: PromClient, settings: ResolvedSettings, options: GatewayMetricsOptions) {
    const [requests, duration, queueTimeouts] = GATEWAY_PROMETHEUS_METRICS
    this.#registry = new prom.Registry()
    this.#shared = prom.register
    this.#requests = new RequestCounter(requests)
    this.#durations = new DurationHistogram(duration)
    this.#queueTimeouts = new PlainCounter(queueTimeouts)
    // The registry only calls get() and reads name/type; its typings list prom-client's own classes.
    this.#registry.registerMetric(this.#requests as unknown as PromMetric)
    this.#registry.registerMetric(this.#durations as unknown as PromMetric)
    this.#registry.registerMetric(this.#queueTimeouts as unknown as PromMetric)
    // Known series start at zero so rate() and histogram_quantile() work from the first scrape.
    for (const dispatch of DISPATCHES) {
      this.#durations.zero(dispatch)
      for (const kind of COMMON_METHOD_KINDS) this.#requests.inc(dispatch, kind, 0)
    }
    if (settings.enable_node_metrics) {
      prom.collectDefaultMetrics({
        register: this.#registry,
        labels: { worker: options.workerId ?? String(process.pid) },
      })
    }
  }

  get contentType(): string {
    return this.#registry.contentType
  }

  countRequest(dispatch: Dispatch, methodKind: string): void {
    this.#requests.inc(dispatch, methodKind)
  }

  observeDuration(dispatch: Dispatch, seconds: number): void {
    this.#durations.observe(dispatch, seconds)
  }

  countUpstreamQueueTimeout(): void {
    this.#queueTimeouts.value++
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
