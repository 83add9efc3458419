/**
 * The process tree's own metrics, made by the supervisor at each scrape and summed into it with
 * the workers' (no prom-client registry of their own: they are built as prom-client JSON). Names
 * and labels are a stable contract for 0.x dashboards, like the gateway's catalogue.
 */
/** One entry of a metric catalogue (the gateway's and the tree's share the shape). */
export interface MetricSpec<Type extends string, Buckets extends readonly number[] | null> {
  name: string
  type: Type
  labels: readonly string[]
  /** Machine-readable: `stable` means name, labels (and buckets) hold for all 0.x releases. */
  stability: 'stable' | 'experimental'
  buckets: Buckets
  help: string
}

export type TreeMetricSpec = MetricSpec<'counter' | 'gauge', null>

export const TREE_PROMETHEUS_METRICS = [
  {
    name: 'svc_process_restarts_total',
    type: 'counter',
    labels: ['role', 'reason'],
    stability: 'stable',
    buckets: null,
    help: 'Processes and page threads started again in their slot: role gateway|sidecar|page_thread, reason crash|run_timeout|memory|requests',
  },
  {
    name: 'svc_process_resident_memory_bytes',
    type: 'gauge',
    labels: ['role'],
    stability: 'stable',
    buckets: null,
    help: 'Resident memory (RSS) of the tree by role: supervisor, sidecar, gateway (all workers, replaced ones still draining included)',
  },
  {
    name: 'svc_ui_page_sessions',
    type: 'gauge',
    labels: [],
    stability: 'stable',
    buckets: null,
    help: 'Live page sessions of the bundled page server',
  },
  {
    name: 'svc_reloads_total',
    type: 'counter',
    labels: ['result'],
    stability: 'stable',
    buckets: null,
    help: 'Reloads of the running tree (svc reload, SIGHUP, svc dev --reload saves) by result: ok|failed',
  },
  {
    name: 'svc_recycles_total',
    type: 'counter',
    labels: ['role', 'reason'],
    stability: 'stable',
    buckets: null,
    help: 'Gateway workers and page threads replaced for a limit: role gateway|page_thread, reason memory|requests',
  },
] as const satisfies readonly TreeMetricSpec[]

/** One metric as prom-client's `getMetricsAsJSON()` gives it: what `AggregatorRegistry.aggregate` sums. */
export interface MetricJson {
  name: string
  help: string
  type: 'counter' | 'gauge'
  aggregator: 'sum'
  values: { value: number; labels: Record<string, string> }[]
}

type TreeMetricName = (typeof TREE_PROMETHEUS_METRICS)[number]['name']

/** The JSON of one catalogue metric with these values (series with the labels in the catalogue's order). */
export function treeMetric(name: TreeMetricName, values: MetricJson['values']): MetricJson {
  const spec = TREE_PROMETHEUS_METRICS.find((m) => m.name === name)!
  return { name, help: spec.help, type: spec.type, aggregator: 'sum', values }
}
