import { afterEach, describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { issueAccessToken, type OIDCProvider } from '../../../src/auth/index.js'
import { buildPageManifest } from '../../../src/cli/pages/manifest.js'
import { createUiTestHandle } from '../../../src/testing/app-test.js'
import type { NavEntry, ServerMessage } from '../../../src/ui/wire/protocol.js'

const SECRET = 'page-identity-secret-0123456789abcdef-01'
const provider: OIDCProvider = { clientId: 'c', authorizationUrl: () => 'https://idp.test/authorize', exchangeCode: async () => ({ id_token: 'x.y.z' }) }

const apps: Svc<undefined>[] = []
afterEach(async () => {
  for (const app of apps.splice(0)) await app.api.close()
})

/** Pages in sections; `/admin` for role admin, `/account` for anyone signed in; page runs counted. */
function opsApp(options: { login?: boolean } = {}) {
  const app = new Svc({ title: 'Ops', public_base_url: 'https://ops.test', oidc_bff_secret: SECRET, log_level: 'fatal' })
  apps.push(app)
  const runs: string[] = []
  app.page('/overview', { title: 'Overview', section: 'Reports' }, () => void runs.push('overview'))
  app.page('/sales', { title: 'Sales', section: 'Reports' }, () => void runs.push('sales'))
  app.page('/help', { title: 'Help' }, () => void runs.push('help'))
  app.page('/account', { title: 'Account', section: 'You' }, (st) => {
    runs.push('account')
    st.text(st.user.isLoggedIn ? `signed in as ${st.user.sub} (${st.user.email ?? 'no email'})` : 'signed out')
    if (st.button('Sign out')) st.logout()
  })
  app.page('/admin', { title: 'Admin', section: 'Admin', tags: ['admin'] }, () => void runs.push('admin'))
  app.page('/', { title: 'Start' }, (st) => {
    runs.push('start')
    if (st.button('Go admin')) st.switchPage('/admin')
    if (st.button('Sign in')) st.login()
    if (st.button('Partners')) st.login('partners')
  })
  app.navigation(({ user, pages }) =>
    pages.filter((p) => (p.section !== 'Admin' || (user.isLoggedIn && user.roles.includes('admin'))) && (p.section !== 'You' || user.isLoggedIn)),
  )
  if (options.login !== false) app.attachOidcLogin(provider, { allowUnverifiedIdTokenForCustomOidc: true })
  return { app, runs }
}

function lastNav(messages: readonly ServerMessage[]): NavEntry[] {
  const render = messages.findLast((m) => m.type === 'render')
  if (render?.type !== 'render') throw new Error('no render')
  return render.nav
}

describe('sections and app.navigation', () => {
  it('groups the sidebar by section in order of each first page, and hides what navigation leaves out', async () => {
    const { app } = opsApp()
    const at = await createUiTestHandle(app, { target: '/help' }).run()
    expect(lastNav(at.messages).map((e) => [e.section ?? null, e.path])).toEqual([
      ['Reports', '/overview'],
      ['Reports', '/sales'],
      [null, '/help'],
      [null, '/'],
    ])
    at.setUser({ sub: 'ada', roles: ['admin'] })
    await at.run()
    expect(lastNav(at.messages).map((e) => e.path)).toEqual(['/overview', '/sales', '/help', '/', '/account', '/admin'])
  })

  it('a hidden page answers "Not available" (with a way to sign in) and never runs; it runs once allowed', async () => {
    const { app, runs } = opsApp()
    const at = await createUiTestHandle(app, { target: '/admin' }).run()
    expect(runs).toEqual([])
    expect(at.page).toMatchObject({ path: '/admin', title: 'Not available' })
    expect(at.title[0]!.value).toBe('Not available')
    expect(at.link.map((l) => [l.props.label, l.props.href])).toEqual([
      ['Sign in', '/api/auth/login?return_to=%2Fadmin'],
      ['Go to Overview', '/overview'],
    ])
    at.setUser({ sub: 'bob', roles: [] })
    await at.run()
    expect(runs).toEqual([])
    expect(at.link.map((l) => l.props.label)).toEqual(['Go to Overview'])
    at.setUser({ sub: 'root', roles: ['admin'] })
    await at.run()
    expect(runs).toEqual(['admin'])
    expect(at.page?.title).toBe('Admin')
  })

  it('st.switchPage to a hidden page shows "not available" there, not a crash', async () => {
    const { app, runs } = opsApp()
    const at = await createUiTestHandle(app).run()
    await at.button('Go admin').click().run()
    expect(at.page).toMatchObject({ path: '/admin', title: 'Not available' })
    expect(at.exception).toEqual([])
    expect(runs).toEqual(['start', 'start'])
  })

  it('`/` without a page of its own shows the first visible page; a navigation error hides everything and shows the error', async () => {
    const app = new Svc({ title: 'x', log_level: 'fatal' })
    apps.push(app)
    app.page('/secret', { title: 'Secret' }, (st) => st.text('secret'))
    app.page('/public', { title: 'Public' }, (st) => st.text('public'))
    let fail = false
    app.navigation(({ pages }) => (fail ? ['/nope'] : pages.filter((p) => p.path !== '/secret')))
    const at = await createUiTestHandle(app).run()
    expect(at.text[0]!.value).toBe('public')
    fail = true
    await at.run()
    expect(String(at.exception[0]!.props.message)).toMatch(/app.navigation\(\): "\/nope" is not the path of a registered page/)
    expect(lastNav(at.messages)).toEqual([])
    expect(at.text).toEqual([])
  })

  it('svc pages manifest lists every page with its section, hidden or not', () => {
    const { app } = opsApp()
    expect(buildPageManifest(app).pages.map((p) => [p.path, p.section])).toEqual([
      ['/overview', 'Reports'],
      ['/sales', 'Reports'],
      ['/help', null],
      ['/account', 'You'],
      ['/admin', 'Admin'],
      ['/', null],
    ])
  })
})

describe('st.user, st.login, st.logout', () => {
  const cookie = (claims: Record<string, unknown>, over: { audience?: string; ttlSeconds?: number; secret?: string } = {}) =>
    issueAccessToken({ subject: 'ada', issuer: 'svc-bff', audience: over.audience ?? 'svc-user', secret: over.secret ?? SECRET, ttlSeconds: over.ttlSeconds ?? 600, claims: { prv: 'default', ...claims } })

  it('reads the identity cookie of the socket: typed claims; a forged, foreign or API token is signed out', async () => {
    const { app } = opsApp()
    const ok = await createUiTestHandle(app, { target: '/account', cookies: { svc_user: await cookie({ sid: 'sign-in-0123456789abcd', email: 'ada@example.com', roles: 'admin', picture: 'https://x/p.png' }) } }).run()
    expect(ok.text[0]!.value).toBe('signed in as ada (ada@example.com)')
    // A cookie without a sign-in id (minted before sign-out could end it) is signed out too.
    for (const bad of [await cookie({ sid: 'sign-in-0123456789abcd' }, { audience: 'svc-app' }), await cookie({ sid: 'sign-in-0123456789abcd' }, { secret: 'another-secret-0123456789abcdef-0123' }), 'not-a-jwt', await cookie({})]) {
      const at = await createUiTestHandle(app, { target: '/account', cookies: { svc_user: bad } }).run()
      expect(at.page?.title).toBe('Not available')
    }
  })

  it('a sign-out ends the sign-in for every session on its next run, and its cookie from then on (open pages rerun at once: e2e)', async () => {
    const { app } = opsApp()
    const svc_user = await cookie({ sid: 'sign-in-ended-0123456789' })
    const tabA = await createUiTestHandle(app, { target: '/account', cookies: { svc_user } }).run()
    const tabB = await createUiTestHandle(app, { target: '/account', cookies: { svc_user } }).run()
    expect(tabB.text[0]!.value).toBe('signed in as ada (no email)')
    const other = await createUiTestHandle(app, { target: '/account', cookies: { svc_user: await cookie({ sid: 'another-sign-in-0123456' }) } }).run()
    await app.sessionRevocations.revoke('sign-in-ended-0123456789', Date.now() + 600_000)
    await tabB.run()
    expect(tabB.page?.title).toBe('Not available')
    await tabA.run()
    expect(tabA.page?.title).toBe('Not available')
    const copy = await createUiTestHandle(app, { target: '/account', cookies: { svc_user } }).run()
    expect(copy.page?.title).toBe('Not available')
    await other.run()
    expect(other.text[0]!.value).toBe('signed in as ada (no email)')
  })

  it('st.login() sends the browser to the login with this page to come back to; st.logout() to the sign-out route', async () => {
    const { app } = opsApp()
    const at = await createUiTestHandle(app, { queryParams: { tab: '2' } }).run()
    await at.button('Sign in').click().run()
    expect(at.redirect).toBe('/api/auth/login?return_to=%2F%3Ftab%3D2')
    await at.run()
    expect(at.redirect).toBeNull()
    await at.button('Partners').click().run()
    expect(String(at.exception[0]!.props.message)).toMatch(/st.login\("partners"\): no login named so; this app has "default"/)

    at.setUser({ sub: 'ada' }).switchPage('/account')
    await at.run()
    at.sessionState.svc_access_token = 'token-of-the-session'
    await at.button('Sign out').click().run()
    expect(at.redirect).toBe('/api/auth/logout?return_to=%2Faccount')
    expect(at.sessionState.svc_access_token).toBeUndefined()
  })

  it('without a login, st.user is signed out and st.login() says how to add one', async () => {
    const { app } = opsApp({ login: false })
    const at = await createUiTestHandle(app).run()
    await at.button('Sign in').click().run()
    expect(String(at.exception[0]!.props.message)).toMatch(/st.login\(\): this app has no login; call app.attachOidcLogin\(client\)/)
  })
})
