import { createRequire } from 'node:module'
import { SvcError } from '../errors.js'

/**
 * prom-client, an optional peer dependency, loaded with `import()` only when metrics are on:
 * by the gateway worker for its own metrics, by the supervisor to sum the workers' answers.
 */
export type PromClient = typeof import('prom-client')

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

/** prom-client, or null when it is not installed; `load` is how (tests swap it). */
export async function loadPromClient(load: () => Promise<unknown> = importPromClient): Promise<PromClient | null> {
  try {
    return (await load()) as PromClient
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return null
    throw err
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
