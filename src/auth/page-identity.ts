import { SvcError } from '../errors.js'
import type { PageIdentity, SignedInUser } from './user.js'
import { secretBytes } from './algorithms.js'
import { loadJose } from './jose-loader.js'
import { USER_TOKEN_AUDIENCE, type ResolvedOIDCBFFConfig } from './oidc-bff-config.js'

/**
 * The app's logins as pages see them (`st.user`, `st.login()`, `st.logout()`): reads the
 * identity cookie the OIDC callback sets, verified with the login's first-party secret, and
 * builds the login and logout URLs. Every replica with the same `SVC_OIDC_BFF_SECRET` reads the
 * same cookie, so a browser stays signed in whichever replica serves its page socket, until the
 * sign-in is signed out (session-revocations.ts): then every check of it fails, everywhere.
 */
export class OidcPageIdentity implements PageIdentity {
  readonly #logins: ResolvedOIDCBFFConfig[] = []
  readonly #apiMountPath: string
  /** The sign-in (sid) of each user this identity read from a cookie. */
  readonly #sessions = new WeakMap<SignedInUser, { sid: string; login: ResolvedOIDCBFFConfig }>()

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
      // A cookie without a sign-in id (minted before sign-out could end it) counts as signed out.
      const sid = payload.sid
      if (typeof sid !== 'string' || (await ended(login, sid))) return null
      const user = signedInUser(login.name, payload as Record<string, unknown>)
      this.#sessions.set(user, { sid, login })
      return user
    } catch {
      // Expired, forged or signed with another secret: signed out, as without a cookie.
      return null
    }
  }

  async stillSignedIn(user: SignedInUser): Promise<boolean> {
    const session = this.#sessions.get(user)
    return session !== undefined && user.expiresAt.getTime() > Date.now() && !(await ended(session.login, session.sid))
  }

  sessionOf(user: SignedInUser): string | null {
    return this.#sessions.get(user)?.sid ?? null
  }

  onSignOut(listener: (sid: string) => void): () => void {
    const stops = [...new Set(this.#logins.map((l) => l.revocations))].map((r) => r.onRevoked(listener))
    return () => {
      for (const stop of stops) stop()
    }
  }

  #first(): ResolvedOIDCBFFConfig {
    const first = this.#logins[0]
    if (!first) throw new SvcError('SVC_ERR_AUTH_CONFIG', 'bug: a page identity without a login')
    return first
  }
}

/** Whether sign-in `sid` was signed out; when the shared store does not answer, it counts as signed out. */
async function ended(login: ResolvedOIDCBFFConfig, sid: string): Promise<boolean> {
  return login.revocations.isRevoked(sid).catch(() => true)
}

const REGISTERED = new Set(['iss', 'aud', 'iat', 'exp', 'nbf', 'jti', 'prv', 'sid'])

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
