import { describe, expect, it, onTestFinished } from 'vitest'
import { Svc, z } from '../../../src/index.js'

/**
 * Typed routes in-process (`app.api.inject`): zod schemas validate the request (400 in svc's
 * shape), encode the answer (500 when it breaks its schema), leave JSON-schema routes and the
 * app's own error handling alone, and stream typed events. The real tree is
 * test/integration/typed-routes.test.ts.
 */
function newApp(): Svc {
  const app = new Svc({ title: 'typed' })
  onTestFinished(() => app.api.close())
  return app
}

describe('requests', () => {
  it('parses every part through its schema: coerced, defaulted, typed', async () => {
    const app = newApp()
    app.route({
      method: 'POST',
      url: '/items/:id',
      schema: {
        params: z.object({ id: z.coerce.number().int() }),
        querystring: z.object({ dry: z.stringbool().default(false) }),
        headers: z.object({ 'x-tenant': z.string().min(2) }),
        body: z.object({ name: z.string(), tags: z.array(z.string()).default([]) }),
      },
      handler: async (req) => ({ id: req.params.id, dry: req.query.dry, tenant: req.headers['x-tenant'], body: req.body }),
    })
    const res = await app.api.inject({ method: 'POST', url: '/items/7?dry=yes', headers: { 'x-tenant': 'acme' }, payload: { name: 'bolt' } })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ id: 7, dry: true, tenant: 'acme', body: { name: 'bolt', tags: [] } })
  })

  it('answers a bad request with 400 { error, message, request_id, issues } naming each field', async () => {
    const app = newApp()
    app.route({
      method: 'POST',
      url: '/items/:id',
      schema: { params: z.object({ id: z.coerce.number().int() }), body: z.object({ name: z.string(), qty: z.number().positive() }) },
      handler: async () => ({ ok: true }),
    })
    const res = await app.api.inject({ method: 'POST', url: '/items/x', headers: { 'x-request-id': 'ignored-by-inject' }, payload: { name: 'a', qty: 1 } })
    expect(res.statusCode).toBe(400)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    const body = res.json()
    expect(body).toEqual({
      error: 'bad_request',
      message: 'params.id: Invalid input: expected number, received NaN',
      request_id: res.headers['x-request-id'],
      issues: [{ in: 'params', path: ['id'], message: 'Invalid input: expected number, received NaN', code: 'invalid_type' }],
    })
    const nested = await app.api.inject({ method: 'POST', url: '/items/1', payload: { qty: -1 } })
    expect(nested.statusCode).toBe(400)
    expect(nested.json().issues.map((i: { in: string; path: unknown[] }) => [i.in, i.path])).toEqual([
      ['body', ['name']],
      ['body', ['qty']],
    ])
    expect(nested.json().message).toMatch(/^body\.name: .+; body\.qty: /)
  })

  it('keeps JSON-schema routes as they were, also beside zod parts of the same route', async () => {
    const app = newApp()
    app.api.get('/plain', { schema: { querystring: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } }, async (req) => req.query)
    app.api.post(
      '/mixed',
      { schema: { querystring: z.object({ q: z.string() }), body: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } },
      async (req) => ({ q: req.query.q, body: req.body }),
    )
    const plain = await app.api.inject({ url: '/plain' })
    expect(plain.statusCode).toBe(400)
    expect(plain.json()).toEqual({ statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request', message: "querystring must have required property 'n'" })
    expect((await app.api.inject({ method: 'POST', url: '/mixed?q=a', payload: { n: 2 } })).json()).toEqual({ q: 'a', body: { n: 2 } })
    // The JSON-schema part's error reaches Fastify's handler as before.
    expect((await app.api.inject({ method: 'POST', url: '/mixed?q=a', payload: {} })).json().code).toBe('FST_ERR_VALIDATION')
    expect((await app.api.inject({ method: 'POST', url: '/mixed', payload: { n: 1 } })).json().error).toBe('bad_request')
  })

  it("a route's own errorHandler wins; other errors of typed routes reach the app's error handler", async () => {
    const app = newApp()
    app.api.setErrorHandler(async (err: Error, _req, reply) => reply.code(418).send({ mine: err.message }))
    app.route({
      method: 'GET',
      url: '/own',
      schema: { querystring: z.object({ q: z.string() }) },
      errorHandler: (_err, _req, reply) => {
        // send() answers at once; the reply it returns is thenable only for async handlers.
        void reply.code(422).send({ own: true })
      },
      handler: async () => 'ok',
    })
    app.route({
      method: 'GET',
      url: '/throws',
      schema: { querystring: z.object({ q: z.string() }) },
      handler: async () => {
        throw new Error('route failed')
      },
    })
    expect((await app.api.inject({ url: '/own' })).statusCode).toBe(422)
    const thrown = await app.api.inject({ url: '/throws?q=1' })
    expect([thrown.statusCode, thrown.json()]).toEqual([418, { mine: 'route failed' }])
    expect((await app.api.inject({ url: '/throws' })).statusCode).toBe(400)
  })
})

