import { describe, expect, it, onTestFinished } from 'vitest'
import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import Fastify from 'fastify'
import { applyCors, corsOrigins, publicBaseUrlPrecedenceRow } from '../../../src/auth/index.js'
import { createSecurityHeaders, HSTS_VALUE } from '../../../gateway/security-headers.js'
import { resolveSettings, envLayer } from '../../../src/settings/resolve.js'

function pair(headers: Record<string, string> = {}): { req: IncomingMessage; res: ServerResponse } {
  const req = new IncomingMessage(new Socket())
  req.headers = headers
  return { req, res: new ServerResponse(req) }
}

describe('createSecurityHeaders', () => {
  it('is null when the switch is off', () => {
    expect(createSecurityHeaders({ enable_security_headers: false, trust_proxy: true })).toBeNull()
  })

  it('sets the headers and keeps values already present', () => {
    const apply = createSecurityHeaders({ enable_security_headers: true, trust_proxy: false })!
    const { req, res } = pair({ 'x-forwarded-proto': 'https' })
    res.setHeader('X-Frame-Options', 'DENY')
    apply(req, res)
    expect(res.getHeader('x-content-type-options')).toBe('nosniff')
    expect(res.getHeader('x-frame-options')).toBe('DENY')
    expect(res.getHeader('referrer-policy')).toBe('strict-origin-when-cross-origin')
    // X-Forwarded-Proto is not believed without trust_proxy.
    expect(res.hasHeader('strict-transport-security')).toBe(false)
  })

  it('sends HSTS for a trusted X-Forwarded-Proto: https only', () => {
    const apply = createSecurityHeaders({ enable_security_headers: true, trust_proxy: true })!
    const https = pair({ 'x-forwarded-proto': 'HTTPS, http' })
    apply(https.req, https.res)
    expect(https.res.getHeader('strict-transport-security')).toBe(HSTS_VALUE)
    const http = pair({ 'x-forwarded-proto': 'http' })
    apply(http.req, http.res)
    expect(http.res.hasHeader('strict-transport-security')).toBe(false)
  })
})

describe('CORS', () => {
  it('allows listed origins only, with credentials when set', async () => {
    const api = Fastify()
    onTestFinished(() => api.close())
    applyCors(api, { cors_allow_origins: ['https://app.example.com'], cors_allow_credentials: true })
    api.get('/x', async () => ({ ok: true }))
    const ok = await api.inject({ url: '/x', headers: { origin: 'https://app.example.com' } })
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example.com')
    expect(ok.headers['access-control-allow-credentials']).toBe('true')
    const other = await api.inject({ url: '/x', headers: { origin: 'https://evil.example.com' } })
    expect(other.headers['access-control-allow-origin']).toBeUndefined()
    const preflight = await api.inject({
      method: 'OPTIONS',
      url: '/x',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    })
    expect(preflight.statusCode).toBe(204)
    expect(preflight.headers['access-control-allow-headers']).toBe('authorization')
  })

  it('adds nothing when no origin is listed', async () => {
    const api = Fastify()
    onTestFinished(() => api.close())
    applyCors(api, { cors_allow_origins: [], cors_allow_credentials: false })
    api.get('/x', async () => ({}))
    const res = await api.inject({ url: '/x', headers: { origin: 'https://app.example.com' } })
    expect(res.headers['access-control-allow-origin']).toBeUndefined()
  })

  it.each([
    [['https://app.example.com/'], /write it as "https:\/\/app.example.com"/],
    [['app.example.com'], /is not an origin/],
  ])('rejects %j with a message that teaches', (origins, message) => {
    expect(() => corsOrigins({ cors_allow_origins: origins, cors_allow_credentials: false })).toThrow(message)
  })

  it('rejects * with credentials', () => {
    expect(() => corsOrigins({ cors_allow_origins: ['*'], cors_allow_credentials: true })).toThrow(/cannot be combined/)
  })

  it('names SVC_CORS_ALLOW_ORIGINS when its JSON is invalid', () => {
    expect(() => resolveSettings([envLayer({ SVC_CORS_ALLOW_ORIGINS: '[https://a.example' })])).toThrow(
      /SVC_CORS_ALLOW_ORIGINS: \(not valid JSON\).*write it as JSON/,
    )
  })
})

describe('publicBaseUrlPrecedenceRow', () => {
  const strict = { strict: false }
  it.each([
    [{}, null],
    [{ SVC_PUBLIC_BASE_URL: 'https://a.example/' }, 'PASS'],
    [{ PUBLIC_BASE_URL: 'https://a.example' }, 'PASS'],
    [{ SVC_PUBLIC_BASE_URL: 'https://a.example', PUBLIC_BASE_URL: 'https://a.example/' }, 'PASS'],
    [{ SVC_PUBLIC_BASE_URL: 'https://a.example', PUBLIC_BASE_URL: 'https://b.example' }, 'WARN'],
    [{ SVC_PUBLIC_BASE_URL: '', PUBLIC_BASE_URL: 'https://b.example' }, 'WARN'],
  ])('%j → %s', (env, status) => {
    expect(publicBaseUrlPrecedenceRow(env, strict)?.status ?? null).toBe(status)
  })

  it('fails when strict and says which one wins', () => {
    const row = publicBaseUrlPrecedenceRow({ SVC_PUBLIC_BASE_URL: 'https://a.example', PUBLIC_BASE_URL: 'https://b.example' }, { strict: true })
    expect(row).toMatchObject({ id: 'public_base_url_precedence', status: 'FAIL' })
    expect(row?.detail).toMatch(/svc uses SVC_PUBLIC_BASE_URL/)
  })

  it('PASS detail names the fallback', () => {
    expect(publicBaseUrlPrecedenceRow({ PUBLIC_BASE_URL: 'https://b.example' }, strict)?.detail).toBe('using PUBLIC_BASE_URL fallback (https://b.example)')
  })
})
