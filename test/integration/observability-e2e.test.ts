import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseMetrics } from '../helpers/observability-log-sink.js'
import { SvcTree } from '../helpers/observability-tree.js'

/**
 * A real `svc run` tree with two gateway workers and access log, API request log and metrics
 * (plus Node metrics) switched on; logs of every process are read as JSON.
 */
const SECRETS = ['SECRET-E2E-SID', 'SECRET-E2E-CODE', 'SECRET-E2E-TOKEN', 'SECRET-E2E-COOKIE']

let tree: SvcTree

beforeAll(async () => {
  tree = new SvcTree(['--workers', '2'], {
    SVC_ENABLE_GATEWAY_PROMETHEUS_METRICS: '1',
    SVC_ENABLE_NODE_METRICS: '1',
    SVC_ENABLE_GATEWAY_ACCESS_LOG: '1',
    SVC_ENABLE_REQUEST_LOGGING: '1',
  })
  await tree.started()
}, 40_000)

afterAll(() => tree?.stop(), 20_000)

describe('observability over a real svc run tree with two workers', () => {
  it('joins gateway, sidecar and API lines of one request by the same request_id', async () => {
    const id = 'obs-e2e-join-1'
    const res = await fetch(`${tree.base}/call-api`, { headers: { 'x-request-id': id } })
    expect(res.headers.get('x-request-id')).toBe(id)
    expect(await res.text()).toContain('hello')
    await tree.waitFor('two gateway access lines', () => (tree.linesFor(id, 'svc.gateway').length === 2 ? true : undefined))
    const gateway = tree.linesFor(id, 'svc.gateway')
    expect(gateway.map((l) => [l.svc_dispatch, l.path, l.status]).sort()).toEqual([
      ['api', '/api/hello', 200],
      ['ui', '/call-api', 200],
    ])
    expect(tree.linesFor(id, 'svc.ui').map((l) => l.message)).toEqual(['sidecar request'])
    expect(tree.linesFor(id, 'svc.api').map((l) => l.message)).toEqual(['hello handler', 'GET /hello -> 200'])
  })

  it('one scrape returns the sum over both workers', async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `obs-e2e-count-${i}`)
    const before = parseMetrics(await (await fetch(`${tree.base}/__svc/metrics`)).text())
    const count = (p: typeof before) =>
      Number(p.family('svc_gateway_requests_total').metrics.find((m) => m.labels?.dispatch === 'api' && m.labels.method_kind === 'GET')?.value ?? 0)
    await Promise.all(ids.map((id) => fetch(`${tree.base}/api/hello`, { headers: { 'x-request-id': id, connection: 'close' } }).then((r) => r.text())))
    await tree.waitFor('access lines of every request', () => (ids.every((id) => tree.linesFor(id, 'svc.gateway').length === 1) ? true : undefined))
    const res = await fetch(`${tree.base}/__svc/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
    const after = parseMetrics(await res.text())
    expect(count(after) - count(before)).toBe(ids.length)
    const histogram = after.histogram('svc_gateway_request_duration_seconds', { dispatch: 'api' })
    expect(Number(histogram.count)).toBe(count(after))
    const workers = new Set(after.family('nodejs_heap_size_used_bytes').metrics.map((m) => m.labels?.worker))
    expect(workers.size).toBe(2)
  })

  it('no secret from the query, Authorization or Cookie reaches any line of any process', async () => {
    const id = 'obs-e2e-secret'
    await fetch(`${tree.base}/api/hello?svc_sid=${SECRETS[0]}&auth_code=${SECRETS[1]}`, {
      headers: { 'x-request-id': id, authorization: `Bearer ${SECRETS[2]}`, cookie: `svc_sid=${SECRETS[3]}` },
    })
    await fetch(`${tree.base}/missing?auth_code=${SECRETS[1]}`, { headers: { 'x-request-id': `${id}-ui`, authorization: `Bearer ${SECRETS[2]}` } })
    await tree.waitFor('access lines', () =>
      tree.linesFor(id, 'svc.gateway').length === 1 && tree.linesFor(`${id}-ui`, 'svc.gateway').length === 1 ? true : undefined,
    )
    expect(tree.linesFor(id, 'svc.gateway')[0]!.query).toBe('svc_sid=<redacted>&auth_code=<redacted>')
    for (const s of SECRETS) expect(tree.output).not.toContain(s)
  })

  it('answers 404 JSON for /__svc/debug when debug mode is off', async () => {
    const res = await fetch(`${tree.base}/__svc/debug`)
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ error: 'not_found' })
  })
})
