import { createServer } from 'node:http'
import { once } from 'node:events'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Svc, z } from '../../../src/index.js'
import { ApiCallError, ApiClient, ApiClientUsageError, isApiCallError } from '../../../src/client/index.js'
import { isSvcError } from '../../../src/errors.js'

/**
 * Typed calls against a real API on a loopback port: the request a handle and an input make, the
 * answer parsed by the route's schemas, and every way it can fail as a typed `ApiCallError`.
 */
// Cancelling a fetch body makes undici open a spare connection that never sends a request, and
// which close() would wait for.
const app = new Svc({ title: 'typed client', fastify: { forceCloseConnections: true } })
const Order = z.object({ id: z.number(), region: z.string() })
const seen: string[] = []
app.api.addHook('onRequest', async (req) => {
  seen.push(`${req.method} ${req.url} ${req.headers['x-tenant'] ?? ''}`)
})

const listOrders = app.route({
  method: 'GET',
  url: '/orders',
  schema: { querystring: z.object({ region: z.string(), tag: z.array(z.string()).optional() }), response: { 200: z.array(Order) } },
  handler: async (req) => [{ id: 1, region: req.query.region }],
})
const fileByPath = app.route({
  method: 'GET',
  url: '/files/:folder/:name',
  schema: { response: { 200: z.object({ folder: z.string(), name: z.string() }) } },
  handler: async (req) => req.params as { folder: string; name: string },
})
const create = app.route({
  method: 'POST',
  url: '/orders',
  schema: {
    headers: z.object({ 'x-tenant': z.string() }),
    body: z.object({ region: z.string() }),
    response: { 201: Order, 409: z.object({ error: z.literal('exists'), id: z.number() }) },
  },
  handler: async (req, reply) => (req.body.region === 'North' ? reply.code(409).send({ error: 'exists', id: 1 }) : reply.code(201).send({ id: 2, region: req.body.region })),
})
const remove = app.route({ method: 'DELETE', url: '/orders/:id', handler: async (_req, reply) => reply.code(204).send() })
const text = app.route({ method: 'GET', url: '/text', handler: async () => 'plain words' })
const feed = app.sseRoute({
  method: 'GET',
  url: '/feed',
  schema: { querystring: z.object({ n: z.coerce.number() }) },
  events: z.object({ i: z.number() }),
  async *handler(req) {
    for (let i = 0; i < req.query.n; i++) yield { i }
  },
})
const failingFeed = app.sseRoute({
  method: 'GET',
  url: '/failing-feed',
  events: z.object({ i: z.number() }),
  async *handler() {
    yield { i: 0 }
    throw new Error('gone')
  },
})

/** Resolves when the endless route's generator is closed (its client went away). */
let endlessStopped: Promise<void> = new Promise(() => {})
const endless = app.sseRoute({
  method: 'GET',
  url: '/endless',
  events: z.number(),
  handler() {
    let stopped!: () => void
    endlessStopped = new Promise<void>((r) => (stopped = r))
    return (async function* () {
      try {
        for (let i = 0; ; i++) {
          yield i
          await new Promise((r) => setTimeout(r, 5))
        }
      } finally {
        stopped()
      }
    })()
  },
})

/** Another server whose answers the routes' schemas do not describe: what a page meets when its build and the API's differ. */
const skewed = createServer((req, res) => {
  if (req.method === 'GET' && req.url!.startsWith('/api/orders')) res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'skew-1' }).end('[{"id":"one","region":7}]')
  else if (req.url === '/api/text') res.writeHead(200, { 'content-type': 'application/json' }).end('{not json')
  else if (req.method === 'DELETE') res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>')
  else if (req.url!.startsWith('/api/feed')) res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {"i":0}\n\ndata: {"i":"x"}\n\n')
  else res.writeHead(404).end()
})

let client: ApiClient
let skewedClient: ApiClient
beforeAll(async () => {
  client = new ApiClient({ baseUrl: await app.api.listen({ host: '127.0.0.1', port: 0 }) })
  skewed.listen(0, '127.0.0.1')
  await once(skewed, 'listening')
  skewedClient = new ApiClient({ baseUrl: `http://127.0.0.1:${(skewed.address() as { port: number }).port}/api` })
})
afterAll(async () => {
  await app.api.close()
  await new Promise<void>((r) => skewed.close(() => r()))
})

