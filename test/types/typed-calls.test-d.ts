import { describe, expectTypeOf, it } from 'vitest'
import { Svc, z, isApiCallError, type ApiErrorBody, type RouteHandle } from '../../src/index.js'
import { ApiClient } from '../../src/client/index.js'
import { SvcTestClient } from '../../src/testing/index.js'

/**
 * Types flow from route declarations to calls: each `@ts-expect-error` is a call that must not
 * compile (tsc fails on a directive with nothing to expect), each `expectTypeOf` a type the
 * route's schemas must give. Checked by `vitest` (typecheck) and `npm run typecheck`.
 */
const app = new Svc({ title: 'types' })
const Order = z.object({ id: z.number(), region: z.string(), at: z.iso.datetime() })

const listOrders = app.route({
  method: 'GET',
  url: '/orders',
  schema: {
    querystring: z.object({ region: z.string(), limit: z.coerce.number().optional() }),
    response: { 200: z.array(Order), 404: z.object({ error: z.literal('no_region'), region: z.string() }) },
  },
  handler: async (req) => {
    expectTypeOf(req.query).toEqualTypeOf<{ region: string; limit?: number | undefined }>()
    return [{ id: req.query.limit ?? 1, region: req.query.region, at: '2026-01-01T00:00:00Z' }]
  },
})

const getOrder = app.route({
  method: 'GET',
  url: '/orders/:id',
  schema: { params: z.object({ id: z.coerce.number() }), response: { 200: Order } },
  handler: async (req) => ({ id: req.params.id, region: 'North', at: '2026-01-01T00:00:00Z' }),
})

const refund = app.route({
  method: 'POST',
  url: '/orders/:id/refund',
  schema: { body: z.object({ reason: z.string(), notify: z.boolean().default(true) }), response: { 201: z.object({ refunded: z.literal(true) }) } },
  handler: async (_req, reply) => reply.code(201).send({ refunded: true }),
})

const untyped = app.route({ method: 'GET', url: '/raw', handler: async () => 'raw' })

const withCodec = app.route({
  method: 'GET',
  url: '/when',
  schema: { response: { 200: z.object({ at: z.codec(z.iso.datetime(), z.date(), { decode: (s) => new Date(s), encode: (d) => d.toISOString() }) }) } },
  handler: async () => ({ at: new Date() }),
})

const chat = app.sseRoute({
  method: 'GET',
  url: '/chat',
  schema: { querystring: z.object({ q: z.string() }) },
  events: z.object({ token: z.string() }),
  async *handler(req) {
    yield { token: req.query.q }
  },
})

const client = new ApiClient()

describe('server side', () => {
  it('the handler is checked against the answer schema', () => {
    app.route({
      method: 'GET',
      url: '/typed-reply',
      schema: { response: { 200: z.object({ n: z.number() }) } },
      // @ts-expect-error the answer schema wants a number
      handler: async () => ({ n: 'one' }),
    })
    app.route({
      method: 'GET',
      url: '/typed-query',
      schema: { querystring: z.object({ q: z.string() }) },
      // @ts-expect-error no such query parameter
      handler: async (req) => req.query.nope,
    })
    app.sseRoute({
      method: 'GET',
      url: '/typed-events',
      events: z.object({ token: z.string() }),
      // @ts-expect-error events must match their schema
      async *handler() {
        yield { token: 1 }
      },
    })
  })

  it('app.api is typed by zod schemas too, and plain routes keep their generics', () => {
    app.api.get('/plain-zod', { schema: { querystring: z.object({ q: z.string() }) } }, async (req) => {
      expectTypeOf(req.query.q).toEqualTypeOf<string>()
      return null
    })
    app.api.get<{ Querystring: { a: string } }>('/plain-generic', async (req) => {
      expectTypeOf(req.query.a).toEqualTypeOf<string>()
      return null
    })
  })

  it('a handle carries the method, URL and schema', () => {
    expectTypeOf(listOrders.method).toEqualTypeOf<'GET'>()
    expectTypeOf(getOrder.url).toEqualTypeOf<'/orders/:id'>()
    expectTypeOf(listOrders).toExtend<RouteHandle>()
  })
})

