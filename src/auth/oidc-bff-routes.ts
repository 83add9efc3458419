import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from '../internal/zod.js'
import { SvcError, isSvcError, type SvcErrorCode } from '../errors.js'
import { sendAuthError } from './auth-reply.js'
import { issueAccessToken } from './issue-token.js'
import { JWTBearer } from './jwt-bearer.js'
import { loadJose } from './jose-loader.js'
import { isGenericOIDCClient } from './oidc-brand.js'
import { USER_TOKEN_AUDIENCE, resolveBffConfig, type OIDCBFFConfig, type ResolvedOIDCBFFConfig } from './oidc-bff-config.js'
import { pkceChallenge, pkceVerifier, randomToken } from './pkce.js'
import { secretBytes } from './algorithms.js'

/** What registration gives back: the guard for first-party tokens and the resolved config. */
export interface OidcLogin {
  /** Verifies the access tokens this BFF mints: `{ preHandler: login.bearer }`. */
  readonly bearer: JWTBearer
  readonly config: ResolvedOIDCBFFConfig
}

const LoginState = z.object({ v: z.string(), n: z.string(), r: z.string(), b: z.string(), t: z.string() })
const AuthCodeEntry = z.object({ access_token: z.string(), expires_in: z.number() })
const ExchangeBody = z.object({ auth_code: z.string().min(8).max(256) })
const CallbackQuery = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  error: z.string().optional(),
})

/** Cookie binding a login to the browser that started it (stops login CSRF with a stolen callback URL). */
const BIND_COOKIE = 'svc_oidc_bind'

/**
 * Add `GET {loginPath}`, `GET {callbackPath}` and `POST {exchangePath}` to `api` (paths relative
 * to the API mount). The browser never sees an IdP token: it gets a one-time `auth_code` that the
 * page exchanges server-side for a short-lived first-party access token.
 */
