import { afterAll, describe, expect, it } from 'vitest'
import { Svc, SvcTestClient } from 'svc'

/** SvcTestClient drives the composite gateway in-process: same dispatch, ids, redirects, errors. */
describe('SvcTestClient', () => {
  const app = new Svc({ title: 'Unit' })
  app.api.get('/users', async () => [{ name: 'Ada' }])
  app.api.post('/users', async (req, reply) => reply.code(201).send(req.body))
  app.api.get('/where', async (req) => ({ url: req.url, originalUrl: req.originalUrl }))
  app.page('/', (st) => {
    st.title('Home')
  })
  const client = new SvcTestClient(app)
  afterAll(() => client.close())

  it('apiGet/apiPost take mount-relative paths; api.* takes public paths', async () => {
    expect((await client.apiGet('/users')).json()).toEqual([{ name: 'Ada' }])
    const created = await client.apiPost('/users', { json: { name: 'Grace' } })
    expect(created.status).toBe(201)
    expect(created.json()).toEqual({ name: 'Grace' })
    expect((await client.api.get('/api/users')).status).toBe(200)
  })

  it('routes mount-relative but keeps the public path as request.originalUrl', async () => {
    expect((await client.apiGet('/where?x=1')).json()).toEqual({ url: '/where?x=1', originalUrl: '/api/where?x=1' })
  })

  it('echoes a usable request id and replaces a bad one', async () => {
    expect((await client.apiGet('/healthz', { headers: { 'x-request-id': 'unit-1' } })).headers['x-request-id']).toBe('unit-1')
    expect((await client.apiGet('/healthz', { headers: { 'x-request-id': 'x'.repeat(200) } })).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('serves docs and OpenAPI, also behind a root path', async () => {
    const doc = await client.openapi()
    expect(doc.servers).toEqual([{ url: '/api' }])
    await client.assertDocsAvailable()
    await client.withRootPath('/tools').assertDocsAvailable()
    const redirect = await client.request('GET', '/docs')
    expect(redirect.status).toBe(307)
    expect(redirect.headers.location).toBe('/api/docs')
  })

  it('sends the full path under the app root_path, and works for a stripping proxy too', async () => {
    const mounted = new Svc({ title: 'Mounted', root_path: '/myapp' })
    const c = new SvcTestClient(mounted)
    expect((await c.apiGet('/healthz', { rootPath: '/myapp' })).status).toBe(200)
    expect((await c.apiGet('/healthz')).status).toBe(200)
    expect((await c.openapi()).servers).toEqual([{ url: '/myapp/api' }])
    await c.close()
  })

  it('assertDocsAvailable throws when the docs do not answer', async () => {
    const bare = new Svc({ title: 'Other', api_mount_path: '/v1' })
    const other = new SvcTestClient(bare)
    expect((await other.request('GET', '/api/docs')).status).toBe(502)
    await expect(other.withRootPath('/x').request('GET', '/nothing')).resolves.toMatchObject({ status: 502 })
    await other.close()
  })

  it('answers the gateway errors as JSON: bad path 400, no upstream 502', async () => {
    const bad = await client.request('GET', '/api%2Fusers')
    expect(bad.status).toBe(400)
    expect(bad.json()).toMatchObject({ error: 'bad_request', request_id: bad.headers['x-request-id'] })
    const ui = await client.request('GET', '/')
    expect(ui.status).toBe(502)
    expect(ui.json()).toMatchObject({ error: 'bad_gateway' })
  })

  it('runs a page through ui()', async () => {
    const at = await client.ui({ target: '/' }).run()
    expect(at.title[0]!.value).toBe('Home')
  })
})
