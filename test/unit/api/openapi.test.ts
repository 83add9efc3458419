import { describe, expect, it, onTestFinished } from 'vitest'
import { Svc, z } from '../../../src/index.js'

/**
 * The OpenAPI document from typed routes' zod schemas (src/api/openapi.ts), beside routes with
 * JSON Schema. The first test builds the document before anything loaded the transforms, as a
 * direct `app.api.swagger()` does.
 */
interface Operation {
  summary?: string
  parameters?: { name: string; in: string; required?: boolean; schema: unknown }[]
  requestBody?: { content: Record<string, { schema: unknown }> }
  responses: Record<string, { description?: string; content?: Record<string, { schema: unknown }> }>
}
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } }

function newApp(): Svc {
  const app = new Svc({ title: 'docs' })
  onTestFinished(() => app.api.close())
  return app
}

describe('the OpenAPI document of typed routes', () => {
  it('app.api.swagger() describes zod parts (inputs as accepted, answers as sent) and keeps JSON-schema parts', async () => {
    const app = newApp()
    const Item = z.object({ name: z.string().describe('What it is'), stock: z.number().int() }).meta({ id: 'Item' })
    app.route({
      method: 'POST',
      url: '/items/:id',
      schema: {
        summary: 'Restock an item',
        tags: ['items'],
        params: z.object({ id: z.coerce.number().int() }),
        querystring: { type: 'object', properties: { dry: { type: 'boolean' } } },
        body: z.object({ add: z.number().int().positive() }),
        response: { 200: Item, 404: { type: 'object', properties: { error: { type: 'string' } } } },
      },
      handler: async () => ({ name: 'bolt', stock: 1 }),
    })
    app.route({ method: 'GET', url: '/hidden', schema: { hide: true, querystring: z.object({ q: z.string() }) }, handler: async () => 'x' })
    await app.api.ready()
    const doc = app.api.swagger() as unknown as Doc
    const op = doc.paths['/items/{id}']!.post!
    expect(op.summary).toBe('Restock an item')
    expect(op.parameters!.map((p) => [p.in, p.name])).toEqual([
      ['query', 'dry'],
      ['path', 'id'],
    ])
    expect(op.requestBody!.content['application/json']!.schema).toMatchObject({ type: 'object', properties: { add: { type: 'integer', exclusiveMinimum: 0 } }, required: ['add'] })
    expect(op.responses['200']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Item' })
    expect(op.responses['404']!.content!['application/json']!.schema).toEqual({ type: 'object', properties: { error: { type: 'string' } } })
    expect(doc.components.schemas.Item).toMatchObject({ properties: { name: { type: 'string', description: 'What it is' } } })
    expect(doc.paths['/hidden']).toBeUndefined()
  })

  it('an app without typed routes gets the document it got before', async () => {
    const app = newApp()
    app.api.get('/plain', { schema: { querystring: { type: 'object', properties: { n: { type: 'integer' } } } } }, async () => 'x')
    await app.api.ready()
    const res = await app.api.inject({ url: '/openapi.json' })
    const doc = res.json() as Doc
    expect(doc.paths['/plain']!.get!.parameters).toEqual([{ schema: { type: 'integer' }, in: 'query', name: 'n', required: false }])
    expect(doc.components).toEqual({ schemas: {} })
  })
})
