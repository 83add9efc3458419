import { describe, expect, it, onTestFinished } from 'vitest'
import Fastify, { type FastifyInstance } from 'fastify'
import { JWTBearer, RequireRoles, RequireScopes, getClaims, type JWTBearerOptions } from '../../../src/auth/index.js'
import { isSvcError } from '../../../src/errors.js'
import { AUDIENCE, ISSUER, TEST_SECRET, hsToken, noneToken } from '../../helpers/auth-tokens.js'

function appWith(options: JWTBearerOptions = {}): FastifyInstance {
  const bearer = JWTBearer({ issuer: ISSUER, audience: AUDIENCE, secret: TEST_SECRET, ...options })
  const app = Fastify()
  onTestFinished(() => app.close())
  app.get('/me', { preHandler: bearer }, async (req) => ({ sub: getClaims(req).sub }))
  app.get('/reports', { preHandler: RequireScopes(bearer, 'reports:read', 'reports:list') }, async () => ({ ok: true }))
  app.get('/chained', { preHandler: [bearer, RequireScopes(bearer, 'a')] }, async () => ({ ok: true }))
  app.get('/perm', { preHandler: RequireScopes(bearer, { claim: 'permissions' }, 'x') }, async () => ({ ok: true }))
  app.get('/admin', { preHandler: RequireRoles(bearer, 'admin', 'ops') }, async () => ({ ok: true }))
  app.get('/unguarded', async (req) => ({ sub: getClaims(req).sub }))
  return app
}

async function call(app: FastifyInstance, path: string, authorization?: string) {
  const res = await app.inject({ method: 'GET', url: path, headers: authorization === undefined ? {} : { authorization } })
  return { status: res.statusCode, body: res.json() as Record<string, unknown>, www: res.headers['www-authenticate'] }
}

describe('JWTBearer (HS256)', () => {
  it('admits a valid token and exposes its claims', async () => {
    const res = await call(appWith(), '/me', `Bearer ${await hsToken({ sub: 'ada' })}`)
    expect(res).toMatchObject({ status: 200, body: { sub: 'ada' } })
  })

  it('accepts a lowercase scheme', async () => {
    expect((await call(appWith(), '/me', `bearer ${await hsToken()}`)).status).toBe(200)
  })

  it.each([
    ['no header', undefined, 'Missing bearer token', 'Bearer'],
    ['another scheme', 'Basic dXNlcjpwYXNz', 'Missing bearer token', 'Bearer'],
    ['an empty token', 'Bearer    ', 'Empty bearer token', 'Bearer'],
    ['the bare scheme', 'Bearer', 'Empty bearer token', 'Bearer'],
    ['garbage', 'Bearer not.a.jwt', 'Invalid token', 'Bearer error="invalid_token"'],
    ['alg none', `Bearer ${noneToken()}`, 'Invalid token', 'Bearer error="invalid_token"'],
  ])('401 for %s', async (_name, header, detail, www) => {
    const res = await call(appWith(), '/me', header)
    expect(res.status).toBe(401)
    expect(res.www).toBe(www)
    expect(res.body).toMatchObject({ error: 'unauthorized', message: detail, detail })
    expect(typeof res.body.request_id).toBe('string')
  })

  it.each([
    ['expired', { expiresIn: -30 }, 'Token expired'],
    ['wrong issuer', { iss: 'https://evil.test' }, 'Invalid token'],
    ['wrong audience', { aud: 'someone-else' }, 'Invalid token'],
    ['no sub', { sub: '' }, 'Invalid token'],
  ])('401 for a token with %s', async (_name, options, detail) => {
    const res = await call(appWith(), '/me', `Bearer ${await hsToken(options)}`)
    expect(res).toMatchObject({ status: 401, body: { message: detail }, www: 'Bearer error="invalid_token"' })
  })

  it('401 for a token signed with another secret', async () => {
    const token = await hsToken({}, 'another-secret-0123456789abcdef-012345')
    expect((await call(appWith(), '/me', `Bearer ${token}`)).body.message).toBe('Invalid token')
  })

  it('honours leeway on exp', async () => {
    const token = `Bearer ${await hsToken({ expiresIn: -5 })}`
    expect((await call(appWith(), '/me', token)).status).toBe(401)
    expect((await call(appWith({ leewaySeconds: 30 }), '/me', token)).status).toBe(200)
  })

  it('accepts any one audience of a list', async () => {
    const token = `Bearer ${await hsToken({ aud: 'b' })}`
    expect((await call(appWith({ audience: ['a', 'b'] }), '/me', token)).status).toBe(200)
  })

  it("falls back to Fastify's request id when no request context is set", async () => {
    const app = Fastify({ genReqId: () => 'req-42' })
    onTestFinished(() => app.close())
    app.get('/me', { preHandler: JWTBearer({ issuer: ISSUER, audience: AUDIENCE, secret: TEST_SECRET }) }, async () => ({}))
    expect((await app.inject({ method: 'GET', url: '/me' })).json()).toMatchObject({ request_id: 'req-42' })
  })

  it('getClaims() on an unguarded route is a 500 naming the fix', async () => {
    const res = await appWith().inject({ method: 'GET', url: '/unguarded' })
    expect(res.statusCode).toBe(500)
    expect(res.json().message).toMatch(/no JWTBearer guard/)
  })
})

