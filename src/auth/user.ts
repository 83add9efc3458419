/**
 * `st.user`: who is signed in to this browser, from the OIDC login (`app.attachOidcLogin`,
 * docs/auth.md#the-signed-in-user-in-pages). A discriminated union: `if (st.user.isLoggedIn)`
 * narrows to the signed-in shape.
 */

export interface SignedOutUser {
  readonly isLoggedIn: false
}

export interface SignedInUser {
  readonly isLoggedIn: true
  /** The IdP's subject: stable, unique per provider. */
  readonly sub: string
  /** The login that signed the user in (`'default'`, or the `name` given to `attachOidcLogin`). */
  readonly provider: string
  readonly name: string | null
  readonly email: string | null
  /** `roles` of the id_token (a list of strings; a single string is one role), else empty. */
  readonly roles: readonly string[]
  /** Every claim the login kept from the id_token (`userClaims`), e.g. `picture`, `groups`, `email_verified`. */
  readonly claims: Readonly<Record<string, unknown>>
  /** When the sign-in ends (the identity cookie's expiry): `st.user` is signed out from then on. */
  readonly expiresAt: Date
}

export type StUser = SignedOutUser | SignedInUser

export const SIGNED_OUT: SignedOutUser = Object.freeze({ isLoggedIn: false })

/** What the page runtime needs of the app's login: reading the identity cookie and the login URLs. */
export interface PageIdentity {
  /** Providers by name, the first one the default of `st.login()`. */
  readonly providers: readonly string[]
  /** The identity cookie's name (`svc_user`). */
  readonly cookieName: string
  /** The user of a page socket's cookies: null when there is no valid, unexpired identity cookie, or its sign-in was signed out. */
  user(cookies: Readonly<Record<string, string>>): Promise<SignedInUser | null>
  /** Whether a user `user()` returned is still signed in (not expired, not signed out since). */
  stillSignedIn(user: SignedInUser): Promise<boolean>
  /** The sign-in a user `user()` returned belongs to (its sid), or null. */
  sessionOf(user: SignedInUser): string | null
  /** `listener(sid)` whenever a sign-in is signed out (here, in the tree or on another replica); returns the unsubscribe. */
  onSignOut(listener: (sid: string) => void): () => void
  /** App-relative URL (no root path) that starts the login of `provider` and comes back to `returnTo`. */
  loginUrl(provider: string, returnTo: string): string
  /** App-relative URL that clears the identity cookie and comes back to `returnTo`. */
  logoutUrl(returnTo: string): string
  /** `POST {exchange}` path (relative to the API) that turns `?auth_code=` into the API access token. */
  readonly exchangePath: string
}