describe('answers', () => {
  it('are encoded by their schema: unknown fields dropped, codecs applied, 2xx and declared errors', async () => {
    const app = newApp()
    app.route({
      method: 'GET',
      url: '/order/:id',
      schema: {
        params: z.object({ id: z.coerce.number() }),
        response: {
          200: z.object({ id: z.number(), at: z.codec(z.iso.datetime(), z.date(), { decode: (s) => new Date(s), encode: (d) => d.toISOString() }) }),
          404: z.object({ error: z.literal('no_such_order') }),
        },
      },
      handler: async (req, reply) =>
        req.params.id === 1 ? ({ id: 1, at: new Date(Date.UTC(2026, 0, 2)), secret: 'x' } as { id: number; at: Date }) : reply.code(404).send({ error: 'no_such_order' }),
    })
    const ok = await app.api.inject({ url: '/order/1' })
    expect([ok.statusCode, ok.json()]).toEqual([200, { id: 1, at: '2026-01-02T00:00:00.000Z' }])
    const missing = await app.api.inject({ url: '/order/2' })
    expect([missing.statusCode, missing.json()]).toEqual([404, { error: 'no_such_order' }])
  })

  it('one that breaks its schema is a 500 with a generic message and no data', async () => {
    const app = newApp()
    app.route({ method: 'GET', url: '/bad', schema: { response: { 200: z.object({ n: z.number() }) } }, handler: async () => ({ n: 'SECRET' }) as never })
    app.route({
      method: 'GET',
      url: '/one-way',
      schema: { response: { 200: z.object({ n: z.string().transform((s) => s.length) }) } },
      handler: async () => ({ n: 3 }),
    })
    for (const url of ['/bad', '/one-way']) {
      const res = await app.api.inject({ url })
      expect(res.statusCode, url).toBe(500)
      expect(res.json()).toEqual({ error: 'internal', message: 'The server hit an unexpected error; the request ID identifies it in the server log.', request_id: res.headers['x-request-id'] })
      expect(res.body).not.toContain('SECRET')
    }
  })

  it('svc\'s own error answers are not reshaped by a 4xx or default answer schema', async () => {
    const app = newApp()
    app.route({
      method: 'GET',
      url: '/strict',
      schema: { querystring: z.object({ q: z.string() }), response: { 200: z.string(), '4xx': z.object({ only: z.literal('this') }), default: z.object({ nor: z.literal('this') }) } },
      handler: async (req) => req.query.q,
    })
    const res = await app.api.inject({ url: '/strict' })
    expect([res.statusCode, res.json().error]).toEqual([400, 'bad_request'])
  })
})

describe('event routes', () => {
  async function events(app: Svc, url: string): Promise<{ status: number; type: string | undefined; body: string }> {
    const res = await app.api.inject({ url })
    return { status: res.statusCode, type: res.headers['content-type'] as string | undefined, body: res.body }
  }

  it('send one data event per value, encoded by the event schema', async () => {
    const app = newApp()
    app.sseRoute({
      method: 'GET',
      url: '/ticks',
      schema: { querystring: z.object({ n: z.coerce.number().int().max(5) }) },
      events: z.object({ i: z.number(), at: z.codec(z.iso.datetime(), z.date(), { decode: (s) => new Date(s), encode: (d) => d.toISOString() }) }),
      async *handler(req) {
        for (let i = 0; i < req.query.n; i++) yield { i, at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)) }
      },
    })
    const res = await events(app, '/ticks?n=2')
    expect(res).toEqual({
      status: 200,
      type: 'text/event-stream; charset=utf-8',
      body: 'data: {"i":0,"at":"2026-01-01T00:00:00.000Z"}\n\ndata: {"i":1,"at":"2026-01-01T00:00:01.000Z"}\n\n',
    })
    expect((await events(app, '/ticks?n=9')).status).toBe(400)
  })

  it('end with an error event when a value breaks the schema or the handler throws mid-stream', async () => {
    const app = newApp()
    app.sseRoute({
      method: 'GET',
      url: '/bad-event',
      events: z.object({ token: z.string() }),
      *handler() {
        yield { token: 'ok' }
        yield { token: 42 as unknown as string }
        yield { token: 'never sent' }
      },
    })
    app.sseRoute({
      method: 'GET',
      url: '/throws',
      events: z.string(),
      async *handler() {
        yield 'first'
        throw new Error('feed went away')
      },
    })
    for (const url of ['/bad-event', '/throws']) {
      const res = await events(app, url)
      const frames = res.body.split('\n\n').filter(Boolean)
      expect(frames, url).toHaveLength(2)
      expect(frames[1]).toMatch(/^event: error\ndata: /)
      expect(JSON.parse(frames[1]!.split('data: ')[1]!)).toEqual({ error: 'internal', message: 'The server hit an unexpected error; the request ID identifies it in the server log.', request_id: expect.any(String) })
    }
  })

  it('may answer without streaming (reply.code(404).send(...))', async () => {
    const app = newApp()
    app.sseRoute({
      method: 'GET',
      url: '/feed/:name',
      schema: { params: z.object({ name: z.string() }) },
      events: z.string(),
      handler: async (req, reply) => (req.params.name === 'known' ? ['a'] : reply.code(404).send({ error: 'not_found', message: 'no such feed' })),
    })
    expect(await events(app, '/feed/nope')).toMatchObject({ status: 404, body: '{"error":"not_found","message":"no such feed"}' })
    expect((await events(app, '/feed/known')).body).toBe('data: "a"\n\n')
  })
})
