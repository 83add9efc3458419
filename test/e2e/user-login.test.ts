import { existsSync, mkdirSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import type { ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { collectPageErrors, launchBrowser, screenshot } from '../helpers/e2e-browser.js'
import { startSvc as startE2eSvc, type SvcRun } from '../helpers/e2e-svc.js'
import { signInAtIdp, startAppIdp, type AppIdp, type TestIdp } from '../helpers/auth-idp.js'
import { NGINX, runNginx, stopNginx } from '../helpers/nginx.js'
import { hasRedis, RedisServer } from '../helpers/redis-server.js'
import { REPO, startSvc, stopAllTrees } from '../helpers/svc-process.js'
import { freePort, PageClient } from '../helpers/ui-sidecar.js'

/**
 * #25.6 and #25.8 in Chromium against a real IdP (oidc-provider on loopback) and real svc trees:
 * st.user, st.login(), st.logout(), sections and pages chosen per user by app.navigation; then
 * the same login across two replicas sharing Redis behind a round-robin nginx.
 */
const TARGET = 'test/e2e/fixtures/user-app.ts:app'
const SECRET = 'e2e-user-bff-secret-0123456789abcdef-012345'

async function sidebar(page: Page): Promise<string[]> {
  await page.locator('.svc-nav').waitFor()
  return page.locator('.svc-nav').evaluate((nav) =>
    [...nav.querySelectorAll('.svc-nav-section, .svc-nav-title')].map((e) => (e.classList.contains('svc-nav-section') ? `[${e.textContent}]` : (e.textContent ?? ''))),
  )
}

async function bothThemes(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    await page.waitForFunction((s) => document.documentElement.dataset.theme === s, scheme)
    await screenshot(page, `${name}-${scheme}`)
  }
}

describe('st.user, st.login, st.logout and app.navigation in Chromium (oidc-provider, svc run)', () => {
  let idp: TestIdp
  let svc: SvcRun
  let browser: Browser
  let base: string

  beforeAll(async () => {
    const app = await startAppIdp({ envPrefix: 'IDP', bffSecret: SECRET })
    ;({ idp, base } = app)
    ;[svc, browser] = await Promise.all([startE2eSvc(TARGET, ['--port', String(app.port), '--no-pidfile'], app.env), launchBrowser()])
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
    await svc?.stop()
    await idp?.close()
  })

  it('signed out: sections without the hidden pages; a hidden URL says "not available" and signs in back to it', async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 720 } })
    const page = await context.newPage()
    const errors = collectPageErrors(page)
    try {
      await page.goto(`${base}/`)
      await page.getByText('You are not signed in.').waitFor()
      expect(await sidebar(page)).toEqual(['Home', '[Work]', 'Reports'])
      await bothThemes(page, 'user-nav-signed-out')

      await page.goto(`${base}/admin`)
      await page.getByRole('heading', { name: 'Not available' }).waitFor()
      await page.getByText('The page /admin is not available to you.').waitFor()
      expect(await page.getByText('Only admins see this.').count()).toBe(0)
      expect(await page.title()).toBe('Not available · Team portal')
      await bothThemes(page, 'user-nav-not-available')

      await page.getByRole('link', { name: 'Sign in' }).click()
      await signInAtIdp(page, idp, 'admin-ada')
      await page.getByText('Only admins see this.').waitFor({ timeout: 20_000 })
      expect(new URL(page.url()).pathname).toBe('/admin')
      await page.waitForURL((url) => !url.searchParams.has('auth_code'))
      expect(await sidebar(page)).toEqual(['Home', '[Work]', 'Reports', 'Team', '[Admin]', 'Admin'])
      await bothThemes(page, 'user-nav-admin')
      expect(errors).toEqual([])
    } catch (err) {
      await screenshot(page, 'user-nav-failure')
      throw new Error(`${(err as Error).message}\n--- svc output ---\n${svc.output()}`)
    } finally {
      await context.close()
    }
  })

  it('st.login() from a button, st.user in every tab, the API token in the tab that signed in, st.logout()', async () => {
    const context: BrowserContext = await browser.newContext({ viewport: { width: 1100, height: 720 } })
    const page = await context.newPage()
    const errors = collectPageErrors(page)
    try {
      await page.goto(`${base}/?tab=2`)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await signInAtIdp(page, idp, 'bob')
      await page.getByText('API token for: bob').waitFor({ timeout: 20_000 })
      await page.getByText('Signed in as Bob (bob@idp.test)').waitFor()
      await page.getByText('roles: none').waitFor()
      // Back on the same page and query, the one-time code gone from the address bar.
      await page.waitForURL((url) => !url.searchParams.has('auth_code'))
      expect(new URL(page.url()).search).toBe('?tab=2')
      const cookie = (await context.cookies(base)).find((c) => c.name === 'svc_user')
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' })
      expect(await page.evaluate(() => document.cookie)).not.toContain('svc_user')
      await bothThemes(page, 'user-signed-in')

      // Another tab of the browser: the same user (the cookie), its own page session (no API token).
      const second = await context.newPage()
      await second.goto(`${base}/`)
      await second.getByText('Signed in as Bob (bob@idp.test)').waitFor()
      await second.getByText('API token: none (401)').waitFor()
      expect(await sidebar(second)).toEqual(['Home', '[Work]', 'Reports', 'Team'])
      await second.goto(`${base}/admin`)
      await second.getByRole('heading', { name: 'Not available' }).waitFor()
      expect(await second.getByRole('link', { name: 'Sign in' }).count()).toBe(0)
      await second.goto(`${base}/team`)
      await second.getByText('Hello bob, here is your team.').waitFor()

      // Issue #34.2: sign-out ends the sign-in everywhere. The other tab, its page socket open,
      // is signed out at once without a reload, and a copy of the cookie taken before opens nothing.
      const copy = cookie!.value
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.getByText('You are not signed in.').waitFor({ timeout: 20_000 })
      expect(new URL(page.url()).search).toBe('?tab=2')
      expect((await context.cookies(base)).some((c) => c.name === 'svc_user')).toBe(false)
      await second.getByRole('heading', { name: 'Not available' }).waitFor({ timeout: 10_000 })
      expect(new URL(second.url()).pathname).toBe('/team')
      await screenshot(second, 'user-signed-out-other-tab')
      const replay = await new PageClient(`${base.replace('http:', 'ws:')}/_stcore/stream`, { cookie: `svc_user=${copy}` }).open()
      try {
        replay.send({ type: 'hello', sessionId: null, path: '/', query: '' })
        const shown = JSON.stringify((await replay.render(20_000)).main)
        expect(shown).toContain('You are not signed in.')
        expect(shown).not.toContain('Signed in as')
      } finally {
        await replay.close()
      }
      expect(errors).toEqual([])
    } catch (err) {
      await screenshot(page, 'user-login-failure')
      throw new Error(`${(err as Error).message}\n--- svc output ---\n${svc.output()}`)
    } finally {
      await context.close()
    }
  })
})

