import { Svc } from 'svc'
import { GenericOIDCClient, getClaims } from 'svc/auth'
import { prepareUiApiClient } from 'svc/auth/ui'

/**
 * A dashboard behind OpenID Connect login. The page reads who is signed in (`st.user`), signs in
 * and out (`st.login()`, `st.logout()`), and calls the API route `/me`, which accepts the
 * short-lived first-party token the login flow mints. Configure the IdP with OIDC_ISSUER,
 * OIDC_CLIENT_ID, OIDC_CLIENT_SECRET.
 */
export const app = new Svc({ title: 'Auth dashboard' })

function required(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`examples/auth: set ${name} (see examples/auth/README.md)`)
  return value
}

const oidc = new GenericOIDCClient({
  issuer: required('OIDC_ISSUER'),
  clientId: required('OIDC_CLIENT_ID'),
  clientSecret: required('OIDC_CLIENT_SECRET'),
})
// Top-level await: the module finishes loading once the provider's discovery document is in.
await oidc.loadDiscovery()

// Public base URL from SVC_PUBLIC_BASE_URL, token secret from SVC_OIDC_BFF_SECRET.
const login = app.attachOidcLogin(oidc)

app.api.get('/me', { preHandler: login.bearer }, async (req) => ({ sub: getClaims(req).sub }))

app.page('/', { title: 'Who am I', icon: '🔐' }, async (st, client) => {
  st.title('Who am I')
  // st.user comes from the identity cookie the login sets: every tab of the browser sees it.
  if (!st.user.isLoggedIn) {
    st.markdown('You are not signed in.')
    if (st.button('Sign in', { type: 'primary' })) st.login()
    return
  }
  st.success(`Signed in as ${st.user.sub}`)
  if (st.user.email) st.caption(st.user.email)
  // The API token of this page session (the tab that came back from the login), if it has one.
  const api = await prepareUiApiClient(st, client)
  const res = await api.get('/me')
  st.text(res.ok ? `The API says: ${((await res.json()) as { sub: string }).sub}` : 'The API token of this tab has expired; sign in again to call the API.')
  if (st.button('Sign out')) st.logout()
})