export function registerOidcBffRoutes(api: FastifyInstance, config: OIDCBFFConfig): OidcLogin {
  const c = resolveBffConfig(config)
  // A token of a sign-in that was signed out is refused (tokens without a sid: service tokens).
  const bearer = JWTBearer({
    issuer: c.tokenIssuer, audience: c.tokenAudience, secret: c.firstPartySecret, leewaySeconds: 0,
    isRevoked: async (claims) => typeof claims.sid === 'string' && (await c.revocations.isRevoked(claims.sid)),
  })
  const routeSchema = { schema: { tags: ['auth'] } }

  api.get(c.loginPath, routeSchema, storeGuarded(async (request, reply) => {
    const base = publicBase(request, c)
    const returnTo = safeReturnPath((request.query as Record<string, unknown>).return_to) ?? c.uiRedirectPath
    const binding = readCookie(request, BIND_COOKIE) ?? randomToken(18)
    const state = randomToken()
    const nonce = randomToken()
    const verifier = pkceVerifier()
    const redirectUri = base + c.apiMountPath + c.callbackPath
    const entry: z.infer<typeof LoginState> = { v: verifier, n: nonce, r: redirectUri, b: binding, t: returnTo }
    await c.store.set(`state:${state}`, JSON.stringify(entry), c.stateTtlSeconds)
    const location = c.provider.authorizationUrl({ redirectUri, scope: c.scope, state, nonce, codeChallenge: pkceChallenge(verifier) })
    const secure = base.startsWith('https:') ? '; Secure' : ''
    const cookiePath = new URL(base).pathname.replace(/\/$/, '') + c.apiMountPath + '/'
    reply.header('Set-Cookie', `${BIND_COOKIE}=${binding}; Path=${cookiePath}; Max-Age=${c.stateTtlSeconds}; HttpOnly; SameSite=Lax${secure}`)
    return reply.code(302).header('Cache-Control', 'no-store').header('Location', location).send()
  }))

  api.get(c.callbackPath, routeSchema, storeGuarded(async (request, reply) => {
    const q = CallbackQuery.safeParse(request.query)
    const { code, state, error } = q.success ? q.data : {}
    if (!state || (!code && !error)) return fail(request, reply, 'SVC_ERR_AUTH_BAD_STATE', 'Missing code or state')
    const raw = await c.store.take(`state:${state}`)
    const entry = raw === undefined ? undefined : LoginState.safeParse(parseJson(raw))
    if (!entry?.success) return fail(request, reply, 'SVC_ERR_AUTH_BAD_STATE', 'Invalid or expired state')
    const login = entry.data
    if (readCookie(request, BIND_COOKIE) !== login.b) {
      return fail(request, reply, 'SVC_ERR_AUTH_BAD_STATE', 'Login was started in another browser; start it again')
    }
    if (error || !code) return fail(request, reply, 'SVC_ERR_AUTH_BAD_STATE', `Identity provider refused the login: ${error ?? 'no code'}`)

    let idClaims: Record<string, unknown>
    try {
      const tokens = await c.provider.exchangeCode({ code, redirectUri: login.r, codeVerifier: login.v })
      if (typeof tokens.id_token !== 'string') return fail(request, reply, 'SVC_ERR_AUTH_IDP', 'IdP response missing id_token')
      idClaims = await idTokenClaims(c, tokens.id_token, login.n)
    } catch (err) {
      if (isSvcError(err) && err.code === 'SVC_ERR_AUTH_IDP') {
        request.log.warn({ reason: err.message }, 'oidc callback: identity provider call failed')
        return fail(request, reply, 'SVC_ERR_AUTH_IDP', 'Identity provider call failed')
      }
      // SVC_ERR_AUTH_UNAUTHORIZED is idTokenClaims' own verdict on the token: answered below.
      if (isSvcError(err) && err.code !== 'SVC_ERR_AUTH_UNAUTHORIZED') throw err
      request.log.warn({ reason: (err as Error).message }, 'oidc callback: id_token rejected')
      return fail(request, reply, 'SVC_ERR_AUTH_IDP', 'Invalid id_token')
    }
    const sub = idClaims.sub
    if (typeof sub !== 'string' || sub === '') return fail(request, reply, 'SVC_ERR_AUTH_IDP', 'id_token missing sub')

    // This sign-in's id: in the identity cookie and every API token it gets, so sign-out ends them all.
    const sid = randomToken(18)
    const accessToken = await issueAccessToken({
      subject: sub,
      issuer: c.tokenIssuer,
      audience: c.tokenAudience,
      secret: c.firstPartySecret,
      ttlSeconds: c.accessTokenTtlSeconds,
      claims: { ...(c.claimsFromIdToken?.(idClaims) ?? {}), sid },
    })
    if (c.userCookieName !== false) reply.header('Set-Cookie', await userCookie(c, request, sub, sid, idClaims))
    const authCode = randomToken()
    const stored: z.infer<typeof AuthCodeEntry> = { access_token: accessToken, expires_in: c.accessTokenTtlSeconds }
    await c.store.set(`code:${authCode}`, JSON.stringify(stored), c.authCodeTtlSeconds)
    // Back to the page and query the login started from (`st.login()` passes both); an
    // `auth_code` already in it is replaced, so only the one minted here arrives.
    const target = new URL(publicBase(request, c) + login.t)
    target.searchParams.set('auth_code', authCode)
    return reply
      .code(302)
      .header('Cache-Control', 'no-store')
      .header('Referrer-Policy', 'no-referrer')
      .header('Location', target.toString())
      .send()
  }))

  api.post(c.exchangePath, routeSchema, storeGuarded(async (request, reply) => {
    const body = ExchangeBody.safeParse(request.body)
    if (!body.success) return fail(request, reply, 'SVC_ERR_AUTH_BAD_STATE', 'Body must be JSON {"auth_code": "<code>"}')
    const raw = await c.store.take(`code:${body.data.auth_code}`)
    const entry = raw === undefined ? undefined : AuthCodeEntry.safeParse(parseJson(raw))
    if (!entry?.success) return fail(request, reply, 'SVC_ERR_AUTH_UNAUTHORIZED', 'Invalid or expired auth code')
    reply.header('Cache-Control', 'no-store')
    return { access_token: entry.data.access_token, token_type: 'Bearer', expires_in: entry.data.expires_in }
  }))

  // One sign-out route per API, shared by every login of the app (they share the identity cookie).
  if (c.userCookieName !== false && !api.hasRoute({ method: 'GET', url: c.logoutPath })) {
    const cookieName = c.userCookieName
    api.get(c.logoutPath, routeSchema, storeGuarded(async (request, reply) => {
      const base = publicBase(request, c)
      const returnTo = safeReturnPath((request.query as Record<string, unknown>).return_to) ?? c.uiRedirectPath
      // Ended for every tab, replica and copy of the cookie, not only for this browser's jar.
      const ended = await signInOf(c, readCookie(request, cookieName))
      if (ended) await c.revocations.revoke(ended.sid, ended.untilMs)
      reply.header('Set-Cookie', `${cookieName}=; ${userCookieAttributes(base)}; Max-Age=0`)
      return reply.code(302).header('Cache-Control', 'no-store').header('Location', base + returnTo).send()
    }))
  }

  return { bearer, config: c }
}

