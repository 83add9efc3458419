import { describe, expect, it, onTestFinished } from 'vitest'
import { resolveSettings } from '../../../src/settings/resolve.js'
import type { SettingsInput } from '../../../src/settings/schema.js'
import {
  GATEWAY_DURATION_BUCKETS,
  GATEWAY_PROMETHEUS_METRICS,
  aggregateWorkerMetrics,
  createGatewayMetrics,
  isPromClientAvailable,
  type GatewayMetrics,
} from '../../../gateway/observability/metrics.js'
import { captureLogger, parseMetrics } from '../../helpers/observability-log-sink.js'

function settings(input: SettingsInput = {}) {
  return resolveSettings([{ source: () => ({ kind: 'options' }), values: { enable_gateway_prometheus_metrics: true, ...input } }])
}

async function metricsOrFail(input: SettingsInput = {}, workerId?: string): Promise<GatewayMetrics> {
  const { logger } = captureLogger()
  const m = await createGatewayMetrics(settings(input), logger, workerId === undefined ? {} : { workerId })
  if (!m) throw new Error('expected metrics')
  return m
}

describe('GATEWAY_PROMETHEUS_METRICS catalogue', () => {
  it('lists the two stable metrics and the queue-timeout counter with type, labels, buckets and help', () => {
    expect(GATEWAY_PROMETHEUS_METRICS.map((m) => [m.name, m.type, m.labels, m.stability])).toEqual([
      ['svc_gateway_requests_total', 'counter', ['dispatch', 'method_kind'], 'stable'],
      ['svc_gateway_request_duration_seconds', 'histogram', ['dispatch'], 'stable'],
      ['svc_gateway_upstream_queue_timeouts_total', 'counter', [], 'experimental'],
    ])
    expect(GATEWAY_PROMETHEUS_METRICS[1].buckets).toEqual([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
    for (const m of GATEWAY_PROMETHEUS_METRICS) expect(m.help.length).toBeGreaterThan(10)
  })
})

describe('createGatewayMetrics', () => {
  it('returns null without a warning when metrics are off', async () => {
    const { sink, logger } = captureLogger()
    expect(await createGatewayMetrics(settings({ enable_gateway_prometheus_metrics: false }), logger)).toBeNull()
    expect(sink.raw).toEqual([])
  })

  it('returns null with one WARNING when the path lies under api_mount_path', async () => {
    const { sink, logger } = captureLogger()
    const s = settings({ gateway_prometheus_metrics_path: '/api/metrics' })
    expect(await createGatewayMetrics(s, logger)).toBeNull()
    const lines = sink.records()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ level: 'warn', logger: 'svc.gateway', metrics_path: '/api/metrics' })
    expect(lines[0]!.message).toMatch(/must not start with api_mount_path.*metrics disabled/)
  })

  it('returns null with one WARNING when prom-client cannot be loaded', async () => {
    const { sink, logger } = captureLogger()
    const missing = () => Promise.reject(Object.assign(new Error("Cannot find package 'prom-client'"), { code: 'ERR_MODULE_NOT_FOUND' }))
    expect(await createGatewayMetrics(settings(), logger, { importPromClient: missing })).toBeNull()
    expect(sink.records().map((r) => [r.level, r.message])).toEqual([
      ['warn', 'enable_gateway_prometheus_metrics is on but prom-client is not installed (npm install prom-client); metrics disabled'],
    ])
  })

  it('does not hide other failures of loading prom-client', async () => {
    const { logger } = captureLogger()
    const broken = () => Promise.reject(new SyntaxError('bad build'))
    await expect(createGatewayMetrics(settings(), logger, { importPromClient: broken })).rejects.toThrow('bad build')
  })

  it('reports prom-client as available (it is a dev dependency here)', () => {
    expect(isPromClientAvailable()).toBe(true)
  })
})

