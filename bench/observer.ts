/**
 * Per-request cost of the gateway observer (begin + end) with each feature on, in-process and
 * without network, so it isolates svc's observability work from proxying.
 * Run: npx tsx bench/observer.ts
 */
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { resolveSettings } from '../src/settings/resolve.js'
import type { SettingsInput } from '../src/settings/schema.js'
import { createRootLogger, childLogger } from '../src/logging/logger.js'
import { resetTraceHook, setTraceHook } from '../src/tracing/index.js'
import { createGatewayObserver } from '../gateway/observability/builtin-observer.js'
import { createGatewayMetrics } from '../gateway/observability/metrics.js'
import type { RequestInfo } from '../gateway/observability/observation.js'

const ITERATIONS = 200_000
const devNull = new Writable({ write: (_c, _e, cb) => cb() }) as unknown as pino.DestinationStream
const info: RequestInfo = {
  requestId: '0b7e2c1a-4f0e-4c3e-9a55-2f1d9e7b6c10',
  dispatch: 'ui',
  methodKind: 'GET',
  methodOrType: 'GET',
  path: '/_stcore/static/app.js',
  query: 'v=3&svc_sid=abc',
}

async function measure(label: string, input: SettingsInput, hook: boolean): Promise<void> {
  const settings = resolveSettings([{ source: () => ({ kind: 'options' }), values: input }])
  const logger = childLogger(createRootLogger(settings, devNull), 'svc.gateway')
  const metrics = await createGatewayMetrics(settings, logger)
  const observer = createGatewayObserver({ settings, logger, metrics, debugRing: null })
  const reset = hook ? setTraceHook(() => ({ end() {} })) : null
  for (let i = 0; i < 20_000; i++) observer.begin(info).end(200)
  const start = process.hrtime.bigint()
  for (let i = 0; i < ITERATIONS; i++) {
    const o = observer.begin(info)
    o.upstream('GET', 'http://127.0.0.1:9000/_stcore/static/app.js?v=3').end()
    o.end(200)
  }
  const ns = Number(process.hrtime.bigint() - start) / ITERATIONS
  if (reset) resetTraceHook(reset)
  console.log(`${label.padEnd(34)} ${ns.toFixed(0).padStart(6)} ns/request`)
}

await measure('everything off', {}, false)
await measure('access log (INFO)', { enable_gateway_access_log: true }, false)
await measure('metrics', { enable_gateway_prometheus_metrics: true }, false)
await measure('trace hook (no-op spans)', {}, true)
await measure('access log + metrics + hook', { enable_gateway_access_log: true, enable_gateway_prometheus_metrics: true }, true)
