import { describe, expect, it, onTestFinished, vi } from 'vitest'
import Fastify from 'fastify'
import { Svc } from '../../../src/app.js'
import { GenericOIDCClient, registerOidcBffRoutes, type OIDCProvider } from '../../../src/auth/index.js'

const SECRET = 'bff-secret-0123456789abcdef-0123456789abcdef'

const custom: OIDCProvider = {
  clientId: 'c',
  authorizationUrl: (r) => `https://idp.test/authorize?state=${r.state}`,
  exchangeCode: async () => ({ id_token: 'x.y.z' }),
}

function api() {
  const app = Fastify()
  onTestFinished(() => app.close())
  return app
}

describe('registerOidcBffRoutes configuration', () => {
  it('refuses a custom provider unless unverified id_tokens are allowed explicitly', () => {
    const base = { provider: custom, publicBaseUrl: 'https://app.test', firstPartySecret: SECRET }
    expect(() => registerOidcBffRoutes(api(), base)).toThrow(/allowUnverifiedIdTokenForCustomOidc: true/)
    expect(() => registerOidcBffRoutes(api(), { ...base, allowUnverifiedIdTokenForCustomOidc: true })).not.toThrow()
  })

  it('refuses a GenericOIDCClient whose discovery is not loaded', () => {
    const provider = new GenericOIDCClient({ issuer: 'https://idp.test', clientId: 'c', clientSecret: 's' })
    expect(() => registerOidcBffRoutes(api(), { provider, publicBaseUrl: 'https://app.test', firstPartySecret: SECRET })).toThrow(
      /call `await client.loadDiscovery\(\)`/,
    )
  })

  it('refuses a short first-party secret', () => {
    expect(() =>
      registerOidcBffRoutes(api(), { provider: custom, allowUnverifiedIdTokenForCustomOidc: true, publicBaseUrl: '', firstPartySecret: 'short' }),
    ).toThrow(/SVC_OIDC_BFF_SECRET.*at least 32/)
  })

  it('warns (UserWarning) when the public base URL is empty', async () => {
    const warnings: Error[] = []
    const listener = (w: Error) => warnings.push(w)
    process.on('warning', listener)
    onTestFinished(() => {
      process.off('warning', listener)
    })
    const app = api()
    registerOidcBffRoutes(app, { provider: custom, allowUnverifiedIdTokenForCustomOidc: true, publicBaseUrl: '', firstPartySecret: SECRET })
    await new Promise((resolve) => setImmediate(resolve))
    expect(warnings.map((w) => [w.name, w.message])).toContainEqual(['UserWarning', expect.stringMatching(/SVC_PUBLIC_BASE_URL/)])
    // The redirect URI then follows the request's host.
    const res = await app.inject({ url: '/auth/login', headers: { host: 'portal.test:8443' } })
    expect(res.statusCode).toBe(302)
  })

  it('rejects a return_to that leaves the origin', async () => {
    const app = api()
    const seen: string[] = []
    const provider: OIDCProvider = { ...custom, authorizationUrl: (r) => (seen.push(r.redirectUri), 'https://idp.test/a') }
    registerOidcBffRoutes(app, { provider, allowUnverifiedIdTokenForCustomOidc: true, publicBaseUrl: 'https://app.test/portal/', firstPartySecret: SECRET })
    expect((await app.inject({ url: '/auth/login?return_to=//evil.test/x' })).statusCode).toBe(302)
    expect(seen).toEqual(['https://app.test/portal/api/auth/callback'])
  })
})

describe('Svc.attachOidcLogin', () => {
  it('needs a first-party secret and can be called once', () => {
    const noSecret = new Svc({ public_base_url: 'https://app.test' })
    onTestFinished(() => noSecret.api.close())
    expect(() => noSecret.attachOidcLogin(custom, { allowUnverifiedIdTokenForCustomOidc: true })).toThrow(/SVC_OIDC_BFF_SECRET/)

    const app = new Svc({ public_base_url: 'https://app.test', oidc_bff_secret: SECRET })
    onTestFinished(() => app.api.close())
    const login = app.attachOidcLogin(custom, { allowUnverifiedIdTokenForCustomOidc: true })
    expect(login.config).toMatchObject({ publicBaseUrl: 'https://app.test', apiMountPath: '/api', authCodeTtlSeconds: 120 })
    expect(login.bearer.config).toMatchObject({ issuer: 'svc-bff', audience: 'svc-app', algorithms: ['HS256'] })
    expect(() => app.attachOidcLogin(custom, { allowUnverifiedIdTokenForCustomOidc: true })).toThrow(/already called/)
  })
})

describe('jose missing', () => {
  it('turns into SVC_ERR_AUTH_MISSING_DEPENDENCY naming npm install jose', async () => {
    vi.resetModules()
    vi.doMock('jose', () => {
      throw new Error("Cannot find package 'jose'")
    })
    onTestFinished(() => {
      vi.doUnmock('jose')
      vi.resetModules()
    })
    const { loadJose } = await import('../../../src/auth/jose-loader.js')
    await expect(loadJose()).rejects.toMatchObject({ code: 'SVC_ERR_AUTH_MISSING_DEPENDENCY', message: expect.stringContaining('npm install jose') })
  })
})
