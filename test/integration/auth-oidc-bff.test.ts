import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from 'undici'
import { execa, type ResultPromise } from 'execa'
import { Svc } from '../../src/app.js'
import { GenericOIDCClient, getClaims, type OidcLogin } from '../../src/auth/index.js'
import { startTestIdp, type TestIdp } from '../helpers/auth-idp.js'
import { TestBrowser } from '../helpers/auth-browser.js'
import { pageSideOf } from '../../src/ui/page-app.js'

const SECRET = 'bff-secret-0123456789abcdef-0123456789abcdef'

let server: Server
let base: string
let idp: TestIdp
let login: OidcLogin
let app: Svc

beforeAll(async () => {
  server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  idp = await startTestIdp({ redirectUris: [`${base}/api/auth/callback`] })
  const client = await new GenericOIDCClient({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret }).loadDiscovery()
  app = new Svc({ public_base_url: base, oidc_bff_secret: SECRET, log_level: 'warn' })
  login = app.attachOidcLogin(client, { claimsFromIdToken: (c) => ({ email: c.email }) })
  // A second, named login: its own routes, the same identity cookie and sign-out route.
  app.attachOidcLogin(client, { name: 'partners' })
  app.api.get('/me', { preHandler: login.bearer }, async (req) => ({ sub: getClaims(req).sub, email: getClaims(req).email }))
  await app.api.ready()
  // Stand-in for the gateway's API hop: strip the mount, let Fastify route the rest.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- Fastify's router lookup uses no `this`
  const route = app.api.routing as (req: unknown, res: unknown) => void
  server.on('request', (req, res) => {
    req.url = (req.url ?? '/').replace(/^\/api(?=\/|$|\?)/, '') || '/'
    route(req, res)
  })
})

afterAll(async () => {
  await idp?.close()
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve))
})

const isUi = (url: string) => url.startsWith(`${base}/?`) || url === `${base}/`
const isCallback = (url: string) => url.startsWith(`${base}/api/auth/callback`)

async function loginAs(browser: TestBrowser, user: string, stop = isUi) {
  const page = await browser.follow(`${base}/api/auth/login`)
  expect(page.status).toBe(200)
  return browser.submitLogin(page, user, stop)
}

async function exchange(code: string) {
  const res = await request(`${base}/api/auth/exchange`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ auth_code: code }),
  })
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown>, cacheControl: res.headers['cache-control'] }
}

