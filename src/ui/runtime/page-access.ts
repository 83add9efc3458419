import type { Logger } from 'pino'
import type { ApiClient } from '../../client/api-client.js'
import { SIGNED_OUT, type PageIdentity, type StUser } from '../../auth/user.js'
import { DEFAULT_AUTH_CODE_QUERY_KEY, clearAccessToken, exchangeAuthCodeFromQuery } from '../../auth/ui.js'
import { visiblePages, type NavigationFn } from '../navigation.js'
import type { PageDirectory, ResolvedPage } from '../page-directory.js'
import type { PageMeta } from '../page-meta.js'
import type { NavEntry } from '../wire/protocol.js'
import type { QueryState } from '../st/query-params.js'
import type { St, StContext } from '../st-types.js'

export interface PageAccessOptions {
  /** The app's login (`st.user`, `st.login()`); read on every run. */
  identity?: () => PageIdentity | null
  client: ApiClient
  logger: Logger
}

/** What a page hidden from this session by `app.navigation` is called instead of its title. */
export const NOT_AVAILABLE_META: PageMeta = Object.freeze({ pageTitle: 'Not available', layout: 'centered' })

/** What of its session a page run's sign-in reads and writes: the handshake's cookies, `st.sessionState`, the query. */
export interface AccessScope {
  readonly context: StContext
  readonly state: Record<string, unknown>
  readonly query: QueryState
}

/**
 * Who the visitor of one page session is (`st.user`) and what they may see: the identity cookie
 * read at the start of each run, the `?auth_code=` of a login exchanged for the API token, a
 * sign-out elsewhere, the pages `app.navigation` lets them see, and the page shown in place of
 * one it hides (with the way in when signing in may help).
 */
export class PageAccess {
  /** `st.user` of the current run, read from the socket's identity cookie at the start of each page run. */
  user: StUser = SIGNED_OUT
  readonly #opts: PageAccessOptions
  /** The identity cookie `user` was read from (verified once per value). */
  #userCookie: string | undefined = undefined
  /** A user set by the test handle instead of the cookie. */
  #testUser: StUser | null = null

  constructor(options: PageAccessOptions) {
    this.#opts = options
  }

  get identity(): PageIdentity | null {
    return this.#opts.identity?.() ?? null
  }

  /** The test handle's `user` option: this user instead of the identity cookie (null: the cookie again). */
  setTestUser(user: StUser | null): void {
    this.#testUser = user
  }

  /** At the start of a page run: a login's `?auth_code=` exchanged, then `st.user` read. */
  async beginRun(scope: AccessScope): Promise<StUser> {
    await this.#exchangeAuthCode(scope)
    this.user = await this.#readUser(scope.context)
    return this.user
  }

  /**
   * Sign-in `sid` was signed out (in another tab, on another replica): true when it is this
   * session's, whose API token then goes from `state`.
   */
  signedOut(sid: string, state: Record<string, unknown>): boolean {
    if (!this.user.isLoggedIn || this.identity?.sessionOf(this.user) !== sid) return false
    clearAccessToken({ sessionState: state })
    return true
  }

  /** The pages this run may show: all, or those `app.navigation` lets this visitor see. */
  visiblePages(dir: PageDirectory, navigation: NavigationFn | null, scope: AccessScope): Promise<readonly ResolvedPage[]> {
    return visiblePages(dir, navigation, { user: this.user, context: scope.context, sessionState: scope.state })
  }

  /** A page `app.navigation` hides from this session: said plainly, with the way in when signing in may help. */
  notAvailable(st: St, path: string, home: NavEntry | undefined): void {
    st.title('Not available')
    st.markdown(`The page \`${path}\` is not available to you.`)
    const identity = this.identity
    if (identity && !this.user.isLoggedIn) {
      st.markdown('You are not signed in; signing in may give you access.')
      st.link('Sign in', identity.loginUrl(identity.providers[0]!, path), { newTab: false })
    }
    if (home) st.link(`Go to ${home.title}`, home.path, { newTab: false })
  }

  /** `st.user` from the socket's identity cookie (or the test handle's user). */
  async #readUser(context: StContext): Promise<StUser> {
    if (this.#testUser) return this.#testUser
    const identity = this.identity
    if (!identity) return SIGNED_OUT
    const cookie = context.cookies[identity.cookieName]
    // The cookie's signature is checked once per value; whether it was signed out since, on every run.
    if (cookie === this.#userCookie) return this.user.isLoggedIn && !(await identity.stillSignedIn(this.user)) ? SIGNED_OUT : this.user
    this.#userCookie = cookie
    return cookie === undefined ? SIGNED_OUT : ((await identity.user(context.cookies)) ?? SIGNED_OUT)
  }

  /** Back from the login with `?auth_code=`: take the one-time code out of the URL and exchange it for the API token. */
  async #exchangeAuthCode(scope: AccessScope): Promise<void> {
    const identity = this.identity
    if (!identity || !scope.query.has(DEFAULT_AUTH_CODE_QUERY_KEY)) return
    try {
      await exchangeAuthCodeFromQuery({ sessionState: scope.state, queryParams: scope.query }, this.#opts.client, { exchangePath: identity.exchangePath })
    } catch (err) {
      this.#opts.logger.warn({ reason: (err as Error).message }, 'ui could not exchange the auth_code of a login; the page runs without the API token')
    }
  }
}
