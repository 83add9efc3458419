import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { resolveSettings } from '../../../src/settings/resolve.js'
import type { SettingsInput } from '../../../src/settings/schema.js'
import { runWithRequestId } from '../../../src/logging/context.js'
import { DEBUG_PATH, createInternalRoutes, debugPathConflicts, type InternalRoutes } from '../../../gateway/internal-routes.js'
import { DebugRing } from '../../../gateway/observability/debug-snapshot.js'
import { createGatewayMetrics } from '../../../gateway/observability/metrics.js'
import { captureLogger, parseMetrics } from '../../helpers/observability-log-sink.js'

function settings(input: SettingsInput = {}) {
  return resolveSettings([{ source: () => ({ kind: 'options' }), values: input }])
}

/** A loopback server that answers only through `routes` (404 otherwise), like the gateway would. */
async function serve(routes: InternalRoutes): Promise<string> {
  const server = createServer((req, res) => {
    const kind = routes.match(req.method ?? 'GET', new URL(req.url ?? '/', 'http://x').pathname)
    if (kind === null) {
      res.writeHead(404).end()
      return
    }
    void runWithRequestId('rid-int', () => routes.serve(kind, req, res))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('createInternalRoutes', () => {
  it('is null when neither metrics nor debug are on', () => {
    const { logger } = captureLogger()
    expect(createInternalRoutes({ settings: settings(), logger, metrics: null, debugRing: null, collectMetrics: async () => '' })).toBeNull()
  })

  it('serves the scrape on GET of the metrics path only, with the registry content type', async () => {
    const s = settings({ enable_gateway_prometheus_metrics: true, gateway_prometheus_metrics_path: '/ops/metrics' })
    const { logger } = captureLogger()
    const metrics = (await createGatewayMetrics(s, logger))!
    metrics.countRequest('ui', 'GET')
    const routes = createInternalRoutes({ settings: s, logger, metrics, debugRing: null, collectMetrics: () => metrics.metricsText() })!
    expect(routes.match('POST', '/ops/metrics')).toBeNull()
    expect(routes.match('GET', '/ops/metrics/')).toBeNull()
    expect(routes.match('GET', DEBUG_PATH)).toBeNull()
    const base = await serve(routes)
    const res = await fetch(`${base}/ops/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe(metrics.contentType)
    expect(res.headers.get('x-request-id')).toBe('rid-int')
    const parsed = parseMetrics(await res.text())
    expect(parsed.family('svc_gateway_requests_total').metrics.find((m) => m.labels?.dispatch === 'ui' && m.labels.method_kind === 'GET')?.value).toBe('1')
  })

  it('answers 500 JSON when collecting the metrics fails', async () => {
    const s = settings({ enable_gateway_prometheus_metrics: true })
    const { sink, logger } = captureLogger()
    const metrics = (await createGatewayMetrics(s, logger))!
    const routes = createInternalRoutes({
      settings: s,
      logger,
      metrics,
      debugRing: null,
      collectMetrics: () => Promise.reject(new Error('worker 2 did not answer')),
    })!
    const res = await fetch(`${await serve(routes)}/__svc/metrics`)
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({ error: 'metrics_unavailable', message: 'metrics scrape failed: worker 2 did not answer', request_id: 'rid-int' })
    expect(sink.records()[0]).toMatchObject({ level: 'error', message: 'metrics scrape failed' })
  })

  it('serves the debug snapshot in debug mode, with secrets redacted', async () => {
    const s = settings({ debug: true, jwt_hs256_secret: 'SECRET-HS256', oidc_bff_secret: '', root_path: '/app' })
    const { logger } = captureLogger()
    const ring = new DebugRing()
    ring.push({ request_id: 'a', dispatch: 'api', path: '/app/api/x' })
    const routes = createInternalRoutes({ settings: s, logger, metrics: null, debugRing: ring, collectMetrics: async () => '', uiUpstream: () => 'http://127.0.0.1:9999' })!
    expect(routes.match('GET', DEBUG_PATH)).toBe('debug')
    expect(routes.match('HEAD', DEBUG_PATH)).toBeNull()
    const res = await fetch(`${await serve(routes)}${DEBUG_PATH}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
    const text = await res.text()
    expect(text).not.toContain('SECRET-HS256')
    const body = JSON.parse(text)
    expect(body).toMatchObject({
      svc_debug: true,
      gateway: { api_mount_path: '/api', root_path: '/app' },
      ui_upstream: 'set',
      recent_dispatches: [{ request_id: 'a', dispatch: 'api', path: '/app/api/x' }],
    })
    expect(body.settings.jwt_hs256_secret).toBe('[REDACTED]')
    expect(body.settings.oidc_bff_secret).toBe('')
    expect(body.settings.debug).toBe(true)
  })

  it('does not serve the debug snapshot when debug is off', () => {
    const s = settings({ enable_gateway_prometheus_metrics: true })
    const { logger } = captureLogger()
    const routes = createInternalRoutes({ settings: s, logger, metrics: { contentType: 't' } as never, debugRing: new DebugRing(), collectMetrics: async () => '' })!
    expect(routes.match('GET', DEBUG_PATH)).toBeNull()
  })

  it('turns the debug snapshot off with one WARNING when api_mount_path covers its path', () => {
    for (const mount of ['/__svc', '/__svc/debug']) {
      const { sink, logger } = captureLogger()
      const routes = createInternalRoutes({ settings: settings({ debug: true, api_mount_path: mount }), logger, metrics: null, debugRing: new DebugRing(), collectMetrics: async () => '' })
      expect(routes).toBeNull()
      expect(sink.records().map((r) => r.level)).toEqual(['warn'])
    }
    expect(debugPathConflicts('/__sv')).toBe(false)
    expect(debugPathConflicts('/api')).toBe(false)
  })
})
