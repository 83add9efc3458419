import { Svc } from 'svc'
import { GenericOIDCClient, getClaims } from 'svc/auth'
import { clearAccessToken, prepareUiApiClient } from 'svc/auth/ui'

/**
 * A dashboard behind OpenID Connect login. The API route `/me` accepts the short-lived
 * first-party token the login flow mints; the page signs in, exchanges the one-time code and
 * shows who you are. Configure the IdP with OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET.
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

const loginHref = `${app.settings.root_path}${app.settings.api_mount_path}/auth/login`

app.page('/', { title: 'Who am I', icon: '🔐' }, async (st, client) => {
  st.title('Who am I')
  let api
  try {
    api = await prepareUiApiClient(st, client)
  } catch {
    st.error('That sign-in link has expired or was already used.')
    st.link('Sign in again', loginHref)
    return
  }
  const res = await api.get('/me')
  if (res.status === 401) {
    st.markdown('You are not signed in.')
    st.link('Sign in', loginHref)
    return
  }
  const me = (await res.json()) as { sub: string }
  st.success(`Signed in as ${me.sub}`)
  if (st.button('Sign out')) {
    clearAccessToken(st)
    st.rerun()
  }
})
