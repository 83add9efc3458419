import Fastify, { type FastifyServerOptions } from 'fastify'
import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { z } from '../../../src/internal/zod.js'
import { markCompilersDefault, withLazySchemaCompilers } from '../../../src/api/lazy-schema-compilers.js'

type ValidatorFactory = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']>

/**
 * svc hands Fastify builders that load its default schema compilers on first use
 * (src/api/lazy-schema-compilers.ts); routes with schemas must behave exactly as with
 * Fastify's eager defaults. test/integration/lean-processes.test.ts checks they stay unloaded
 * for an app without schemas.
 */
describe('schema compilers loaded on first use', () => {
  it('validates a header schema written with capitals (header keys are lower-cased, as by the default compiler)', async () => {
    const app = new Svc({ title: 'Schemas' })
    app.api.get('/h', { schema: { headers: { type: 'object', properties: { 'X-Token': { type: 'string', minLength: 3 } }, required: ['X-Token'] } } }, async (req) => ({
      token: req.headers['x-token'],
    }))
    const ok = await app.api.inject({ url: '/h', headers: { 'x-token': 'abc' } })
    expect(ok.statusCode).toBe(200)
    expect(ok.json()).toEqual({ token: 'abc' })
    const missing = await app.api.inject({ url: '/h' })
    expect(missing.statusCode).toBe(400)
    expect(missing.json().message).toContain("must have required property 'x-token'")
    await app.api.close()
  })

  it('validates bodies and query strings, coerces types, and serializes by the response schema', async () => {
    const app = new Svc({ title: 'Schemas' })
    app.api.post(
      '/items',
      {
        schema: {
          querystring: { type: 'object', properties: { n: { type: 'integer' } } },
          body: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          response: { 200: { type: 'object', properties: { name: { type: 'string' }, n: { type: 'integer' } } } },
        },
      },
      async (req) => ({ ...(req.body as object), n: (req.query as { n: number }).n, secret: 'dropped by the response schema' }),
    )
    const ok = await app.api.inject({ method: 'POST', url: '/items?n=7', payload: { name: 'a' } })
    expect(ok.statusCode).toBe(200)
    expect(ok.json()).toEqual({ name: 'a', n: 7 })
    const bad = await app.api.inject({ method: 'POST', url: '/items?n=x', payload: { name: 'a' } })
    expect(bad.statusCode).toBe(400)
    expect((await app.api.inject({ method: 'POST', url: '/items', payload: {} })).statusCode).toBe(400)
    await app.api.close()
  })

  it('keeps compilers the app passes in its own Fastify options', async () => {
    const seen: string[] = []
    const app = new Svc({
      title: 'Schemas',
      fastify: {
        schemaController: {
          compilersFactory: {
            buildValidator: (() => (route: { schema: unknown; httpPart?: string }) => {
              seen.push(`${route.httpPart}:${JSON.stringify(route.schema)}`)
              return () => true
            }) as unknown as ValidatorFactory,
          },
        },
      },
    })
    app.api.post('/any', { schema: { body: { type: 'object', required: ['never'] } } }, async () => ({ ok: true }))
    // A zod schema goes to svc's zod compiler, never to the app's.
    app.api.post('/typed', { schema: { body: z.object({ n: z.number() }) } }, async (req) => req.body)
    expect((await app.api.inject({ method: 'POST', url: '/any', payload: {} })).statusCode).toBe(200)
    expect((await app.api.inject({ method: 'POST', url: '/typed', payload: { n: 'x' } })).statusCode).toBe(400)
    expect((await app.api.inject({ method: 'POST', url: '/typed', payload: { n: 1 } })).json()).toEqual({ n: 1 })
    expect(seen).toEqual(['body:{"type":"object","required":["never"]}'])
    await app.api.close()
  })

  it("finds Fastify's schema controller (a Fastify release that moves it fails here)", () => {
    const compilers = withLazySchemaCompilers(undefined)
    const api = Fastify({ schemaController: compilers.options })
    expect(markCompilersDefault(api, compilers.lazy)).toBe(true)
    expect(markCompilersDefault({} as typeof api, compilers.lazy)).toBe(false)
  })
})
