import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { createGatewayHandler, type GatewayParts } from '../../../gateway/handler.js'
import { NOOP_OBSERVER } from '../../../gateway/observability/observation.js'
import { resolveSettings } from '../../../src/settings/resolve.js'
import { captureLogger } from '../../helpers/observability-log-sink.js'

/** Issue #27.1: a throw anywhere on the gateway's request path answers 500 JSON; the worker goes on. */
describe('gateway request path', () => {
  it('a handler that throws answers 500 JSON with the request ID and a generic message; the next request is served', async () => {
    const { sink, logger } = captureLogger()
    let calls = 0
    const parts = {
      settings: resolveSettings([{ source: () => ({ kind: 'options' }), values: {} }]),
      logger,
      api: (_req, res) => {
        if (++calls === 1) throw new Error('secret detail of a bug')
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
      },
      http: {} as GatewayParts['http'],
      ws: {} as GatewayParts['ws'],
      observer: NOOP_OBSERVER,
      internal: null,
      staticFiles: null,
      decorate: null,
      isDraining: () => false,
    } satisfies GatewayParts
    const { handleRequest } = createGatewayHandler(parts)
    const server = createServer(handleRequest)
    server.listen(0, '127.0.0.1')
    await new Promise((r) => server.once('listening', r))
    onTestFinished(() => new Promise<void>((r) => server.close(() => r())))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

    const failed = await fetch(`${base}/api/x`, { headers: { 'x-request-id': 'gw-fail-1' } })
    expect(failed.status).toBe(500)
    expect(failed.headers.get('x-request-id')).toBe('gw-fail-1')
    const body = (await failed.json()) as Record<string, unknown>
    expect(body).toEqual({ error: 'internal', message: 'the gateway failed on this request; its log has the details under this request ID', request_id: 'gw-fail-1' })
    expect(JSON.stringify(body)).not.toContain('secret detail')
    const logged = sink.records().filter((r) => r.message === 'gateway request failed')
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatchObject({ level: 'error', request_id: 'gw-fail-1' })
    expect(JSON.stringify(logged[0])).toContain('secret detail of a bug')

    const next = await fetch(`${base}/api/x`)
    expect(next.status).toBe(200)
    expect(await next.text()).toBe('ok')
  })
})
