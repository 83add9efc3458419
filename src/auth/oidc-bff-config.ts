import { SvcError } from '../errors.js'
import { secretBytes } from './algorithms.js'
import { DEFAULT_ACCESS_TOKEN_TTL_S } from './issue-token.js'
import { isGenericOIDCClient } from './oidc-brand.js'
import type { OIDCProvider } from './oidc-client.js'
import { MemoryOidcBffStore, type OidcBffStore } from './oidc-store.js'
import { SessionRevocations } from './session-revocations.js'

export interface OIDCBFFConfig {
  /** The identity provider: a `GenericOIDCClient` with discovery loaded, or a custom `OIDCProvider`. */
  provider: OIDCProvider
  /**
   * Public origin plus `root_path`, e.g. `https://apps.example.com/portal`. The IdP callback is
   * `{publicBaseUrl}{apiMountPath}{callbackPath}`. Empty: derived per request from Host and
   * protocol (warns: a spoofed Host then steers the redirect).
   */
  publicBaseUrl: string
  /** HMAC secret (≥ 32 bytes) for the first-party access tokens; `SVC_OIDC_BFF_SECRET` via attachOidcLogin. */
  firstPartySecret: string
  /** Default `/api`. */
  apiMountPath?: string
  /** Public prefix used when publicBaseUrl is empty (default ''). */
  rootPath?: string
  loginPath?: string
  callbackPath?: string
  exchangePath?: string
  /** Scopes requested from the IdP (default `openid profile email`). */
  scope?: string
  /** UI path the browser returns to with `?auth_code=` (default `/`); `?return_to=/x` on login overrides it. */
  uiRedirectPath?: string
  tokenIssuer?: string
  tokenAudience?: string
  accessTokenTtlSeconds?: number
  stateTtlSeconds?: number
  authCodeTtlSeconds?: number
  /** `aud` expected in the id_token (default the client id). */
  idTokenAudience?: string
  idTokenLeewaySeconds?: number
  /**
   * Required for a provider other than GenericOIDCClient: svc then reads `sub` from the id_token
   * WITHOUT verifying it. Only for providers that verified the token themselves, or tests.
   */
  allowUnverifiedIdTokenForCustomOidc?: boolean
  /** Login state and auth-code store; default in-memory (single replica). */
  store?: OidcBffStore
  /** Extra claims for the first-party token, from the verified id_token claims (e.g. email, roles). */
  claimsFromIdToken?: (idClaims: Record<string, unknown>) => Record<string, unknown>
  /** The login's name for `st.login(name)` when an app has several (default `default`). */
  name?: string
  /** `GET` route that signs the browser out (clears the identity cookie), relative to the mount. */
  logoutPath?: string
  /**
   * The identity cookie the callback sets for `st.user` (HttpOnly, signed with `firstPartySecret`,
   * audience `svc-user`); `false` sets none.
   */
  userCookieName?: string | false
  /** How long a sign-in lasts for `st.user` (the identity cookie), default 12 h. */
  userTtlSeconds?: number
  /** id_token claims kept in the identity cookie (`st.user.claims`). */
  userClaims?: readonly string[]
  /**
   * Where sign-outs are recorded and checked (docs/auth.md#sign-out); `attachOidcLogin` passes
   * the app's (shared through Redis with `redis_url`). Default: this process only.
   */
  revocations?: SessionRevocations
}

export type ResolvedOIDCBFFConfig = Readonly<
  Required<Omit<OIDCBFFConfig, 'idTokenAudience' | 'claimsFromIdToken'>> &
    Pick<OIDCBFFConfig, 'idTokenAudience' | 'claimsFromIdToken'>
>

/** Audience of the identity cookie's token: never accepted where an API access token is expected. */
export const USER_TOKEN_AUDIENCE = 'svc-user'
/** The claims `st.user` keeps by default (when the id_token has them). */
export const DEFAULT_USER_CLAIMS = ['name', 'email', 'email_verified', 'preferred_username', 'given_name', 'family_name', 'picture', 'locale', 'roles', 'groups'] as const