describe.skipIf(!existsSync(NGINX) || !hasRedis)('st.user across two replicas sharing Redis, behind a round-robin nginx', () => {
  let redis: RedisServer
  let idp: TestIdp
  let nginx: ChildProcess
  let browser: Browser
  let base: string
  let portA: number
  let portB: number
  const dir = `${REPO}test/.tmp/user-replicas-${randomUUID()}`

  beforeAll(async () => {
    mkdirSync(dir, { recursive: true })
    let nginxPort: number
    ;[nginxPort, portA, portB] = await Promise.all([freePort(), freePort(), freePort()])
    base = `http://127.0.0.1:${nginxPort}`
    let app: AppIdp
    ;[redis, app, browser] = await Promise.all([RedisServer.start(), startAppIdp({ envPrefix: 'IDP', bffSecret: SECRET, port: nginxPort }), launchBrowser()])
    idp = app.idp
    const replica = (name: string, port: number) =>
      startSvc({
        target: `${REPO}${TARGET}`,
        noPort: true,
        args: ['--port', String(port), '--proxy-headers'],
        env: {
          SVC_UI_COMMAND: undefined,
          SVC_REDIS_URL: redis.url,
          REPLICA: name,
          ...app.env,
        },
        timeoutMs: 45_000,
      })
    await Promise.all([replica('A', portA), replica('B', portB)])
    // No stickiness and no upstream keep-alive: consecutive requests alternate between the replicas.
    nginx = await runNginx(
      `${dir}/nginx`,
      `map $http_upgrade $conn { default upgrade; '' ''; }
  upstream replicas { server 127.0.0.1:${portA}; server 127.0.0.1:${portB}; }
  server {
    listen 127.0.0.1:${nginxPort};
    location / {
      proxy_pass http://replicas;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $conn;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_read_timeout 3600s;
    }
  }`,
      `${base}/api/healthz`,
    )
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await stopNginx(nginx)
    await stopAllTrees()
    await idp?.close()
    await redis?.stop()
  }, 60_000)

  it('a login started on one replica completes on the other; both replicas know the user', async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 700 } })
    const errors = collectPageErrors(page)
    await page.goto(`${base}/`)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await signInAtIdp(page, idp, 'carol')
    await page.getByText('Signed in as Carol (carol@idp.test)').waitFor({ timeout: 30_000 })
    await page.getByText('API token for: carol').waitFor()
    const seen = new Set<string>()
    for (let i = 0; i < 12 && seen.size < 2; i++) {
      // One request of a page load more or less moves the page socket to the other replica.
      if (i % 2 === 1) await (await fetch(`${base}/api/healthz`)).text()
      await page.goto(`${base}/`)
      await page.getByText('Signed in as Carol (carol@idp.test)').waitFor({ timeout: 20_000 })
      seen.add((await page.getByText(/^replica: [AB]$/).innerText()).slice(-1))
    }
    expect([...seen].sort()).toEqual(['A', 'B'])
    await screenshot(page, 'user-two-replicas')
    expect(errors).toEqual([])

    // Issue #34.2: a sign-out on replica A ends the sign-in on replica B too: a page open there
    // (its socket on B) is signed out at once (Redis pub/sub), and the cookie is refused on both.
    const cookie = (await page.context().cookies(base)).find((c) => c.name === 'svc_user')!.value
    const onB = await new PageClient(`ws://127.0.0.1:${portB}/_stcore/stream`, { cookie: `svc_user=${cookie}` }).open()
    try {
      onB.send({ type: 'hello', sessionId: null, path: '/', query: '' })
      expect(JSON.stringify((await onB.render(20_000)).main)).toContain('carol@idp.test')
      const out = await fetch(`http://127.0.0.1:${portA}/api/auth/logout`, { headers: { cookie: `svc_user=${cookie}` }, redirect: 'manual' })
      expect(out.status).toBe(302)
      const pushed = await onB.render(10_000)
      expect(JSON.stringify(pushed.main)).toContain('You are not signed in.')
    } finally {
      await onB.close()
    }
    for (const port of [portA, portB]) {
      const copy = await new PageClient(`ws://127.0.0.1:${port}/_stcore/stream`, { cookie: `svc_user=${cookie}` }).open()
      try {
        copy.send({ type: 'hello', sessionId: null, path: '/', query: '' })
        expect(JSON.stringify((await copy.render(20_000)).main), `replica on ${port}`).toContain('You are not signed in.')
      } finally {
        await copy.close()
      }
    }
  }, 120_000)
})
