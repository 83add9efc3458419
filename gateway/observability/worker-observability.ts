import type { Svc } from '../../src/app.js'
import { childLogger } from '../../src/logging/logger.js'
import type { GatewayRuntime } from '../runtime.js'
import { createGatewayObserver } from './builtin-observer.js'
import { withDiagnosticsChannels } from './tracing-channels.js'
import { createGatewayMetrics } from './metrics.js'
import { createInternalRoutes, type InternalRoutes } from '../internal-routes.js'
import { DebugRing } from './debug-snapshot.js'
import { normalizeForwardAllowlist } from '../../src/settings/forward-headers.js'
import type { GatewayObserver } from './observation.js'

/** Observer, internal routes and metrics for one worker, built from the app's settings. */
export interface WorkerObservability {
  observer: GatewayObserver
  internal: InternalRoutes | null
  metricsJson: (() => Promise<unknown>) | null
}

/**
 * `collectMetrics`: how a scrape is answered. Under the supervisor it asks over IPC for the sum
 * over all workers; in-process (no supervisor) it is this worker's own text.
 */
export async function createObservability(
  app: Svc,
  opts: { collectMetrics: (() => Promise<string>) | null; runtime: GatewayRuntime; workerId?: string },
): Promise<WorkerObservability> {
  const settings = app.settings
  const logger = childLogger(app.logger, 'svc.gateway')
  const metrics = await createGatewayMetrics(settings, logger, { workerId: opts.workerId ?? '0' })
  const debugRing = settings.debug ? new DebugRing() : null
  const { rejected } = normalizeForwardAllowlist(settings.gateway_forward_client_headers)
  if (rejected.length > 0) {
    logger.warn(
      { gateway_forward_rejected_names: rejected },
      `gateway_forward_client_headers lists never-forwarded names (${rejected.join(', ')}); they are ignored`,
    )
  }
  const observer = withDiagnosticsChannels(createGatewayObserver({ settings, logger, metrics, debugRing }))
  const internal = createInternalRoutes({
    settings,
    logger,
    metrics,
    debugRing,
    collectMetrics: opts.collectMetrics ?? (() => metrics?.metricsText() ?? Promise.resolve('')),
    uiUpstream: () => opts.runtime.uiUpstream,
  })
  return { observer, internal, metricsJson: metrics ? () => metrics.getMetricsJSON() : null }
}