/** Path, HttpOnly, SameSite and Secure of the identity cookie: every page of the app's root path sends it. */
function userCookieAttributes(base: string): string {
  const path = new URL(base).pathname.replace(/\/$/, '') || '/'
  return `Path=${path}; HttpOnly; SameSite=Lax${base.startsWith('https:') ? '; Secure' : ''}`
}

/** Browsers drop cookies above 4096 bytes: past this, only the standard profile claims are kept. */
const MAX_USER_COOKIE_BYTES = 3800

/**
 * The identity cookie `st.user` reads: an HS256 token (audience `svc-user`, so no API accepts it
 * as a bearer) with `sub`, the login's name and the `userClaims` of the verified id_token.
 */
async function userCookie(c: ResolvedOIDCBFFConfig, request: FastifyRequest, sub: string, sid: string, idClaims: Record<string, unknown>): Promise<string> {
  const mint = async (claims: Record<string, unknown>): Promise<string> =>
    issueAccessToken({ subject: sub, issuer: c.tokenIssuer, audience: USER_TOKEN_AUDIENCE, secret: c.firstPartySecret, ttlSeconds: c.userTtlSeconds, claims: { ...claims, prv: c.name, sid } })
  const kept = Object.fromEntries(c.userClaims.filter((k) => idClaims[k] !== undefined && k !== 'prv' && k !== 'sid').map((k) => [k, idClaims[k]]))
  let token = await mint(kept)
  if (token.length > MAX_USER_COOKIE_BYTES) {
    request.log.warn({ claims: Object.keys(kept) }, 'oidc callback: the id_token claims do not fit in the identity cookie; st.user keeps name and email only')
    token = await mint({ name: kept.name, email: kept.email })
  }
  return `${c.userCookieName}=${token}; ${userCookieAttributes(publicBase(request, c))}; Max-Age=${c.userTtlSeconds}`
}

/** The sign-in an identity cookie belongs to (verified), and when the cookie expires; null for none or a bad one. */
async function signInOf(c: ResolvedOIDCBFFConfig, cookie: string | undefined): Promise<{ sid: string; untilMs: number } | null> {
  if (!cookie) return null
  const jose = await loadJose()
  try {
    const { payload } = await jose.jwtVerify(cookie, secretBytes(c.firstPartySecret, 'identity cookie'), { issuer: c.tokenIssuer, audience: USER_TOKEN_AUDIENCE, algorithms: ['HS256'] })
    return typeof payload.sid === 'string' && typeof payload.exp === 'number' ? { sid: payload.sid, untilMs: payload.exp * 1000 } : null
  } catch {
    return null
  }
}

async function idTokenClaims(c: ResolvedOIDCBFFConfig, idToken: string, nonce: string): Promise<Record<string, unknown>> {
  if (isGenericOIDCClient(c.provider)) {
    return c.provider.verifyIdToken(idToken, {
      nonce,
      leewaySeconds: c.idTokenLeewaySeconds,
      ...(c.idTokenAudience ? { audience: c.idTokenAudience } : {}),
    })
  }
  // Custom provider, explicitly allowed at registration: decode only, but still bind the nonce.
  const jose = await loadJose()
  const claims = jose.decodeJwt(idToken)
  if (claims.nonce !== undefined && claims.nonce !== nonce) throw new SvcError('SVC_ERR_AUTH_UNAUTHORIZED', 'nonce mismatch')
  return claims
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>

/** A store outage (Redis down) answers 503 in svc's error shape instead of a bare 500. */
function storeGuarded(handler: Handler): Handler {
  return async (request, reply) => {
    try {
      return await handler(request, reply)
    } catch (err) {
      if (!isSvcError(err) || err.code !== 'SVC_ERR_REDIS_UNAVAILABLE') throw err
      request.log.error({ reason: err.message }, 'oidc login: the login store is unavailable')
      return fail(request, reply, err.code, 'Login is unavailable: the shared login store does not answer; try again shortly')
    }
  }
}

function fail(request: FastifyRequest, reply: FastifyReply, code: SvcErrorCode, text: string): FastifyReply {
  return sendAuthError(request, reply, code, text)
}

function publicBase(request: FastifyRequest, c: ResolvedOIDCBFFConfig): string {
  if (c.publicBaseUrl) return c.publicBaseUrl
  return `${request.protocol}://${request.host}${c.rootPath}`
}

/** Only a same-origin absolute path may be a return target (no `//host`, no `/\host`, no scheme). */
function safeReturnPath(value: unknown): string | undefined {
  if (typeof value !== 'string' || !/^\/(?![/\\])[^\s\\]*$/.test(value) || value.length > 512) return undefined
  return value
}

function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie
  if (!header) return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}
