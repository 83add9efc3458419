import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import Fastify, { type FastifyInstance } from 'fastify'
import type { AddressInfo } from 'node:net'
import { ApiClient } from '../../src/client/api-client.js'
import { JWTBearer, getClaims, issueAccessToken } from '../../src/auth/index.js'
import {
  bearerHeadersFromSession,
  exchangeAuthCodeFromQuery,
  prepareUiApiClient,
  type UiAuthSt,
} from '../../src/auth/ui.js'
import { isSvcError } from '../../src/errors.js'

const SECRET = 'ui-helper-secret-0123456789abcdef-0123'
const token = (ttlSeconds = 60) => issueAccessToken({ subject: 'ada', issuer: 'svc-bff', audience: 'svc-app', secret: SECRET, ttlSeconds })

let api: FastifyInstance
let client: ApiClient
const codes = new Map<string, string>()

beforeAll(async () => {
  api = Fastify()
  // The exchange contract of the BFF: single-use code → short-lived token.
  api.post('/api/auth/exchange', async (req, reply) => {
    const code = (req.body as { auth_code?: string }).auth_code ?? ''
    const access = codes.get(code)
    codes.delete(code)
    if (!access) return reply.code(401).send({ error: 'unauthorized', message: 'Invalid or expired auth code' })
    return { access_token: access, token_type: 'Bearer', expires_in: 60 }
  })
  const bearer = JWTBearer({ issuer: 'svc-bff', audience: 'svc-app', secret: SECRET })
  api.get('/api/me', { preHandler: bearer }, async (req) => ({ sub: getClaims(req).sub }))
  await api.listen({ port: 0, host: '127.0.0.1' })
  client = new ApiClient({ baseUrl: `http://127.0.0.1:${(api.server.address() as AddressInfo).port}/api` })
})
afterAll(() => api?.close())

function fakeSt(query: string): UiAuthSt & { url: URLSearchParams } {
  const url = new URLSearchParams(query)
  return {
    url,
    sessionState: {},
    queryParams: {
      get: (n) => url.get(n) ?? undefined,
      delete: (n) => url.delete(n),
    },
  }
}

describe('svc/auth/ui helpers', () => {
  it('exchange the auth_code, keep only the access token, and call the API with it', async () => {
    codes.set('one-time-code-1', await token())
    const st = fakeSt('auth_code=one-time-code-1&tab=2')
    const authed = await prepareUiApiClient(st, client)
    expect(st.url.toString()).toBe('tab=2')
    expect(Object.keys(st.sessionState)).toEqual(['svc_access_token'])
    expect(await (await authed.get('/me')).json()).toEqual({ sub: 'ada' })
    // A rerun without the code keeps using the session token.
    const again = await prepareUiApiClient(st, client)
    expect((await again.get('/me')).status).toBe(200)
  })

  it('returns the anonymous client when there is neither code nor token', async () => {
    const st = fakeSt('')
    expect(await prepareUiApiClient(st, client)).toBe(client)
    expect((await client.get('/me')).status).toBe(401)
  })

  it('throws SVC_ERR_AUTH_UNAUTHORIZED for a replayed code', async () => {
    codes.set('one-time-code-2', await token())
    await exchangeAuthCodeFromQuery(fakeSt('auth_code=one-time-code-2'), client)
    const err = await exchangeAuthCodeFromQuery(fakeSt('auth_code=one-time-code-2'), client).catch((e: unknown) => e)
    expect(isSvcError(err) && err.code).toBe('SVC_ERR_AUTH_UNAUTHORIZED')
    expect((err as Error).message).toMatch(/HTTP 401 \(Invalid or expired auth code\)/)
  })

  it('bearerHeadersFromSession honours sessionKey and drops an expired token', async () => {
    const st = fakeSt('')
    st.sessionState.mine = await token()
    expect(bearerHeadersFromSession(st, { sessionKey: 'mine' }).authorization).toMatch(/^Bearer ey/)
    expect(bearerHeadersFromSession(st)).toEqual({})
    const now = Math.floor(Date.now() / 1000)
    const expired = `e30.${Buffer.from(JSON.stringify({ sub: 'x', exp: now - 1 })).toString('base64url')}.sig`
    st.sessionState.svc_access_token = expired
    expect(bearerHeadersFromSession(st)).toEqual({})
    expect('svc_access_token' in st.sessionState).toBe(false)
  })
})