describe('OIDC BFF against a real IdP (oidc-provider)', () => {
  it('login redirects to the IdP with PKCE S256, state and nonce', async () => {
    const hop = await new TestBrowser().fetch(`${base}/api/auth/login`)
    expect(hop.status).toBe(302)
    const url = new URL(hop.location as string)
    expect(url.origin).toBe(idp.issuer)
    expect(url.searchParams.get('code_challenge_method')).toBe('S256')
    expect(url.searchParams.get('redirect_uri')).toBe(`${base}/api/auth/callback`)
    for (const p of ['state', 'nonce', 'code_challenge']) expect(url.searchParams.get(p)).toMatch(/^[A-Za-z0-9_-]{43,}$/)
    expect(String(hop.headers['set-cookie'])).toMatch(/svc_oidc_bind=.*HttpOnly; SameSite=Lax/)
  })

  it('logs in, hands the UI a one-time auth_code, and the token it buys opens /me', async () => {
    const browser = new TestBrowser()
    const back = await loginAs(browser, 'alice')
    expect(back.status).toBe(302)
    expect(back.headers['cache-control']).toBe('no-store')
    const code = new URL(back.location as string).searchParams.get('auth_code') as string
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/)

    const first = await exchange(code)
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ token_type: 'Bearer', expires_in: 900 })
    expect(first.cacheControl).toBe('no-store')
    const me = await request(`${base}/api/me`, { headers: { authorization: `Bearer ${first.body.access_token}` } })
    expect(await me.body.json()).toEqual({ sub: 'alice', email: 'alice@idp.test' })

    const replay = await exchange(code)
    expect(replay).toMatchObject({ status: 401, body: { error: 'unauthorized', message: 'Invalid or expired auth code' } })
  })

  it('sets the identity cookie st.user reads (HttpOnly, signed, not an API token); the logout route clears it', async () => {
    const browser = new TestBrowser()
    const back = await loginAs(browser, 'dora')
    const setCookie = String(back.headers['set-cookie'])
    expect(setCookie).toMatch(/^svc_user=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200$/)
    const cookies = Object.fromEntries(browser.cookies(base))
    const identity = pageSideOf(app).identity!
    expect(identity.providers).toEqual(['default', 'partners'])
    const user = await identity.user(cookies)
    expect(user).toMatchObject({ isLoggedIn: true, sub: 'dora', provider: 'default', email: 'dora@idp.test', roles: [] })
    expect(user!.claims).toMatchObject({ sub: 'dora', email: 'dora@idp.test' })
    expect(user!.expiresAt.getTime() - Date.now()).toBeGreaterThan(43_000_000)
    // The identity token is not a bearer for the API (its audience is svc-user).
    const me = await request(`${base}/api/me`, { headers: { authorization: `Bearer ${cookies.svc_user}` } })
    expect(me.statusCode).toBe(401)
    // A tampered cookie is nobody.
    const [h, p, s] = cookies.svc_user!.split('.')
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'admin' })).toString('base64url')
    expect(await identity.user({ svc_user: `${h}.${forged}.${s}` })).toBeNull()

    expect(identity.loginUrl('partners', '/reports?x=1')).toBe('/api/auth/partners/login?return_to=%2Freports%3Fx%3D1')
    const out = await browser.fetch(`${base}${identity.logoutUrl('/reports?x=1')}`)
    expect(out.status).toBe(302)
    expect(out.location).toBe(`${base}/reports?x=1`)
    expect(String(out.headers['set-cookie'])).toBe('svc_user=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0')
    expect(browser.cookies(base).has('svc_user')).toBe(false)
    // Only paths of this site are return targets.
    expect((await browser.fetch(`${base}/api/auth/logout?return_to=//evil.example/x`)).location).toBe(`${base}/`)
  })

  it('sign-out ends the sign-in: a copy of the identity cookie and the API tokens of that sign-in are refused; another sign-in of the same user is not', async () => {
    const signIn = async (user: string) => {
      const browser = new TestBrowser()
      const back = await loginAs(browser, user)
      const code = new URL(back.location as string).searchParams.get('auth_code') as string
      return { browser, cookie: browser.cookies(base).get('svc_user')!, token: String((await exchange(code)).body.access_token) }
    }
    const me = async (token: string) => request(`${base}/api/me`, { headers: { authorization: `Bearer ${token}` } })
    const laptop = await signIn('erin')
    const phone = await signIn('erin')
    const identity = pageSideOf(app).identity!
    expect((await me(laptop.token)).statusCode).toBe(200)
    expect(await identity.user({ svc_user: laptop.cookie })).toMatchObject({ sub: 'erin' })

    const out = await laptop.browser.fetch(`${base}/api/auth/logout?return_to=/`)
    expect(out.status).toBe(302)
    // The copy taken before the sign-out opens nothing, for its whole 12 hours.
    expect(await identity.user({ svc_user: laptop.cookie })).toBeNull()
    const refused = await me(laptop.token)
    expect(refused.statusCode).toBe(401)
    expect(await refused.body.json()).toMatchObject({ error: 'unauthorized', message: 'Sign-in ended (signed out); sign in again' })
    // The same person's other sign-in (another browser) goes on.
    expect((await me(phone.token)).statusCode).toBe(200)
    expect(await identity.user({ svc_user: phone.cookie })).toMatchObject({ sub: 'erin' })
    // Signing out again, or without a cookie, is fine.
    expect((await laptop.browser.fetch(`${base}/api/auth/logout`)).status).toBe(302)
    expect((await new TestBrowser().fetch(`${base}/api/auth/logout`)).status).toBe(302)
  })

  it('comes back to the return_to page with its query, the fresh auth_code replacing any in it', async () => {
    const browser = new TestBrowser()
    const start = await browser.follow(`${base}/api/auth/login?return_to=${encodeURIComponent('/reports?x=1&auth_code=planted')}`)
    const back = await browser.submitLogin(start, 'erin', (url) => url.startsWith(`${base}/reports`))
    const target = new URL(back.location as string)
    expect(target.pathname).toBe('/reports')
    expect(target.searchParams.get('x')).toBe('1')
    expect(target.searchParams.getAll('auth_code')).toHaveLength(1)
    expect(target.searchParams.get('auth_code')).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })

  it('a named login has its own routes under /auth/<name>/', async () => {
    const hop = await new TestBrowser().fetch(`${base}/api/auth/partners/login`)
    expect(hop.status).toBe(302)
    expect(new URL(hop.location as string).searchParams.get('redirect_uri')).toBe(`${base}/api/auth/partners/callback`)
  })

  it('answers 400 to a forged or missing state', async () => {
    const forged = await new TestBrowser().fetch(`${base}/api/auth/callback?code=abc&state=forged-state-value`)
    expect(forged.status).toBe(400)
    expect(JSON.parse(forged.body)).toMatchObject({ error: 'bad_request', message: 'Invalid or expired state' })
    const missing = await new TestBrowser().fetch(`${base}/api/auth/callback?code=abc`)
    expect(JSON.parse(missing.body)).toMatchObject({ message: 'Missing code or state' })
  })

  it('refuses a callback URL replayed in another browser, and state is single use', async () => {
    const victim = new TestBrowser()
    const atCallback = await loginAs(victim, 'bob', isCallback)
    const callbackUrl = atCallback.location as string
    expect(isCallback(callbackUrl)).toBe(true)
    const other = await new TestBrowser().fetch(callbackUrl)
    expect(other.status).toBe(400)
    expect(JSON.parse(other.body).message).toMatch(/another browser/)
    expect((await victim.fetch(callbackUrl)).status).toBe(400)
  })

  it('rejects a tampered id_token', async () => {
    idp.tamperIdTokens = true
    try {
      const hop = await loginAs(new TestBrowser(), 'carol')
      expect(hop.status).toBe(502)
      expect(JSON.parse(hop.body)).toMatchObject({ error: 'idp_error', message: 'Invalid id_token' })
      expect(hop.location).toBeUndefined()
    } finally {
      idp.tamperIdTokens = false
    }
  })

  it('loadDiscoverySync() reads the discovery document of an IdP in another process', async () => {
    // A sync fetch blocks this event loop, so the IdP must live elsewhere (as it does in production).
    const other = await startDiscoveryProcess()
    try {
      const sync = new GenericOIDCClient({ issuer: other.issuer, clientId: 'x', clientSecret: 'y' }).loadDiscoverySync()
      expect(sync.discovery.token_endpoint).toBe(`${other.issuer}/token`)
      expect(sync.issuer).toBe(other.issuer)
    } finally {
      other.child.kill()
    }
  })

  it('loadDiscoverySync() fails with a clear error when the IdP is down', () => {
    const client = new GenericOIDCClient({ issuer: 'http://127.0.0.1:9', clientId: 'x', clientSecret: 'y', httpTimeoutMs: 2000 })
    expect(() => client.loadDiscoverySync()).toThrow(/OIDC discovery http:\/\/127\.0\.0\.1:9\/\.well-known\/openid-configuration failed/)
  })
})

async function startDiscoveryProcess(): Promise<{ issuer: string; child: ResultPromise }> {
  const script = `
    const http = require('node:http')
    const server = http.createServer((req, res) => {
      const issuer = 'http://127.0.0.1:' + server.address().port
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ issuer, authorization_endpoint: issuer + '/auth', token_endpoint: issuer + '/token', jwks_uri: issuer + '/jwks' }))
    })
    server.listen(0, '127.0.0.1', () => console.log('PORT ' + server.address().port))
    process.on('disconnect', () => process.exit(0))
  `
  const child = execa(process.execPath, ['-e', script], { ipc: true, reject: false })
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('discovery process did not start')), 10_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      const m = /PORT (\d+)/.exec(chunk.toString())
      if (m) {
        clearTimeout(timer)
        resolve(m[1] as string)
      }
    })
  })
  return { issuer: `http://127.0.0.1:${port}`, child }
}