describe('client.call', () => {
  it('builds the request from the handle: method, path parameters (encoded), query, headers, JSON body', async () => {
    expect(await client.call(listOrders, { query: { region: 'North', tag: ['a', 'b'] } })).toEqual([{ id: 1, region: 'North' }])
    expect(seen.at(-1)).toBe('GET /orders?region=North&tag=a&tag=b ')
    expect(await client.call(fileByPath, { params: { folder: 'a b', name: 'x/y.txt' } })).toEqual({ folder: 'a b', name: 'x/y.txt' })
    expect(seen.at(-1)).toBe('GET /files/a%20b/x%2Fy.txt ')
    expect(await client.call(create, { headers: { 'x-tenant': 'acme' }, body: { region: 'South' } })).toEqual({ id: 2, region: 'South' })
    expect(seen.at(-1)).toBe('POST /orders acme')
    expect(await client.call(remove, { params: { id: 3 } })).toBeUndefined()
    expect(await client.call(text)).toBe('plain words')
  })

  it('refuses a missing path parameter and an event route before sending anything', async () => {
    const before = seen.length
    const missing = await client.call(fileByPath, { params: { folder: 'a' } as never }).catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(ApiClientUsageError)
    expect((missing as Error).message).toContain('"name"')
    await expect(client.call(feed as never, { query: { n: 1 } } as never)).rejects.toThrow(/read it with client.stream\(\)/)
    expect(seen.length).toBe(before)
  })

  it("an error status is an ApiCallError with svc's error shape, the status and the request ID", async () => {
    const err = await client.call(listOrders, { query: {} as never }).catch((e: unknown) => e)
    expect(isApiCallError(err, listOrders)).toBe(true)
    expect(isSvcError(err)).toBe(true)
    const e = err as ApiCallError<typeof listOrders>
    expect(e).toBeInstanceOf(ApiCallError)
    expect([e.code, e.status, e.route, e.body.error]).toEqual(['SVC_ERR_CLIENT_HTTP_ERROR', 400, 'GET /orders', 'bad_request'])
    expect(e.issues).toEqual([expect.objectContaining({ in: 'querystring', path: ['region'] })])
    expect(e.requestId).toBe((e.body as { request_id: string }).request_id)
    expect(e.message).toMatch(/^GET \/orders answered 400: querystring\.region: /)
  })

  it('a declared error answer is parsed by its schema', async () => {
    const err = (await client.call(create, { headers: { 'x-tenant': 'acme' }, body: { region: 'North' } }).catch((e: unknown) => e)) as ApiCallError<typeof create>
    expect([err.code, err.status, err.body]).toEqual(['SVC_ERR_CLIENT_HTTP_ERROR', 409, { error: 'exists', id: 1 }])
  })

  it('an answer that is not svc JSON still becomes a typed error body', async () => {
    const err = (await skewedClient.call(remove, { params: { id: 1 } }).catch((e: unknown) => e)) as ApiCallError
    expect([err.code, err.status, err.body]).toEqual(['SVC_ERR_CLIENT_HTTP_ERROR', 502, { error: 'http_502', message: '<h1>Bad Gateway</h1>' }])
  })

  it('an answer its schema refuses, or JSON that is not JSON, is SVC_ERR_CLIENT_BAD_RESPONSE', async () => {
    const err = (await skewedClient.call(listOrders, { query: { region: 'North' } }).catch((e: unknown) => e)) as ApiCallError
    expect([err.code, err.status, err.requestId, err.body.error]).toEqual(['SVC_ERR_CLIENT_BAD_RESPONSE', 200, 'skew-1', 'client_bad_response'])
    expect(err.issues.map((i) => `${i.in}:${i.path.join('.')}`)).toEqual(['response:0.id', 'response:0.region'])
    expect(err.message).toContain('GET /orders answered 200 a body its schema refuses: response[0].id')
    const notJson = (await skewedClient.call(text).catch((e: unknown) => e)) as ApiCallError
    expect([notJson.code, notJson.issues]).toEqual(['SVC_ERR_CLIENT_BAD_RESPONSE', []])
    expect(notJson.message).toContain('not JSON')
  })
})

describe('client.stream', () => {
  it('yields each event parsed by the event schema', async () => {
    const events = await client.stream(feed, { query: { n: 3 } })
    const got: number[] = []
    for await (const e of events) got.push(e.i)
    expect(got).toEqual([0, 1, 2])
    expect(seen.at(-1)).toBe('GET /feed?n=3 ')
    const mapped: string[] = []
    for await (const s of (await client.stream(feed, { query: { n: 2 } })).map((e) => `#${e.i}`)) mapped.push(s)
    expect(mapped).toEqual(['#0', '#1'])
  })

  it('an error status throws before any event; an error event or a refused event throws where it arrives', async () => {
    await expect(client.stream(feed, { query: { n: 'x' as unknown as number } })).rejects.toMatchObject({ code: 'SVC_ERR_CLIENT_HTTP_ERROR', status: 400 })
    const got: number[] = []
    const failing = await client.stream(failingFeed)
    const err = await (async () => {
      for await (const e of failing) got.push(e.i)
    })().catch((e: unknown) => e)
    expect(got).toEqual([0])
    expect(err).toMatchObject({ code: 'SVC_ERR_CLIENT_HTTP_ERROR', status: 500, body: { error: 'internal', message: 'The server hit an unexpected error; the request ID identifies it in the server log.' } })
    const refused = await skewedClient.stream(feed, { query: { n: 2 } })
    const seenEvents: number[] = []
    const bad = await (async () => {
      for await (const e of refused) seenEvents.push(e.i)
    })().catch((e: unknown) => e)
    expect(seenEvents).toEqual([0])
    expect(bad).toMatchObject({ code: 'SVC_ERR_CLIENT_BAD_RESPONSE', issues: [{ in: 'event', path: ['i'] }] })
  })

  it('leaving the loop early closes the connection: the route stops producing', async () => {
    const events = await client.stream(endless)
    const got: number[] = []
    for await (const i of events) {
      got.push(i)
      if (i === 2) break
    }
    expect(got).toEqual([0, 1, 2])
    await endlessStopped
  })
})
