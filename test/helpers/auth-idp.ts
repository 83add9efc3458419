import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair } from 'jose'
import Provider from 'oidc-provider'
import type { Page } from 'playwright-core'
import { freePort } from './ui-sidecar.js'

export interface TestIdp {
  issuer: string
  clientId: string
  clientSecret: string
  /** Corrupt the signature of the next id_tokens the token endpoint returns. */
  tamperIdTokens: boolean
  close(): Promise<void>
}

export interface TestIdpOptions {
  redirectUris: string[]
  clientId?: string
  clientSecret?: string
}

/**
 * A real OpenID Provider (oidc-provider) on a loopback port, with its development login form
 * ("any login, any password"; the login becomes `sub`) and consent granted automatically. Every
 * account has `email` (`<login>@idp.test`) and `name` (the login capitalised); logins starting
 * with `admin` also have `roles: ['admin']`.
 */
export async function startTestIdp(options: TestIdpOptions): Promise<TestIdp> {
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const clientId = options.clientId ?? 'svc-test-client'
  const clientSecret = options.clientSecret ?? 'svc-test-client-secret-0123456789abcdef'
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'idp-key-1', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['svc-test-idp-cookie-key'] },
    features: { devInteractions: { enabled: true } },
    // Put profile claims in the id_token itself (the BFF never calls userinfo).
    conformIdTokenClaims: false,
    claims: { openid: ['sub'], email: ['email'], profile: ['name', 'roles'] },
    pkce: { required: () => true },
    // First-party test client: skip the consent screen by granting what it asks.
    loadExistingGrant: async (ctx: { oidc: { client: { clientId: string }; session: { accountId?: string }; params: { scope: string } } }) => {
      if (!ctx.oidc.session.accountId) return undefined
      const grant = new provider.Grant({ accountId: ctx.oidc.session.accountId, clientId: ctx.oidc.client.clientId })
      grant.addOIDCScope(ctx.oidc.params.scope)
      grant.addOIDCClaims(['email', 'name', 'roles'])
      await grant.save()
      return grant
    },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub, email: `${sub}@idp.test`, name: sub.charAt(0).toUpperCase() + sub.slice(1), ...(sub.startsWith('admin') ? { roles: ['admin'] } : {}) }),
    }),
  })
  const idp: TestIdp = {
    issuer,
    clientId,
    clientSecret,
    tamperIdTokens: false,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  provider.use(async (ctx, next) => {
    await next()
    const body = ctx.body as { id_token?: string } | undefined
    if (idp.tamperIdTokens && ctx.path === '/token' && typeof body?.id_token === 'string') {
      const [h, p, s] = body.id_token.split('.')
      const payload = JSON.parse(Buffer.from(p as string, 'base64url').toString())
      payload.sub = `${payload.sub}-forged`
      body.id_token = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`
    }
  })
  server.on('request', provider.callback())
  return idp
}

export interface AppIdp {
  idp: TestIdp
  /** The app's public port and origin (`http://127.0.0.1:<port>`). */
  port: number
  base: string
  /** What the svc app reads to sign in at `idp` from `base`. */
  env: Record<string, string>
}

/**
 * A test IdP for an svc app whose public port is `port` (svc's own, or a proxy's in front; a free
 * one by default: the IdP needs the app's callback before the app starts, so the port is chosen
 * first). `env` names the IdP as `<envPrefix>_ISSUER`, `_CLIENT_ID` and `_CLIENT_SECRET` (the
 * variables the app reads) beside `SVC_PUBLIC_BASE_URL` and `SVC_OIDC_BFF_SECRET`.
 */
export async function startAppIdp(app: { envPrefix: 'IDP' | 'OIDC'; bffSecret: string; port?: number }): Promise<AppIdp> {
  const port = app.port ?? (await freePort())
  const base = `http://127.0.0.1:${port}`
  const idp = await startTestIdp({ redirectUris: [`${base}/api/auth/callback`] })
  const env = {
    [`${app.envPrefix}_ISSUER`]: idp.issuer,
    [`${app.envPrefix}_CLIENT_ID`]: idp.clientId,
    [`${app.envPrefix}_CLIENT_SECRET`]: idp.clientSecret,
    SVC_PUBLIC_BASE_URL: base,
    SVC_OIDC_BFF_SECRET: app.bffSecret,
  }
  return { idp, port, base, env }
}

/** In the browser, once the app has sent it to the IdP: the development login form, as `login` (any password). */
export async function signInAtIdp(page: Page, idp: TestIdp, login: string): Promise<void> {
  await page.waitForURL((url) => url.origin === idp.issuer)
  await page.locator('input[name="login"]').fill(login)
  await page.locator('input[name="password"]').fill('any')
  await page.locator('button[type="submit"]').click()
}