describe('metrics text', () => {
  it('counts requests by dispatch and method_kind and observes durations into the fixed buckets', async () => {
    const m = await metricsOrFail()
    m.countRequest('api', 'GET')
    m.countRequest('api', 'GET')
    m.countRequest('ui', 'WEBSOCKET')
    m.countRequest('ui', 'PROPFIND')
    m.observeDuration('api', 0.003)
    m.observeDuration('api', 0.2)
    m.observeDuration('ui', 30)
    expect(m.contentType).toMatch(/^text\/plain; version=0\.0\.4/)
    const parsed = parseMetrics(await m.metricsText())

    const requests = parsed.family('svc_gateway_requests_total')
    expect(requests.type).toBe('COUNTER')
    const value = (dispatch: string, kind: string) =>
      requests.metrics.find((s) => s.labels?.dispatch === dispatch && s.labels?.method_kind === kind)?.value
    expect(value('api', 'GET')).toBe('2')
    expect(value('ui', 'WEBSOCKET')).toBe('1')
    expect(value('ui', 'PROPFIND')).toBe('1')
    expect(value('api', 'POST')).toBe('0')
    for (const s of requests.metrics) expect(Object.keys(s.labels ?? {}).sort()).toEqual(['dispatch', 'method_kind'])

    expect(parsed.family('svc_gateway_request_duration_seconds').type).toBe('HISTOGRAM')
    const api = parsed.histogram('svc_gateway_request_duration_seconds', { dispatch: 'api' })
    expect(Object.keys(api.buckets).filter((le) => le !== '+Inf').map(Number).sort((a, b) => a - b)).toEqual([...GATEWAY_DURATION_BUCKETS])
    expect(api.buckets['0.001']).toBe('0')
    expect(api.buckets['0.005']).toBe('1')
    expect(api.buckets['0.25']).toBe('2')
    expect(api.buckets['+Inf']).toBe('2')
    expect(api.count).toBe('2')
    expect(Number(api.sum)).toBeCloseTo(0.203)
    const ui = parsed.histogram('svc_gateway_request_duration_seconds', { dispatch: 'ui' })
    expect(ui.buckets['10']).toBe('0')
    expect(ui.buckets['+Inf']).toBe('1')
    expect(ui.count).toBe('1')
  })

  it('refuses a non-finite duration without changing the histogram', async () => {
    const m = await metricsOrFail()
    m.observeDuration('ui', 0.01)
    expect(() => m.observeDuration('ui', Number.NaN)).toThrow(expect.objectContaining({ code: 'SVC_ERR_GATEWAY_INTERNAL', message: expect.stringMatching(/duration is not a finite number/) }))
    expect(() => m.observeDuration('ui', Number.POSITIVE_INFINITY)).toThrow(/duration is not a finite number/)
    const ui = parseMetrics(await m.metricsText()).histogram('svc_gateway_request_duration_seconds', { dispatch: 'ui' })
    expect(ui.count).toBe('1')
    expect(Number(ui.sum)).toBeCloseTo(0.01)
    expect(ui.buckets['0.01']).toBe('1')
    expect(ui.buckets['0.005']).toBe('0')
  })

  it('adds Node process metrics with a worker label only when enable_node_metrics is on', async () => {
    const plain = parseMetrics(await (await metricsOrFail()).metricsText())
    expect(plain.families.map((f) => f.name).sort()).toEqual([
      'svc_gateway_request_duration_seconds',
      'svc_gateway_requests_total',
      'svc_gateway_upstream_queue_timeouts_total',
    ])
    const withNode = parseMetrics(await (await metricsOrFail({ enable_node_metrics: true }, '3')).metricsText())
    const heap = withNode.family('nodejs_heap_size_used_bytes')
    expect(heap.metrics[0]!.labels).toEqual({ worker: '3' })
  })
})

describe('app metrics', () => {
  it('includes what the app registered on prom-client\'s default registry, in text and JSON', async () => {
    const prom = await import('prom-client')
    const orders = new prom.Counter({ name: 'app_orders_total', help: 'Orders placed' })
    onTestFinished(() => prom.register.removeSingleMetric('app_orders_total'))
    orders.inc(3)
    const m = await metricsOrFail()
    expect(parseMetrics(await m.metricsText()).family('app_orders_total').metrics[0]!.value).toBe('3')
    const summed = parseMetrics(await aggregateWorkerMetrics([await m.getMetricsJSON(), await m.getMetricsJSON()]))
    expect(summed.family('app_orders_total').metrics[0]!.value).toBe('6')
  })
})

describe('aggregateWorkerMetrics', () => {
  it('sums two workers: counters and histogram buckets, counts and sums', async () => {
    const a = await metricsOrFail()
    const b = await metricsOrFail()
    a.countRequest('api', 'GET')
    a.observeDuration('api', 0.02)
    b.countRequest('api', 'GET')
    b.countRequest('ui', 'GET')
    b.observeDuration('api', 0.7)
    b.observeDuration('ui', 0.002)
    const text = await aggregateWorkerMetrics([await a.getMetricsJSON(), await b.getMetricsJSON(), 'not-a-worker'])
    const parsed = parseMetrics(text)
    const requests = parsed.family('svc_gateway_requests_total').metrics
    expect(parsed.family('svc_gateway_upstream_queue_timeouts_total').metrics[0]!.value).toBe('0')
    expect(requests.find((s) => s.labels?.dispatch === 'api' && s.labels?.method_kind === 'GET')?.value).toBe('2')
    expect(requests.find((s) => s.labels?.dispatch === 'ui' && s.labels?.method_kind === 'GET')?.value).toBe('1')
    const api = parsed.histogram('svc_gateway_request_duration_seconds', { dispatch: 'api' })
    expect(api.count).toBe('2')
    expect(Number(api.sum)).toBeCloseTo(0.72)
    expect(api.buckets['0.025']).toBe('1')
    expect(api.buckets['1']).toBe('2')
    expect(parsed.histogram('svc_gateway_request_duration_seconds', { dispatch: 'ui' }).count).toBe('1')
  })
})
