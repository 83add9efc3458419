import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { request } from 'undici'
import { collectPageErrors, launchBrowser, screenshot } from '../helpers/e2e-browser.js'
import { startSvc, type SvcRun } from '../helpers/e2e-svc.js'
import { signInAtIdp, startAppIdp, type TestIdp } from '../helpers/auth-idp.js'

const SECRET = 'e2e-bff-secret-0123456789abcdef-0123456789'

/** Browser login through examples/auth: dashboard → IdP login form → back with auth_code → /me. */
describe('OIDC login in a real browser, through the gateway', () => {
  let idp: TestIdp
  let svc: SvcRun
  let browser: Browser
  let base: string

  beforeAll(async () => {
    const app = await startAppIdp({ envPrefix: 'OIDC', bffSecret: SECRET })
    ;({ idp, base } = app)
    svc = await startSvc('examples/auth/app.ts:app', ['--port', String(app.port), '--no-pidfile'], { ...app.env, SVC_ENABLE_SECURITY_HEADERS: '1' })
    browser = await launchBrowser()
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
    await svc?.stop()
    await idp?.close()
  })

  async function signIn(page: Page, user: string): Promise<void> {
    await page.goto(`${base}/`)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await signInAtIdp(page, idp, user)
  }

  it('signs in at the IdP and the page shows the sub from the protected route; the code works once', async () => {
    const page = await browser.newPage()
    const errors = collectPageErrors(page)
    const codes: string[] = []
    page.on('request', (req) => {
      const code = new URL(req.url()).searchParams.get('auth_code')
      if (code) codes.push(code)
    })
    try {
      await signIn(page, 'ada')
      await page.getByText('Signed in as ada').waitFor({ timeout: 20_000 })
    } catch (err) {
      await screenshot(page, 'auth-oidc-login-failure')
      throw new Error(`${(err as Error).message}\n--- svc output ---\n${svc.output()}`)
    }
    // The page removed the one-time code from the address bar.
    await page.waitForURL((url) => !url.searchParams.has('auth_code'))
    expect(errors).toEqual([])

    expect(codes.length).toBeGreaterThan(0)
    const replay = await request(`${base}/api/auth/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ auth_code: codes[0] }),
    })
    expect(replay.statusCode).toBe(401)
    expect(await replay.body.json()).toMatchObject({ error: 'unauthorized', message: 'Invalid or expired auth code' })
    expect(replay.headers['x-content-type-options']).toBe('nosniff')
    await page.close()
  })

  it('answers 400 to a forged state', async () => {
    const page = await browser.newPage()
    const res = await page.goto(`${base}/api/auth/callback?code=made-up&state=forged-state`)
    expect(res?.status()).toBe(400)
    expect(JSON.parse(await page.locator('body').innerText())).toMatchObject({ message: 'Invalid or expired state' })
    await page.close()
  })

  it('rejects a tampered id_token and never reaches the dashboard', async () => {
    idp.tamperIdTokens = true
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      const callback = page.waitForResponse((res) => res.url().startsWith(`${base}/api/auth/callback`))
      await signIn(page, 'mallory')
      const res = await callback
      expect(res.status(), `${res.url()} -> ${res.headers().location}`).toBe(502)
      expect(await res.json()).toMatchObject({ error: 'idp_error', message: 'Invalid id_token' })
    } finally {
      idp.tamperIdTokens = false
      await context.close()
    }
  })
})
