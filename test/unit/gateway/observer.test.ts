import { afterEach, describe, expect, it } from 'vitest'
import { resolveSettings } from '../../../src/settings/resolve.js'
import type { SettingsInput } from '../../../src/settings/schema.js'
import { GATEWAY_ACCESS_LOG_FIELDS } from '../../../src/logging/fields.js'
import { resetTraceHook, setTraceHook, type TraceAttributes } from '../../../src/tracing/index.js'
import { createGatewayObserver } from '../../../gateway/observability/builtin-observer.js'
import { withDiagnosticsChannels } from '../../../gateway/observability/tracing-channels.js'
import { NOOP_OBSERVATION, NOOP_UPSTREAM, type RequestInfo } from '../../../gateway/observability/observation.js'
import { DebugRing } from '../../../gateway/observability/debug-snapshot.js'
import { createGatewayMetrics, type GatewayMetrics } from '../../../gateway/observability/metrics.js'
import { captureLogger, parseMetrics } from '../../helpers/observability-log-sink.js'

function settings(input: SettingsInput = {}) {
  return resolveSettings([{ source: () => ({ kind: 'options' }), values: input }])
}

const API_GET: RequestInfo = {
  requestId: 'rid-1',
  dispatch: 'api',
  methodKind: 'GET',
  methodOrType: 'GET',
  path: '/api/users',
  query: 'svc_sid=SECRET-1&page=2',
}
const UI_WS: RequestInfo = {
  requestId: 'rid-2',
  dispatch: 'ui',
  methodKind: 'WEBSOCKET',
  methodOrType: 'websocket',
  path: '/_stcore/stream',
  query: '',
}

afterEach(() => resetTraceHook())

describe('createGatewayObserver: off', () => {
  it('returns NOOP_OBSERVATION when no access log at the level, no hook, no metrics, no debug ring', () => {
    const { sink, logger } = captureLogger('svc.gateway', { log_level: 'info' })
    const observer = createGatewayObserver({ settings: settings(), logger, metrics: null, debugRing: null })
    const obs = observer.begin(API_GET)
    expect(obs).toBe(NOOP_OBSERVATION)
    obs.end(200)
    expect(sink.raw).toEqual([])
  })
})

describe('access log', () => {
  it('writes one INFO record at response end with exactly the catalogue fields plus status and duration', () => {
    const { sink, logger } = captureLogger('svc.gateway', { log_level: 'info' })
    const observer = createGatewayObserver({ settings: settings({ enable_gateway_access_log: true }), logger, metrics: null, debugRing: null })
    const obs = observer.begin(API_GET)
    expect(sink.raw).toEqual([])
    obs.end(200)
    obs.end(500)
    const lines = sink.records()
    expect(lines).toHaveLength(1)
    const line = lines[0]!
    expect(line).toMatchObject({
      level: 'info',
      logger: 'svc.gateway',
      message: 'gateway GET /api/users request_id=rid-1',
      request_id: 'rid-1',
      svc_dispatch: 'api',
      http_method_or_type: 'GET',
      path: '/api/users',
      query: 'svc_sid=<redacted>&page=2',
      status: 200,
    })
    expect(line.duration_ms).toBeGreaterThanOrEqual(0)
    expect(Object.keys(line).sort()).toEqual(
      [...GATEWAY_ACCESS_LOG_FIELDS, 'status', 'duration_ms', 'time', 'level', 'logger', 'message'].sort(),
    )
    expect(sink.text()).not.toContain('SECRET-1')
  })

  it('writes the same record at DEBUG when the access log switch is off', () => {
    const { sink, logger } = captureLogger('svc.gateway', { log_level: 'debug' })
    const observer = createGatewayObserver({ settings: settings(), logger, metrics: null, debugRing: null })
    observer.begin(UI_WS).end(101)
    expect(sink.records()).toEqual([
      expect.objectContaining({ level: 'debug', message: 'gateway websocket /_stcore/stream request_id=rid-2', http_method_or_type: 'websocket', svc_dispatch: 'ui', query: '', status: 101 }),
    ])
  })

  it('redacts the url_session_query_param key and names the error of a failed request', () => {
    const { sink, logger } = captureLogger('svc.gateway', { log_level: 'info' })
    const s = settings({ enable_gateway_access_log: true, url_session_query_param: 'sess' })
    const observer = createGatewayObserver({ settings: s, logger, metrics: null, debugRing: null })
    const err = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
    observer.begin({ ...API_GET, dispatch: 'ui', path: '/', query: 'sess=SECRET-2&auth_code=SECRET-3' }).end(502, err)
    const [line] = sink.records()
    expect(line).toMatchObject({ query: 'sess=<redacted>&auth_code=<redacted>', status: 502, error: 'ECONNREFUSED' })
    expect(sink.text()).not.toMatch(/SECRET-[23]/)
  })
})

describe('debug mode', () => {
  it('writes the split line, fills the debug ring, and logs access at INFO', () => {
    const s = settings({ debug: true })
    const { sink, logger } = captureLogger('svc.gateway', { log_level: s.log_level })
    const ring = new DebugRing()
    const observer = createGatewayObserver({ settings: s, logger, metrics: null, debugRing: ring })
    observer.begin({ ...API_GET, dispatchPath: '/api/users', apiPath: '/users' }).end(200)
    observer.begin({ ...UI_WS, uiPath: '/_stcore/stream' }).end(101)
    const lines = sink.records()
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['debug', 'svc debug split path_in=/api/users mount=/api api_path=/users ui_path=-'],
      ['info', 'gateway GET /api/users request_id=rid-1'],
      ['debug', 'svc debug split path_in=/_stcore/stream mount=/api api_path=- ui_path=/_stcore/stream'],
      ['info', 'gateway websocket /_stcore/stream request_id=rid-2'],
    ])
    expect(ring.rows()).toEqual([
      { request_id: 'rid-1', dispatch: 'api', path: '/api/users' },
      { request_id: 'rid-2', dispatch: 'ui', path: '/_stcore/stream' },
    ])
  })
})

