import { afterAll, describe, expect, it } from 'vitest'
import { Svc, SvcTestClient, cacheData, isApiCallError, z } from 'svc'

/**
 * Typed calls in users' tests: `SvcTestClient.call()` and pages run by `client.ui()` reach the
 * API through the in-process gateway (no port, no SVC_INTERNAL_API_BASE), with the same types,
 * validation and errors as under `svc run`; also from cacheData, a fragment and writeStream.
 */
describe('typed calls through SvcTestClient and the page test handle', () => {
  const app = new Svc({ title: 'Typed tests' })
  const Item = z.object({ name: z.string(), stock: z.number().int() })
  const items = [
    { name: 'bolts', stock: 120 },
    { name: 'nuts', stock: 8 },
  ]
  const listItems = app.route({
    method: 'GET',
    url: '/items',
    schema: { querystring: z.object({ below: z.coerce.number().int().optional() }), response: { 200: z.array(Item) } },
    handler: async (req) => items.filter((i) => req.query.below === undefined || i.stock < req.query.below),
  })
  const restock = app.route({
    method: 'POST',
    url: '/items/:name/restock',
    schema: {
      params: z.object({ name: z.string() }),
      body: z.object({ add: z.number().int().positive() }),
      response: { 200: Item, 404: z.object({ error: z.literal('not_found'), message: z.string() }) },
    },
    handler: async (req, reply) => {
      const item = items.find((i) => i.name === req.params.name)
      if (!item) return reply.code(404).send({ error: 'not_found', message: `no item ${req.params.name}` })
      item.stock += req.body.add
      return item
    },
  })
  /** Sends a pre-serialized string: only the calling page's client can check it. */
  const stale = app.route({
    method: 'GET',
    url: '/stale',
    schema: { response: { 200: z.array(Item) } },
    handler: async (_req, reply) => reply.type('application/json').send('[{"name":"bolts","stock":"many"}]' as never),
  })
  const ticker = app.sseRoute({
    method: 'GET',
    url: '/ticker',
    schema: { querystring: z.object({ words: z.string() }) },
    events: z.object({ word: z.string() }),
    async *handler(req) {
      for (const word of req.query.words.split(',')) yield { word }
    },
  })

  let loads = 0
  const client = new SvcTestClient(app)
  const lowStock = cacheData(async (below: number) => {
    loads++
    return client.client.call(listItems, { query: { below } })
  })

  app.page('/', async (st, api) => {
    const all = await api.call(listItems)
    st.text(`items=${all.map((i) => `${i.name}:${i.stock}`).join(',')}`)
    const low = await lowStock(10)
    st.text(`low=${low.map((i) => i.name).join(',')}`)
    await st.fragment(async (f) => {
      const n = f.numberInput('add', { key: 'add', value: 1 })
      if (f.button('restock', { key: 'restock' })) {
        const after = await api.call(restock, { params: { name: 'nuts' }, body: { add: n } })
        f.text(`restocked=${after.stock}`)
      }
    })
    try {
      await api.call(restock, { params: { name: 'washers' }, body: { add: 1 } })
    } catch (err) {
      if (isApiCallError(err, restock)) st.text(`error=${err.status}:${err.body.error}`)
    }
    try {
      await api.call(stale)
    } catch (err) {
      if (isApiCallError(err, stale)) st.text(`stale=${err.code}:${err.issues.map((i) => i.path.join('.')).join(',')}`)
    }
    const words = await api.stream(ticker, { query: { words: 'svc,streams,events' } })
    await st.writeStream(words.map((e) => `${e.word} `))
  })
  afterAll(() => client.close())

  it('SvcTestClient.call returns the typed, validated answer and throws typed errors', async () => {
    expect(await client.call(listItems, { query: { below: 100 } })).toEqual([{ name: 'nuts', stock: 8 }])
    const err = await client.call(listItems, { query: { below: 'x' as unknown as number } }).catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'SVC_ERR_CLIENT_HTTP_ERROR', status: 400, body: { error: 'bad_request', issues: [{ in: 'querystring', path: ['below'] }] } })
    const events: string[] = []
    for await (const e of await client.stream(ticker, { query: { words: 'a,b' } })) events.push(e.word)
    expect(events).toEqual(['a', 'b'])
  })

  it('SvcTestClient.call keeps a path parameter in its segment, and refuses a dot segment before any request', async () => {
    for (const name of ['..', '.', '../..', 'x\\..\\y', 'a/.']) {
      await expect(client.call(restock, { params: { name }, body: { add: 1 } })).rejects.toMatchObject({ code: 'SVC_ERR_CLIENT_PATH_PARAM' })
    }
    for (const name of ['a/b', 'a\\b', '%2e%2e', '%2F..%2F', '...', '?q=1#f']) {
      const err = await client.call(restock, { params: { name }, body: { add: 1 } }).catch((e: unknown) => e)
      expect(err, name).toMatchObject({ status: 404, body: { error: 'not_found', message: `no item ${name}` } })
    }
  })

  it('a page run by client.ui() calls the API in-process: cacheData, a fragment, errors and writeStream', async () => {
    const at = await client.ui({ target: '/' }).run()
    expect(at.exception).toEqual([])
    expect(at.text.map((t) => t.value)).toEqual(['items=bolts:120,nuts:8', 'low=nuts', 'error=404:not_found', 'stale=SVC_ERR_CLIENT_BAD_RESPONSE:0.stock'])
    expect(String(at.markdown.at(-1)!.value)).toContain('svc streams events')

    at.numberInput('add').setValue(5)
    await at.button('restock').click().run()
    expect(at.text.map((t) => t.value)).toContain('restocked=13')
    await at.run()
    expect(loads).toBe(1)
  })
})
