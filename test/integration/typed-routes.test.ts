import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { PageClient } from '../helpers/ui-sidecar.js'
import type { ServerMessage } from '../../src/ui/wire/protocol.js'

/**
 * Typed routes and typed calls on a real `svc run` tree (supervisor, gateway worker, bundled page
 * server): a schema violation in either direction gives the documented error, at the API and in
 * the page that calls it; pages get typed results through cacheData, fragments and writeStream;
 * the OpenAPI document comes from the same schemas.
 */
const TARGET = `${REPO}test/fixtures/app-typed.ts:app`

type Render = Extract<ServerMessage, { type: 'render' }>

function texts(nodes: Render['main']): string[] {
  return nodes.flatMap((n) => [...(n.type === 'text' ? [String(n.props.text)] : []), ...texts((n.children ?? []) as Render['main'])])
}

describe('typed routes on a real tree', () => {
  let svc: SvcTree

  beforeAll(async () => {
    svc = await startSvc({ target: TARGET, env: { SVC_UI_COMMAND: undefined, SVC_LOG_FORMAT: 'json' } })
  }, 60_000)
  afterAll(stopAllTrees, 30_000)

  async function visit(path: string, requestId: string, query = ''): Promise<Render> {
    const page = await new PageClient(`${svc.url.replace('http:', 'ws:')}/_stcore/stream`, { 'x-request-id': requestId }).open()
    try {
      page.send({ type: 'hello', sessionId: null, path, query })
      return await page.render(15_000)
    } finally {
      await page.close()
    }
  }

  it('a valid request gets the answer its schema allows; extra fields never leave', async () => {
    const res = await fetch(`${svc.url}/api/orders?region=North&limit=1`)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual([{ id: 1, region: 'North', amount: 120 }])
  })

  it('an invalid request: 400 with the documented shape, naming each field', async () => {
    const res = await fetch(`${svc.url}/api/orders?region=East&limit=0`, { headers: { 'x-request-id': 'typed-400' } })
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const body = (await res.json()) as { error: string; message: string; request_id: string; issues: { in: string; path: unknown[] }[] }
    expect(body).toMatchObject({ error: 'bad_request', request_id: 'typed-400' })
    expect(body.message).toContain('querystring.region')
    expect(body.message).toContain('querystring.limit')
    expect(body.issues.map((i) => [i.in, i.path])).toEqual([
      ['querystring', ['region']],
      ['querystring', ['limit']],
    ])
    const params = await fetch(`${svc.url}/api/orders/abc`)
    expect(params.status).toBe(400)
    expect(((await params.json()) as { issues: { in: string }[] }).issues[0]!.in).toBe('params')
  })

  it('an answer its schema refuses: 500 with a generic message; the log says why, under the request ID', async () => {
    const from = svc.stdout.length
    const res = await fetch(`${svc.url}/api/broken`, { headers: { 'x-request-id': 'typed-500' } })
    expect(res.status).toBe(500)
    const text = await res.text()
    expect(JSON.parse(text)).toEqual({ error: 'internal', message: 'The server hit an unexpected error; the request ID identifies it in the server log.', request_id: 'typed-500' })
    expect(text).not.toContain('SECRET-CARD')
    const line = JSON.parse(await svc.waitForLine('stdout', /"request_id":"typed-500".*SVC_ERR_API_BAD_RESPONSE|SVC_ERR_API_BAD_RESPONSE.*"request_id":"typed-500"/, 10_000, from)) as Record<string, unknown>
    expect(line).toMatchObject({ level: 'error', logger: 'svc.api', code: 'SVC_ERR_API_BAD_RESPONSE', path: '/broken', status: 500 })
    expect(line.issues).toEqual([{ in: 'response', path: ['id'], message: expect.any(String), code: 'invalid_type' }])
    expect(JSON.stringify(line)).not.toContain('SECRET-CARD')
  })

  it('a plain JSON-schema route answers as before', async () => {
    const res = await fetch(`${svc.url}/api/plain`)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ statusCode: 400, code: 'FST_ERR_VALIDATION', message: "querystring must have required property 'n'" })
    expect(await (await fetch(`${svc.url}/api/plain?n=3`)).json()).toEqual({ n: 3 })
  })

  it('a page gets typed results: a call, a path parameter, a declared error answer, cacheData and a fragment', async () => {
    const shown = texts((await visit('/', 'typed-page')).main)
    expect(shown).toEqual([
      'orders=1,3 total=165',
      'order=2 region=South',
      'missing={"error":"no_such_order","id":99}',
      'cached=2:South',
      'fragment=3:45',
    ])
  })

  it('a result its schema refuses is a typed error in the page, not a value of the wrong type', async () => {
    expect(texts((await visit('/stale', 'typed-stale')).main)).toEqual(['code=SVC_ERR_CLIENT_BAD_RESPONSE status=200 error=client_bad_response at=response.0.region,response.0.amount'])
  })

  it('the API\'s 400 and 500 reach the page as typed errors with their status and body', async () => {
    expect(texts((await visit('/bad-request', 'typed-page-400')).main)).toEqual(['code=SVC_ERR_CLIENT_HTTP_ERROR status=400 error=bad_request at=querystring.region'])
    expect(texts((await visit('/broken', 'typed-page-500')).main)).toEqual(['code=SVC_ERR_CLIENT_HTTP_ERROR status=500 error=internal at='])
  })

  it('a path parameter stays in its segment whatever it holds; a dot segment is refused before any request', async () => {
    const cases: [string, string][] = [
      ['..', 'refused SVC_ERR_CLIENT_PATH_PARAM'],
      ['.', 'refused SVC_ERR_CLIENT_PATH_PARAM'],
      ['../../orders', 'refused SVC_ERR_CLIENT_PATH_PARAM'],
      ['a\\..\\b', 'refused SVC_ERR_CLIENT_PATH_PARAM'],
      ['a/b', 'route=pair x="a/b" y=tail'],
      ['a\\b', 'route=pair x="a\\\\b" y=tail'],
      ['%2e%2e', 'route=pair x="%2e%2e" y=tail'],
      ['%2F..%2F', 'route=pair x="%2F..%2F" y=tail'],
      ['..%00', 'route=pair x="..%00" y=tail'],
      ['?q=1#f', 'route=pair x="?q=1#f" y=tail'],
      ['...', 'route=pair x="..." y=tail'],
    ]
    for (const [v, expected] of cases) {
      expect(texts((await visit('/param', 'typed-param', new URLSearchParams({ v }).toString())).main), v).toEqual([expected])
    }
  })

  it('typed events stream into st.writeStream', async () => {
    const render = await visit('/stream', 'typed-stream')
    const markdown = render.main.filter((n) => n.type === 'markdown').map((n) => String(n.props.text ?? n.props.html))
    expect(markdown.join('')).toContain('one two three')
  })

  it('the OpenAPI document is generated from the same schemas', async () => {
    const doc = (await (await fetch(`${svc.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { summary?: string; parameters?: { name: string; in: string; required: boolean }[]; responses: Record<string, { content: Record<string, { schema: unknown }> }> }>>
      components: { schemas: Record<string, unknown> }
    }
    const list = doc.paths['/orders']!.get!
    expect(list.summary).toBe('Orders of one region')
    expect(list.parameters!.map((p) => [p.name, p.in, p.required])).toEqual([
      ['region', 'query', true],
      ['limit', 'query', false],
    ])
    expect(list.responses['200']!.content['application/json']!.schema).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Order' } })
    expect(doc.components.schemas.Order).toMatchObject({ type: 'object', required: ['id', 'region', 'amount'] })
    expect(doc.paths['/orders/{id}']!.get!.parameters!.map((p) => [p.name, p.in])).toEqual([['id', 'path']])
    expect(Object.keys(doc.paths['/chat']!.get!.responses['200']!.content)).toEqual(['text/event-stream'])
    expect(doc.paths['/plain']!.get!.parameters!.map((p) => p.name)).toEqual(['n'])
    expect((await fetch(`${svc.url}/api/docs`)).status).toBe(200)
  })
})
