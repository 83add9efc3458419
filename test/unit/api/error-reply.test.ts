import { describe, expect, it, onTestFinished } from 'vitest'
import { Svc } from '../../../src/app.js'
import { GENERIC_SERVER_ERROR_MESSAGE } from '../../../src/api/error-reply.js'
import { SvcTestClient } from '../../../src/testing/test-client.js'

/** API server errors answer `{error, message, request_id}` without their message unless details are on; 4xx keep theirs. */
function appWithRoutes(options: { show_error_details?: boolean } = {}): { app: Svc; client: SvcTestClient } {
  const app = new Svc({ title: 'Errors', log_level: 'fatal', ...options })
  app.api.get('/secret', async () => {
    throw new Error('api secret: password=hunter2')
  })
  app.api.get('/connect', async () => {
    throw new Error('connect failed: postgres://app:hunter2@db/orders, Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig')
  })
  app.api.get('/unavailable', async () => {
    throw Object.assign(new Error('db at 10.0.0.7 is down'), { statusCode: 503 })
  })
  app.api.get('/conflict', async () => {
    throw Object.assign(new Error('order 7 was changed meanwhile'), { statusCode: 409 })
  })
  app.api.get('/mine', async (_req, reply) => {
    reply.code(404)
    throw new Error('no order 7')
  })
  app.api.get('/sent', async (_req, reply) => reply.code(503).send({ status: 'maintenance', until: '12:00' }))
  app.api.post('/validated', { schema: { body: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } }, async () => ({ ok: true }))
  app.api.register(async (scoped) => {
    scoped.addHook('onRequest', async () => {
      throw new Error('hook secret: token=abc')
    })
    scoped.get('/hooked', async () => ({ never: true }))
  })
  const client = new SvcTestClient(app)
  onTestFinished(() => client.close())
  return { app, client }
}

describe('API server errors (5xx) under svc run', () => {
  it('a throw answers 500 {error, message, request_id} with a generic message and the request id', async () => {
    const { client } = appWithRoutes()
    const res = await client.apiGet('/secret', { headers: { 'x-request-id': 'rid-secret-1' } })
    expect(res.status).toBe(500)
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(res.json()).toEqual({ error: 'internal', message: GENERIC_SERVER_ERROR_MESSAGE, request_id: 'rid-secret-1' })
    expect(res.text).not.toContain('hunter2')
    expect(res.headers['x-request-id']).toBe('rid-secret-1')
  })

  it('an error with a 5xx statusCode keeps its status, named after it, and hides its message', async () => {
    const { client } = appWithRoutes()
    const res = await client.apiGet('/unavailable')
    expect(res.status).toBe(503)
    expect(res.json()).toMatchObject({ error: 'service_unavailable', message: GENERIC_SERVER_ERROR_MESSAGE })
    expect(res.text).not.toContain('10.0.0.7')
  })

  it('a throw in a hook of an encapsulated plugin is private too', async () => {
    const { client } = appWithRoutes()
    const res = await client.apiGet('/hooked')
    expect(res.status).toBe(500)
    expect(res.text).not.toContain('token=abc')
  })

  it('an answer the route sends itself with a 5xx status is left as it is', async () => {
    const { client } = appWithRoutes()
    const res = await client.apiGet('/sent')
    expect(res.status).toBe(503)
    expect(res.json()).toEqual({ status: 'maintenance', until: '12:00' })
  })
})

describe('client errors (4xx) keep their messages', () => {
  it('validation, a statusCode < 500 and the route\'s own reply.code(4xx)', async () => {
    const { client } = appWithRoutes()
    const invalid = await client.apiPost('/validated', { json: {} })
    expect(invalid.status).toBe(400)
    expect(invalid.json<{ message: string }>().message).toMatch(/must have required property 'name'/)
    const conflict = await client.apiGet('/conflict')
    expect(conflict.status).toBe(409)
    expect(conflict.json<{ message: string }>().message).toBe('order 7 was changed meanwhile')
    const mine = await client.apiGet('/mine')
    expect(mine.status).toBe(404)
    expect(mine.json<{ message: string }>().message).toBe('no order 7')
  })
})

describe('show_error_details', () => {
  it('on: the 5xx answer carries the message and the stack, credentials redacted as on a page', async () => {
    const { client } = appWithRoutes({ show_error_details: true })
    const res = await client.apiGet('/secret', { headers: { 'x-request-id': 'rid-details' } })
    expect(res.status).toBe(500)
    const body = res.json<{ error: string; message: string; request_id: string; stack: string }>()
    expect(body).toMatchObject({ error: 'internal', message: 'api secret: password=<redacted>', request_id: 'rid-details' })
    expect(body.stack).toMatch(/^Error: api secret: password=<redacted>\n\s+at /)
    const connect = await client.apiGet('/connect')
    expect(connect.json<{ message: string }>().message).toBe('connect failed: postgres://app:<redacted>@db/orders, Bearer <redacted>')
    expect(connect.text).not.toMatch(/hunter2|eyJhbGciOiJIUzI1NiJ9/)
  })
})

describe("the app's own error handler", () => {
  it('answers as it likes, and setting it raises no Fastify override warning', async () => {
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`)
    process.on('warning', onWarning)
    onTestFinished(() => void process.off('warning', onWarning))
    const app = new Svc({ title: 'Own handler', log_level: 'fatal' })
    app.api.setErrorHandler(async (error, _req, reply) => reply.code(500).send({ mine: (error as Error).message }))
    app.api.get('/boom', async () => {
      throw new Error('shown on purpose')
    })
    const client = new SvcTestClient(app)
    onTestFinished(() => client.close())
    const res = await client.apiGet('/boom')
    expect(res.status).toBe(500)
    expect(res.json()).toEqual({ mine: 'shown on purpose' })
    // Node emits process warnings on the next tick.
    await new Promise<void>((resolve) => setImmediate(resolve))
    expect(warnings.filter((w) => w.includes('FSTWRN004'))).toEqual([])
  })
})
