import { createServer, type IncomingMessage } from 'node:http'
import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiClient, ApiClientUsageError, getClient } from '../../../src/client/index.js'
import { isSvcError } from '../../../src/errors.js'
import { runWithRequestId } from '../../../src/logging/context.js'

describe('ApiClient', () => {
  const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body })
      res.writeHead(201, { 'content-type': 'application/json', 'x-test': 'yes' }).end(JSON.stringify({ ok: true }))
    })
  })
  let base = ''
  beforeAll(async () => {
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/`
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  it('resolves paths against the API base and returns a small response', async () => {
    const c = new ApiClient({ baseUrl: base })
    const res = await c.get('users', { query: { a: 1, b: ['x', 'y'], skip: undefined } })
    expect(res.status).toBe(201)
    expect(res.ok).toBe(true)
    expect(res.headers.get('x-test')).toBe('yes')
    expect(await res.json()).toEqual({ ok: true })
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/api/users?a=1&b=x&b=y' })
  })

  it('sends JSON bodies with every verb', async () => {
    const c = new ApiClient({ baseUrl: base })
    for (const verb of ['post', 'put', 'patch', 'delete'] as const) {
      await c[verb]('/items', { json: { v: verb } })
      expect(seen.at(-1)).toMatchObject({ method: verb.toUpperCase(), body: JSON.stringify({ v: verb }) })
      expect(seen.at(-1)!.headers['content-type']).toBe('application/json')
    }
    await expect(c.post('/x', { json: {}, body: 'y' })).rejects.toThrow(/either json or body/)
  })

  it('rejects absolute and scheme-relative paths with a TypeError that says why', async () => {
    const c = new ApiClient({ baseUrl: base })
    for (const bad of ['http://evil.example/x', '//evil.example/x', 'https:x', '\\\\evil/x']) {
      const err = await c.get(bad).catch((e: unknown) => e)
      expect(err).toBeInstanceOf(TypeError)
      expect(err).toBeInstanceOf(ApiClientUsageError)
      expect(isSvcError(err)).toBe(true)
      expect((err as Error).message).toMatch(/pass "\/users"/)
    }
  })

  it('withBearer, forSvc and authHeaderFactory; per-call headers win', async () => {
    const c = new ApiClient({ baseUrl: base, authHeaderFactory: () => ({ 'x-tenant': 't1' }) })
    await c.withBearer('tok').get('/me')
    expect(seen.at(-1)!.headers).toMatchObject({ authorization: 'Bearer tok', 'x-tenant': 't1' })
    await c.get('/me')
    expect(seen.at(-1)!.headers.authorization).toBeUndefined()
    await ApiClient.forSvc({ baseUrl: base, bearerToken: 'b' }).get('/me', { headers: { authorization: 'Bearer override' } })
    expect(seen.at(-1)!.headers.authorization).toBe('Bearer override')
    await ApiClient.forSvc({ baseUrl: base, authHeaderFactory: async () => ({ authorization: 'Basic x' }) }).get('/me')
    expect(seen.at(-1)!.headers.authorization).toBe('Basic x')
    expect(() => ApiClient.forSvc({ bearerToken: 'a', authHeaderFactory: () => ({}) })).toThrow(/only one of bearerToken or authHeaderFactory/)
  })

  it('propagates the request id only when asked (getClient: debug mode)', async () => {
    await runWithRequestId('rid-42', () => new ApiClient({ baseUrl: base, propagateRequestId: true }).get('/a'))
    expect(seen.at(-1)!.headers['x-request-id']).toBe('rid-42')
    await runWithRequestId('rid-43', () => getClient({ settings: { debug: false } }, { baseUrl: base }).get('/a'))
    expect(seen.at(-1)!.headers['x-request-id']).toBeUndefined()
    await runWithRequestId('rid-44', () => getClient({ settings: { debug: true } }, { baseUrl: base }).get('/a'))
    expect(seen.at(-1)!.headers['x-request-id']).toBe('rid-44')
  })

  it('takes its base from SVC_INTERNAL_API_BASE and trims the trailing slash', () => {
    const prev = process.env.SVC_INTERNAL_API_BASE
    process.env.SVC_INTERNAL_API_BASE = 'http://127.0.0.1:9999/x/api/'
    try {
      expect(new ApiClient().baseUrl).toBe('http://127.0.0.1:9999/x/api')
    } finally {
      if (prev === undefined) delete process.env.SVC_INTERNAL_API_BASE
      else process.env.SVC_INTERNAL_API_BASE = prev
    }
    expect(() => new ApiClient({ baseUrl: 'not a url' })).toThrow(/not an absolute URL/)
  })
})
