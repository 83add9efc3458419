import { SvcError } from '../errors.js'
import type { PageIdentity, SignedInUser } from './user.js'
import { secretBytes } from './algorithms.js'
import { loadJose } from './jose-loader.js'
import { USER_TOKEN_AUDIENCE, type ResolvedOIDCBFFConfig } from './oidc-bff-config.js'

/**
 * The app's logins as pages see them (`st.user`, `st.login()`, `st.logout()`): reads the
 * identity cookie the OIDC callback sets, verified with the login's first-party secret, and
 * builds the login and logout URLs. Stateless: every replica with the same `SVC_OIDC_BFF_SECRET`
 * reads the same cookie, so a browser stays signed in whichever replica serves its page socket.
 */
export class OidcPageIdentity implements PageIdentity {
  readonly #logins: ResolvedOIDCBFFConfig[] = []
  readonly #apiMountPath: string

  constructor(apiMountPath: string) {
    this.#apiMountPath = apiMountPath
  }

  /** One more login of the app; they share the identity cookie, so its name must be the same. */
  add(login: ResolvedOIDCBFFConfig): void {
    const first = this.#logins[0]
    if (login.userCookieName === false) return
    if (first && first.userCookieName !== login.userCookieName) {
      throw new SvcError('SVC_ERR_AUTH_CONFIG', `attachOidcLogin(): the logins of one app share the identity cookie; "${login.name}" names it ${JSON.stringify(login.userCookieName)}, "${first.name}" ${JSON.stringify(first.userCookieName)}`)
    }
    this.#logins.push(login)
  }

  get providers(): string[] {
    return this.#logins.map((l) => l.name)
  }

  get cookieName(): string {
    return this.#first().userCookieName as string
  }

  get exchangePath(): string {
    return this.#first().exchangePath
  }

  loginUrl(provider: string, returnTo: string): string {
    const login = this.#logins.find((l) => l.name === provider) ?? this.#first()
    return `${this.#apiMountPath}${login.loginPath}?return_to=${encodeURIComponent(returnTo)}`
  }

  logoutUrl(returnTo: string): string {
    return `${this.#apiMountPath}${this.#first().logoutPath}?return_to=${encodeURIComponent(returnTo)}`
  }

  async user(cookies: Readonly<Record<string, string>>): Promise<SignedInUser | null> {
    const token = cookies[this.cookieName]
    if (!token) return null
    const jose = await loadJose()
    let provider: unknown
    try {
      provider = jose.decodeJwt(token).prv
    } catch {
      return null
    }
    const login = this.#logins.find((l) => l.name === provider)
    if (!login) return null
    try {
      const { payload } = await jose.jwtVerify(token, secretBytes(login.firstPartySecret, 'identity cookie'), {
        issuer: login.tokenIssuer,
        audience: USER_TOKEN_AUDIENCE,
        algorithms: ['HS256'],
      })
      return signedInUser(login.name, payload as Record<string, unknown>)
    } catch {
      // Expired, forged or signed with another secret: signed out, as without a cookie.
      return null
    }
  }

  #first(): ResolvedOIDCBFFConfig {
    const first = this.#logins[0]
    if (!first) throw new SvcError('SVC_ERR_AUTH_CONFIG', 'bug: a page identity without a login')
    return first
  }
}

const REGISTERED = new Set(['iss', 'aud', 'iat', 'exp', 'nbf', 'jti', 'prv'])

function signedInUser(provider: string, payload: Record<string, unknown>): SignedInUser {
  const claims = Object.fromEntries(Object.entries(payload).filter(([k]) => !REGISTERED.has(k)))
  const roles = payload.roles
  return Object.freeze({
    isLoggedIn: true,
    sub: String(payload.sub),
    provider,
    name: typeof payload.name === 'string' ? payload.name : null,
    email: typeof payload.email === 'string' ? payload.email : null,
    roles: Object.freeze(typeof roles === 'string' ? [roles] : Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : []),
    claims: Object.freeze(claims),
    expiresAt: new Date(Number(payload.exp) * 1000),
  })
}
