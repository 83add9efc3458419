import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import http from 'node:http'
import { startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'

/** FluxLit's dispatch table and the mount boundary, over a real `svc run` tree. */
describe('one port: dispatch, API mount, redirects, health', () => {
  let svc: SvcTree
  beforeAll(async () => {
    svc = await startSvc()
  })
  afterAll(stopAllTrees)

  /** node:http sends headers exactly as given (undici rewrites Connection). */
  const rawGet = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; json: () => any }>((resolve, reject) => {
      http
        // host/port/path options, not a URL string: a URL would resolve dot segments client-side.
        .get({ host: '127.0.0.1', port: svc.port, path, headers, agent: false }, (res) => {
          let text = ''
          res.on('data', (c) => (text += c))
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, json: () => JSON.parse(text) }))
        })
        .on('error', reject)
    })

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await request(svc.url + path, { headers })
    const text = await res.body.text()
    return { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) }
  }

  it('serves the API in-process under /api and echoes the request id', async () => {
    const res = await get('/api/ping', { 'x-request-id': 'abc-123' })
    expect(res.status).toBe(200)
    expect(res.json()).toEqual({ pong: true })
    expect(res.headers['x-request-id']).toBe('abc-123')
  })

  it('replaces an unusable client request id with a UUID', async () => {
    const res = await get('/api/ping', { 'x-request-id': 'bad id with spaces' })
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    const trimmed = await get('/api/ping', { 'x-request-id': '  fixed  ' })
    expect(trimmed.headers['x-request-id']).toBe('fixed')
  })

  it('classifies /api and /api/ as API; /apix and /API go to the ui sidecar', async () => {
    expect((await get('/api')).headers['content-type']).toMatch(/json/)
    const apix = await get('/apix')
    expect(apix.json().url).toBe('/apix')
    const upper = await get('/API/ping')
    expect(upper.json().url).toBe('/API/ping')
  })

  it('healthz and readyz have the exact bodies', async () => {
    expect((await get('/api/healthz')).json()).toEqual({ status: 'ok' })
    const ready = await get('/api/readyz')
    expect(ready.status).toBe(200)
    expect(ready.json()).toEqual({ status: 'ready', ui: 'ok' })
  })

  it('serves OpenAPI with the fixed servers entry and docs under the mount', async () => {
    const doc = (await get('/api/openapi.json')).json()
    expect(doc.servers).toEqual([{ url: '/api' }])
    expect(Object.keys(doc.paths)).toContain('/ping')
    expect(doc.paths['/healthz']).toBeUndefined()
    expect(doc.paths['/readyz']).toBeUndefined()
    expect((await get('/api/docs')).status).toBe(200)
  })

  it('redirects /docs and /openapi.json at the root with 307', async () => {
    for (const [from, to] of [
      ['/docs', '/api/docs'],
      ['/docs/', '/api/docs'],
      ['/openapi.json', '/api/openapi.json'],
    ]) {
      const res = await get(from!)
      expect(res.status).toBe(307)
      expect(res.headers.location).toBe(to)
    }
  })

  it('proxies everything else to the sidecar with the gateway view of X-Forwarded-* and its own request id', async () => {
    const res = await rawGet('/some/page?x=1', {
      'x-request-id': 'rid-1',
      'x-forwarded-for': '6.6.6.6',
      'x-forwarded-host': 'evil.example',
      cookie: 'a=1',
      authorization: 'Bearer t',
      connection: 'keep-alive, x-secret-hop',
      'x-secret-hop': 'drop me',
    })
    expect(res.status).toBe(200)
    const seen = res.json()
    expect(seen.url).toBe('/some/page?x=1')
    expect(seen.headers['x-request-id']).toBe('rid-1')
    expect(seen.headers['x-forwarded-for']).toBe('127.0.0.1')
    expect(seen.headers['x-forwarded-host']).toBe(`127.0.0.1:${svc.port}`)
    expect(seen.headers['x-forwarded-proto']).toBe('http')
    expect(seen.headers['x-forwarded-port']).toBe(String(svc.port))
    expect(seen.headers.host).toBe(`127.0.0.1:${svc.port}`)
    expect(seen.headers.cookie).toBe('a=1')
    expect(seen.headers.authorization).toBe('Bearer t')
    expect(seen.headers['x-secret-hop']).toBeUndefined()
    expect(res.headers['x-request-id']).toBe('rid-1')
  })

  it('keeps multiple Set-Cookie headers and upstream content-encoding', async () => {
    const cookies = await request(svc.url + '/cookies')
    await cookies.body.dump()
    expect(cookies.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/'])
    const gz = await request(svc.url + '/gzip', { headers: { 'accept-encoding': 'gzip' } })
    await gz.body.dump()
    expect(gz.headers['content-encoding']).toBe('gzip')
  })

  it.each(['/api/../secret', '/x/../api/ping', '/api%2Fping', '/x/%2e%2e/api/ping', '/api\\..\\x', '/%zz'])(
    'refuses %s with 400 JSON over a real socket (the mount is an auth boundary)',
    async (path) => {
      const res = await rawGet(path, {})
      expect(res.status).toBe(400)
      expect(res.json()).toMatchObject({ error: 'bad_request', request_id: res.headers['x-request-id'] })
    },
  )

  it('routes encoded paths that stay inside the mount, and resolves dot segments', async () => {
    expect((await rawGet('/api/files/a%2Fb', {})).json()).toEqual({ path: 'a/b' })
    expect((await rawGet('/api/x/../ping', {})).json()).toEqual({ pong: true })
  })

  it('answers the gateway-internal debug path with 404 JSON when debug is off', async () => {
    const res = await get('/__svc/debug')
    expect(res.status).toBe(404)
    expect(res.json()).toMatchObject({ error: 'not_found', request_id: expect.any(String) })
  })
})
