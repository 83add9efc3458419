import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SvcTree } from '../helpers/observability-tree.js'

/**
 * Query credentials never reach a log line or the debug snapshot: a real `svc run --debug` tree
 * (access log at INFO, API request log, split line, snapshot) with one extra name configured.
 */
let tree: SvcTree

beforeAll(async () => {
  tree = new SvcTree(['--debug'], { SVC_ENABLE_GATEWAY_ACCESS_LOG: '1', SVC_REDACT_QUERY_PARAMS: 'otp,Magic_Link' })
  await tree.started()
}, 40_000)

afterAll(() => tree?.stop(), 20_000)

const accessLine = (id: string): Promise<Record<string, unknown>> =>
  tree.waitFor(`the access line of ${id}`, () => tree.linesFor(id, 'svc.gateway').find((l) => l.level === 'info' && 'query' in l))

/** A request with a raw target fetch() would normalise (fragment kept), read to the end. */
function rawGet(target: string, id: string): Promise<string> {
  const url = new URL(tree.base)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname)
    let data = ''
    socket.setEncoding('utf8')
    socket.on('data', (c: string) => (data += c))
    socket.on('end', () => resolve(data))
    socket.on('error', reject)
    socket.write(`GET ${target} HTTP/1.1\r\nHost: ${url.host}\r\nX-Request-ID: ${id}\r\nConnection: close\r\n\r\n`)
  })
}

describe('query credential redaction over a real svc tree', () => {
  it('redacts an OAuth callback on a ui path in the access line', async () => {
    const res = await fetch(`${tree.base}/?code=abc&state=xyz&page=2`, { headers: { 'x-request-id': 'redact-ui-1' } })
    expect(res.status).toBe(200)
    const line = await accessLine('redact-ui-1')
    expect(line).toMatchObject({ svc_dispatch: 'ui', path: '/', query: 'code=<redacted>&state=<redacted>&page=2' })
  })

  it('redacts access_token, a configured name and mixed-case names on an api path', async () => {
    const target = '/api/hello?access_token=TOKEN-API-1&OTP=OTP-API-2&magic_link=ML-API-3&X-Amz-Signature=SIG-API-4&page=2'
    const res = await fetch(tree.base + target, { headers: { 'x-request-id': 'redact-api-1' } })
    expect(res.status).toBe(200)
    const line = await accessLine('redact-api-1')
    expect(line).toMatchObject({
      svc_dispatch: 'api',
      path: '/api/hello',
      query: 'access_token=<redacted>&OTP=<redacted>&magic_link=<redacted>&X-Amz-Signature=<redacted>&page=2',
    })
    const api = await tree.waitFor('the API request line', () =>
      tree.linesFor('redact-api-1', 'svc.api').find((l) => typeof l.message === 'string' && l.message.includes('->')),
    )
    expect(api).toMatchObject({ path: '/hello', status: 200 })
  })

  it('redacts a raw fragment in the path of the access line, the split line and the debug snapshot', async () => {
    const answer = await rawGet('/cb#access_token=FRAG-TOKEN-5&token_type=bearer', 'redact-frag-1')
    expect(answer).toMatch(/^HTTP\/1\.1 200/)
    const line = await accessLine('redact-frag-1')
    expect(line).toMatchObject({ path: '/cb#access_token=<redacted>&token_type=bearer', query: '' })
    const split = tree.linesFor('redact-frag-1', 'svc.gateway').find((l) => l.level === 'debug')
    expect(String(split?.message)).toContain('path_in=/cb#access_token=<redacted>&token_type=bearer')

    const snapshot = (await (await fetch(`${tree.base}/__svc/debug`)).json()) as { recent_dispatches: unknown[] }
    expect(snapshot.recent_dispatches).toContainEqual({
      request_id: 'redact-frag-1',
      dispatch: 'ui',
      path: '/cb#access_token=<redacted>&token_type=bearer',
    })
    expect(snapshot.recent_dispatches).toContainEqual({ request_id: 'redact-api-1', dispatch: 'api', path: '/api/hello' })
  })

  it('writes none of the secrets anywhere in the tree output', () => {
    for (const secret of ['abc&', 'xyz', 'TOKEN-API-1', 'OTP-API-2', 'ML-API-3', 'SIG-API-4', 'FRAG-TOKEN-5']) {
      expect(tree.output, secret).not.toContain(secret)
    }
  })
})