export const OIDC_BFF_DEFAULTS = {
  apiMountPath: '/api',
  rootPath: '',
  loginPath: '/auth/login',
  callbackPath: '/auth/callback',
  exchangePath: '/auth/exchange',
  scope: 'openid profile email',
  uiRedirectPath: '/',
  tokenIssuer: 'svc-bff',
  tokenAudience: 'svc-app',
  accessTokenTtlSeconds: DEFAULT_ACCESS_TOKEN_TTL_S, // 15 min: only a short-lived token reaches the page
  stateTtlSeconds: 600,
  authCodeTtlSeconds: 120,
  idTokenLeewaySeconds: 0,
  allowUnverifiedIdTokenForCustomOidc: false,
  name: 'default',
  logoutPath: '/auth/logout',
  userCookieName: 'svc_user',
  userTtlSeconds: 12 * 3600, // a working day; the IdP's own session may sign the user in again without a prompt
  userClaims: DEFAULT_USER_CLAIMS,
} as const

const WHERE = 'registerOidcBffRoutes()'

export function resolveBffConfig(config: OIDCBFFConfig): ResolvedOIDCBFFConfig {
  const c = { ...OIDC_BFF_DEFAULTS, ...stripUndefined(config) }
  if (!c.provider) throw new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: provider is required`)
  secretBytes(c.firstPartySecret ?? '', `${WHERE} firstPartySecret (SVC_OIDC_BFF_SECRET)`)
  if (isGenericOIDCClient(c.provider)) {
    // Throws the teaching error now, at start-up, instead of on the first login.
    void c.provider.discovery
  } else if (!c.allowUnverifiedIdTokenForCustomOidc) {
    throw new SvcError(
      'SVC_ERR_AUTH_CONFIG',
      `${WHERE}: a custom OIDC provider's id_token cannot be verified by svc; use GenericOIDCClient, or pass ` +
        'allowUnverifiedIdTokenForCustomOidc: true only if your provider verified the id_token itself (or in tests)',
    )
  }
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(c.name)) throw new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: name must be 1-64 letters, digits, "_" or "-", got ${JSON.stringify(c.name)}`)
  if (c.userCookieName !== false && !/^[A-Za-z0-9_-]{1,64}$/.test(c.userCookieName)) {
    throw new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: userCookieName must be a cookie name of letters, digits, "_" or "-", got ${JSON.stringify(c.userCookieName)}`)
  }
  if (!Number.isInteger(c.userTtlSeconds) || c.userTtlSeconds <= 0) throw new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: userTtlSeconds must be a positive whole number of seconds, got ${String(c.userTtlSeconds)}`)
  for (const key of ['loginPath', 'callbackPath', 'exchangePath', 'uiRedirectPath', 'logoutPath'] as const) {
    if (!c[key].startsWith('/')) throw new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: ${key} must start with "/", got ${JSON.stringify(c[key])}`)
  }
  const publicBaseUrl = c.publicBaseUrl.trim().replace(/\/+$/, '')
  if (publicBaseUrl !== '') {
    let url: URL
    try {
      url = new URL(publicBaseUrl)
    } catch (err) {
      throw new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: publicBaseUrl ${JSON.stringify(publicBaseUrl)} is not an absolute URL (SVC_PUBLIC_BASE_URL)`, { cause: err })
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: publicBaseUrl must be http(s), got ${url.protocol}`)
    }
    if (url.search || url.hash) throw new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: publicBaseUrl must not have a query or fragment`)
  } else {
    process.emitWarning(
      `${WHERE}: public base URL is empty; the OIDC redirect URI will be derived from each request's Host header. ` +
        'Set SVC_PUBLIC_BASE_URL (e.g. https://apps.example.com) so redirects cannot be steered by a spoofed Host.',
      'UserWarning',
    )
  }
  return Object.freeze({ ...c, publicBaseUrl, store: c.store ?? new MemoryOidcBffStore(), revocations: c.revocations ?? new SessionRevocations() })
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T
}