describe('RequireScopes / RequireRoles', () => {
  it('needs every scope, from a space-delimited scope string', async () => {
    const app = appWith()
    const both = await hsToken({ claims: { scope: 'reports:list openid reports:read' } })
    const one = await hsToken({ claims: { scope: 'reports:read' } })
    expect((await call(app, '/reports', `Bearer ${both}`)).status).toBe(200)
    const denied = await call(app, '/reports', `Bearer ${one}`)
    expect(denied).toMatchObject({ status: 403, body: { error: 'forbidden', message: 'Insufficient scope' } })
    expect(denied.www).toContain('insufficient_scope')
  })

  it('reads an scp list too', async () => {
    const token = await hsToken({ claims: { scp: ['reports:read', 'reports:list'] } })
    expect((await call(appWith(), '/reports', `Bearer ${token}`)).status).toBe(200)
  })

  it('still answers 401 before 403', async () => {
    expect((await call(appWith(), '/reports')).status).toBe(401)
  })

  it('works after the bearer in a preHandler list and with a custom claim', async () => {
    const app = appWith()
    expect((await call(app, '/chained', `Bearer ${await hsToken({ claims: { scope: 'a' } })}`)).status).toBe(200)
    expect((await call(app, '/chained', `Bearer ${await hsToken()}`)).status).toBe(403)
    expect((await call(app, '/perm', `Bearer ${await hsToken({ claims: { permissions: ['x'] } })}`)).status).toBe(200)
  })

  it('needs any one role; a string claim is one role', async () => {
    const app = appWith()
    expect((await call(app, '/admin', `Bearer ${await hsToken({ claims: { roles: ['viewer', 'ops'] } })}`)).status).toBe(200)
    expect((await call(app, '/admin', `Bearer ${await hsToken({ claims: { roles: 'admin' } })}`)).status).toBe(200)
    const denied = await call(app, '/admin', `Bearer ${await hsToken({ claims: { roles: 'admin ops' } })}`)
    expect(denied).toMatchObject({ status: 403, body: { message: 'Insufficient role' } })
  })
})

describe('JWTBearer configuration', () => {
  const settings = { jwt_issuer: ISSUER, jwt_audience: AUDIENCE, jwt_hs256_secret: TEST_SECRET, jwt_jwks_url: '', jwt_leeway_seconds: 7 }

  it('takes omitted options from the jwt_* settings', async () => {
    const bearer = JWTBearer({ settings })
    expect(bearer.config).toMatchObject({ issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'], leewaySeconds: 7, keySource: 'secret' })
    await expect(bearer.verify(await hsToken({ sub: 'x' }))).resolves.toMatchObject({ sub: 'x' })
  })

  it.each([
    ['no key', { settings: { ...settings, jwt_hs256_secret: '' } }, /no key/],
    ['both keys in settings', { settings: { ...settings, jwt_jwks_url: 'https://x.test/jwks' } }, /only one/],
    ['both keys as options', { issuer: 'i', audience: 'a', leewaySeconds: 0, secret: TEST_SECRET, jwksUrl: 'https://x.test/jwks' }, /not both/],
    ['no issuer', { settings: { ...settings, jwt_issuer: '' } }, /SVC_JWT_ISSUER/],
    ['a short secret', { settings, secret: 'short' }, /at least 32/],
    ['HS256 with a JWKS', { settings, jwksUrl: 'https://x.test/jwks', algorithms: ['HS256'] }, /cannot be used with a JWKS/],
    ['RS256 with a secret', { settings, algorithms: ['RS256'] }, /cannot be used with a shared secret/],
    ['alg none', { settings, algorithms: ['none'] }, /none/],
    ['a relative JWKS URL', { settings, jwksUrl: '/jwks' }, /not an absolute URL/],
  ])('rejects %s with SVC_ERR_AUTH_CONFIG', (_name, options, message) => {
    try {
      JWTBearer(options as JWTBearerOptions)
      expect.unreachable()
    } catch (err) {
      expect(isSvcError(err) && err.code).toBe('SVC_ERR_AUTH_CONFIG')
      expect((err as Error).message).toMatch(message)
    }
  })
})