describe('trace spans (the hook subscribes to the gateway\'s tracing channels)', () => {
  interface Span { name: string; attributes: TraceAttributes; ended: Array<Error | undefined>; carrier: unknown }

  function record(): Span[] {
    const spans: Span[] = []
    setTraceHook((name, attributes, carrier) => {
      const span: Span = { name, attributes, ended: [], carrier }
      spans.push(span)
      return { end: (e?: Error) => span.ended.push(e) }
    })
    return spans
  }

  /** The observer as a worker composes it (gateway/observability/worker-observability.ts). */
  function gatewayObserver(logLevel: 'warn' | 'info' = 'warn', input: SettingsInput = {}) {
    const { logger } = captureLogger('svc.gateway', { log_level: logLevel })
    return withDiagnosticsChannels(createGatewayObserver({ settings: settings(input), logger, metrics: null, debugRing: null }))
  }

  it('opens svc.gateway.request at begin and ends it with the response, with the error', () => {
    const spans = record()
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
    const obs = gatewayObserver().begin({ ...API_GET, traceparent: tp })
    expect(obs).not.toBe(NOOP_OBSERVATION)
    expect(spans).toEqual([
      {
        name: 'svc.gateway.request',
        attributes: { 'svc.dispatch': 'api', 'http.method_or_type': 'GET', 'url.path': '/api/users', request_id: 'rid-1' },
        ended: [],
        carrier: { traceparent: tp, tracestate: undefined },
      },
    ])
    const err = new Error('upstream reset')
    obs.end(502, err)
    expect(spans[0]!.ended).toEqual([err])
  })

  it('wraps the sidecar hop in svc.gateway.upstream_http; url.full has no query (it may carry a token)', () => {
    const spans = record()
    const obs = gatewayObserver().begin({ ...API_GET, dispatch: 'ui', path: '/page' })
    const up = obs.upstream('GET', 'http://127.0.0.1:9000/page?auth_code=SECRET-4&x=1')
    up.end()
    obs.end(200)
    expect(spans.map((s) => [s.name, s.attributes, s.ended])).toEqual([
      ['svc.gateway.request', expect.any(Object), [undefined]],
      ['svc.gateway.upstream_http', { 'http.request.method': 'GET', 'url.full': 'http://127.0.0.1:9000/page', 'svc.request_id': 'rid-1' }, [undefined]],
    ])
  })

  it('a WebSocket upgrade is one span of type websocket', () => {
    const spans = record()
    gatewayObserver().begin(UI_WS).end(101)
    expect(spans.map((s) => [s.name, s.attributes['http.method_or_type'], s.ended])).toEqual([['svc.gateway.request', 'websocket', [undefined]]])
  })

  it('no hook: no span, and the upstream observation is a no-op; removing the hook unsubscribes', () => {
    const spans = record()
    resetTraceHook()
    const obs = gatewayObserver('info', { enable_gateway_access_log: true }).begin(API_GET)
    expect(obs.upstream('GET', 'http://x/')).toBe(NOOP_UPSTREAM)
    obs.end(200)
    expect(spans).toEqual([])
  })
})

describe('metrics', () => {
  it('counts at begin and observes the duration at end', async () => {
    const s = settings({ enable_gateway_prometheus_metrics: true })
    const { logger } = captureLogger('svc.gateway', { log_level: 'warn' })
    const metrics = (await createGatewayMetrics(s, logger))!
    const observer = createGatewayObserver({ settings: s, logger, metrics, debugRing: null })
    const obs = observer.begin(API_GET)
    observer.begin(UI_WS).end(101)
    let parsed = parseMetrics(await metrics.metricsText())
    expect(parsed.family('svc_gateway_requests_total').metrics.find((m) => m.labels?.dispatch === 'api' && m.labels.method_kind === 'GET')?.value).toBe('1')
    expect(parsed.histogram('svc_gateway_request_duration_seconds', { dispatch: 'api' }).count).toBe('0')
    obs.end(200)
    parsed = parseMetrics(await metrics.metricsText())
    expect(parsed.histogram('svc_gateway_request_duration_seconds', { dispatch: 'api' }).count).toBe('1')
    expect(parsed.histogram('svc_gateway_request_duration_seconds', { dispatch: 'ui' }).count).toBe('1')
  })

  it('a failing histogram observation logs one DEBUG line and the request still completes', () => {
    const { sink, logger } = captureLogger('svc.gateway', { log_level: 'debug' })
    const failing: GatewayMetrics = {
      contentType: 'text/plain',
      countRequest() {},
      observeDuration() {
        throw new RangeError('bad value')
      },
      countUpstreamQueueTimeout() {},
      getMetricsJSON: async () => [],
      metricsText: async () => '',
    }
    const observer = createGatewayObserver({ settings: settings(), logger, metrics: failing, debugRing: null })
    expect(() => observer.begin(API_GET).end(200)).not.toThrow()
    const lines = sink.records()
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['debug', 'gateway_prometheus_observe_failed dispatch=api err=RangeError'],
      ['debug', 'gateway GET /api/users request_id=rid-1'],
    ])
    expect(lines[0]!.exception).toEqual(expect.stringContaining('RangeError: bad value'))
  })
})
