import type { Svc } from '../src/app.js'
import type { InternalRoutes } from './handler.js'
import { NOOP_OBSERVER, type GatewayObserver } from './observe.js'

/** Observer, internal routes and metrics for one worker, built from the app's settings. */
export interface WorkerObservability {
  observer: GatewayObserver
  internal: InternalRoutes | null
  metricsJson: (() => Promise<unknown>) | null
}

export async function createObservability(
  _app: Svc,
  _opts: { collectMetrics: (() => Promise<string>) | null },
): Promise<WorkerObservability> {
  return { observer: NOOP_OBSERVER, internal: null, metricsJson: null }
}