describe('client.call', () => {
  it('returns the output type of the 2xx answer schema', async () => {
    expectTypeOf(await client.call(listOrders, { query: { region: 'North' } })).toEqualTypeOf<{ id: number; region: string; at: string }[]>()
    expectTypeOf(await client.call(getOrder, { params: { id: 7 } })).toEqualTypeOf<{ id: number; region: string; at: string }>()
    expectTypeOf(await client.call(refund, { params: { id: 1 }, body: { reason: 'late' } })).toEqualTypeOf<{ refunded: true }>()
    expectTypeOf(await client.call(withCodec)).toEqualTypeOf<{ at: Date }>()
    expectTypeOf(await client.call(untyped)).toEqualTypeOf<unknown>()
  })

  it('a coerced query parameter takes its output type; optional parts may be left out', async () => {
    await client.call(listOrders, { query: { region: 'North', limit: 5 } })
    await client.call(untyped)
    await client.call(untyped, { query: { anything: 1 } })
    // @ts-expect-error limit is a number
    await client.call(listOrders, { query: { region: 'North', limit: 'five' } })
  })

  it('a wrong parameter or field does not compile', async () => {
    // @ts-expect-error the route has no query parameter "area"
    await client.call(listOrders, { query: { area: 'North' } })
    // @ts-expect-error "region" is required
    await client.call(listOrders, { query: {} })
    // @ts-expect-error the query is required
    await client.call(listOrders)
    // @ts-expect-error region is a string
    await client.call(listOrders, { query: { region: 5 } })
    // @ts-expect-error the path parameter is "id"
    await client.call(getOrder, { params: { orderId: 7 } })
    // @ts-expect-error the path parameter is required
    await client.call(getOrder, {})
    // @ts-expect-error the body has no field "why"
    await client.call(refund, { params: { id: 1 }, body: { why: 'late' } })
    // @ts-expect-error the body is required
    await client.call(refund, { params: { id: 1 } })
    // @ts-expect-error an event route is read with client.stream()
    await client.call(chat, { query: { q: 'hi' } })
  })

  it('a path parameter without a params schema is named by the URL', async () => {
    await client.call(refund, { params: { id: 'any' }, body: { reason: 'x' } })
    // @ts-expect-error the URL names "id"
    await client.call(refund, { params: { order: 1 }, body: { reason: 'x' } })
  })

  it('errors are typed by the route: svc\'s error shape or a declared error answer', async () => {
    try {
      await client.call(listOrders, { query: { region: 'North' } })
    } catch (err) {
      if (isApiCallError(err, listOrders)) {
        expectTypeOf(err.status).toEqualTypeOf<number>()
        expectTypeOf(err.body).toEqualTypeOf<ApiErrorBody | { error: 'no_region'; region: string }>()
        expectTypeOf(err.code).toEqualTypeOf<'SVC_ERR_CLIENT_HTTP_ERROR' | 'SVC_ERR_CLIENT_BAD_RESPONSE'>()
      }
      if (isApiCallError(err, getOrder)) expectTypeOf(err.body).toEqualTypeOf<ApiErrorBody>()
    }
  })
})

describe('client.stream, SvcTestClient', () => {
  it('events are typed by the event schema', async () => {
    const events = await client.stream(chat, { query: { q: 'hi' } })
    for await (const event of events) expectTypeOf(event).toEqualTypeOf<{ token: string }>()
    expectTypeOf(events.map((e) => e.token)).toEqualTypeOf<AsyncIterable<string>>()
    // @ts-expect-error q is required
    await client.stream(chat, { query: {} })
    // @ts-expect-error a plain route has no events
    await client.stream(listOrders, { query: { region: 'North' } })
  })

  it('SvcTestClient.call has the same types', async () => {
    const tester = new SvcTestClient(app)
    expectTypeOf(await tester.call(getOrder, { params: { id: 1 } })).toEqualTypeOf<{ id: number; region: string; at: string }>()
    // @ts-expect-error the path parameter is "id"
    await tester.call(getOrder, { params: { orderId: 7 } })
  })
})
