import type { ChildProcess } from 'node:child_process'
import { rmSync } from 'node:fs'
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core'
import { collectPageErrors, launchBrowser, screenshot } from '../helpers/e2e-browser.js'
import { startSvc, type SvcRun } from '../helpers/e2e-svc.js'
import { runNginx, stopNginx } from '../helpers/nginx.js'
import { hasRedis, RedisServer } from '../helpers/redis-server.js'
import { REPO, sigkillTree, startSvc as startTree, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { freePort } from '../helpers/ui-sidecar.js'

/**
 * Issue #35 in Chromium against two `svc run` replicas sharing Redis: A served directly (no
 * `trust_proxy`), B behind nginx with `--proxy-headers`, nginx connecting to it from 127.0.0.3.
 * Cookies written by a page and read on the next visit, browser storage through the page socket,
 * per-user storage read back in a new session and on the other replica, and st.context against
 * what the browser sent (a spoofed X-Forwarded-For included).
 */
const TARGET = 'test/e2e/fixtures/beyond-app.ts:app'
const BFF_SECRET = 'e2e-beyond-bff-secret-0123456789abcdef-0123'
const COOKIE_SECRET = 'e2e-beyond-cookie-secret-0123456789abcdef-01'
const SPOOF = '203.0.113.9'

/** The identity cookie the app's login would set after an OIDC sign-in (`st.user`). */
async function identityCookie(sub: string): Promise<string> {
  // A sign-in's cookie carries its session id (sid): one without counts as signed out.
  return new SignJWT({ prv: 'default', name: sub, sid: `sid-${sub}` })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setIssuer('svc-bff')
    .setAudience('svc-user')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(BFF_SECRET))
}

async function textAfter(page: Page, prefix: string): Promise<string> {
  const text = (await page.getByText(new RegExp(`^${prefix}: `)).textContent()) ?? ''
  return text.slice(prefix.length + 2)
}

describe.skipIf(!hasRedis)('cookies, browser storage, per-user storage and st.context in Chromium (two replicas on Redis)', () => {
  let redis: RedisServer
  let browser: Browser
  /** Replica A, on a port of its own so that a replica started after its death takes its place. */
  let a: { url: string; tree: SvcTree }
  let aPort: number
  let b: SvcRun
  let nginx: ChildProcess | undefined
  let viaNginx: string
  const nginxDir = `${REPO}test/.tmp/nginx-beyond-${process.pid}`
  const contexts: BrowserContext[] = []

  beforeAll(async () => {
    ;[redis, browser] = await Promise.all([RedisServer.start(), launchBrowser()])
    aPort = await freePort()
    const [tree, started] = await Promise.all([replicaA('A'), startSvc(TARGET, ['--proxy-headers'], { ...ENV(), REPLICA: 'B' })])
    a = { url: `http://127.0.0.1:${aPort}/`, tree }
    b = started
    const port = await freePort()
    viaNginx = `http://127.0.0.1:${port}/`
    nginx = await runNginx(
      nginxDir,
      `server {
        listen 127.0.0.1:${port};
        location / {
          proxy_pass ${b.origin};
          proxy_bind 127.0.0.3;
          proxy_http_version 1.1;
          proxy_set_header Upgrade $http_upgrade;
          proxy_set_header Connection "upgrade";
          proxy_set_header Host $http_host;
          proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
          proxy_set_header X-Forwarded-Proto $scheme;
        }
      }`,
      viaNginx,
    )
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
    await stopAllTrees()
    await stopNginx(nginx)
    await b?.stop()
    await redis?.stop()
    rmSync(nginxDir, { recursive: true, force: true })
  }, 60_000)

  const ENV = (): Record<string, string> => ({ SVC_REDIS_URL: redis.url, SVC_COOKIE_SECRET: COOKIE_SECRET, SVC_OIDC_BFF_SECRET: BFF_SECRET })
  const replicaA = (name: string): Promise<SvcTree> =>
    startTree({ target: `${REPO}${TARGET}`, noPort: true, args: ['--port', String(aPort)], env: { ...ENV(), SVC_UI_COMMAND: undefined, SVC_LOG_LEVEL: 'warn', REPLICA: name } })

  async function context(options: BrowserContextOptions & { user?: string; origin?: string } = {}): Promise<BrowserContext> {
    const { user, origin, ...rest } = options
    const ctx = await browser.newContext({ viewport: { width: 900, height: 700 }, ...rest })
    contexts.push(ctx)
    if (user) await ctx.addCookies([{ name: 'svc_user', value: await identityCookie(user), url: origin ?? a.url, httpOnly: true }])
    return ctx
  }

  afterAll(async () => {
    for (const ctx of contexts) await ctx.close().catch(() => undefined)
  })

  it('a cookie written by a page is read on the next visit: HttpOnly, SameSite, max age and the signature hold', async () => {
    const ctx = await context()
    const page = await ctx.newPage()
    const errors = collectPageErrors(page)
    await page.goto(`${a.url}cookies`)
    expect(await textAfter(page, 'visitor')).toBe('none')
    await page.getByRole('button', { name: 'Remember me' }).click()
    await expect.poll(async () => (await ctx.cookies()).map((c) => c.name).sort(), { timeout: 10_000 }).toEqual(['layout', 'member', 'visitor'])

    const next = await ctx.newPage()
    await next.goto(`${a.url}cookies`)
    await next.getByText('visitor: ada').waitFor()
    expect([await textAfter(next, 'signed'), await textAfter(next, 'layout')]).toEqual(['gold', 'wide'])
    const jar = Object.fromEntries((await ctx.cookies()).map((c) => [c.name, c]))
    expect(jar.visitor).toMatchObject({ value: 'ada', httpOnly: true, sameSite: 'Lax', path: '/', secure: false })
    expect(jar.visitor!.expires - Date.now() / 1000).toBeGreaterThan(86_000)
    expect(jar.layout).toMatchObject({ httpOnly: false, sameSite: 'Strict', expires: -1 })
    // The page's scripts see the cookie written without HttpOnly, never the others.
    expect((await next.evaluate(() => document.cookie)).split('; ').sort()).toEqual(['layout=wide'])

    // A signed value the browser changed reads as absent; one from the other replica verifies (same cookie_secret).
    const signature = decodeURIComponent(jar.member!.value).split('.')[1]
    await ctx.addCookies([{ name: 'member', value: encodeURIComponent(`platinum.${signature}`), url: a.url }])
    await next.reload()
    await next.getByText('visitor: ada').waitFor()
    expect(await textAfter(next, 'signed')).toBe('none')

    await next.getByRole('button', { name: 'Forget me' }).click()
    await expect.poll(async () => (await ctx.cookies()).some((c) => c.name === 'visitor'), { timeout: 10_000 }).toBe(false)
    await screenshot(next, 'cookies-next-visit')
    expect(errors).toEqual([])
  }, 60_000)

  it('browser storage through the page socket: localStorage for every tab, sessionStorage for one, values checked by the schema', async () => {
    const ctx = await context()
    const page = await ctx.newPage()
    await page.goto(`${a.url}prefs`)
    await page.getByText('local: null').waitFor()
    await page.getByRole('button', { name: 'Wide rows (this browser)' }).click()
    await expect.poll(() => page.evaluate(() => localStorage.getItem('svc:store:/:prefs'))).toBe('{"rows":200,"theme":"dark"}')
    const tabVisits = Number(await textAfter(page, 'tab'))

    // Another tab of the browser sees localStorage, and starts its own sessionStorage.
    const other = await ctx.newPage()
    await other.goto(`${a.url}prefs`)
    await other.getByText('local: {"rows":200,"theme":"dark"}').waitFor()
    expect(await textAfter(other, 'tab')).toBe('0')
    // The same tab keeps its sessionStorage across a reload.
    await page.reload()
    await page.getByText('local: {"rows":200,"theme":"dark"}').waitFor()
    expect(Number(await textAfter(page, 'tab'))).toBeGreaterThan(tabVisits)

    // A value changed in the browser that breaks the page's schema reads as absent.
    await other.evaluate(() => localStorage.setItem('svc:store:/:prefs', '{"rows":1000000000,"theme":"pink"}'))
    await other.reload()
    await other.getByText('local: null').waitFor()
  }, 60_000)

  it('per-user storage: read back in a new session, and on the other replica; another user has their own', async () => {
    const first = await (await context({ user: 'ada' })).newPage()
    await first.goto(`${a.url}prefs`)
    await first.getByText('user: ada').waitFor()
    expect(await textAfter(first, 'saved')).toBe('null')
    await first.getByRole('button', { name: 'Save for me' }).click()
    await first.getByText('saved: {"rows":50,"theme":"dark"}').waitFor()

    const again = await (await context({ user: 'ada' })).newPage()
    await again.goto(`${a.url}prefs`)
    await again.getByText('saved: {"rows":50,"theme":"dark"}').waitFor()

    const elsewhere = await (await context({ user: 'ada', origin: viaNginx })).newPage()
    await elsewhere.goto(`${viaNginx}prefs`)
    await elsewhere.getByText('replica: B').waitFor()
    await elsewhere.getByText('saved: {"rows":50,"theme":"dark"}').waitFor()
    await screenshot(elsewhere, 'user-storage-other-replica')

    const bob = await (await context({ user: 'bob' })).newPage()
    await bob.goto(`${a.url}prefs`)
    await bob.getByText('user: bob').waitFor()
    expect(await textAfter(bob, 'saved')).toBe('null')
  }, 60_000)

  it('st.context is what the browser sent: IP (direct, and behind the trusted proxy, spoof ignored), locale, time zone, URL, theme, frame', async () => {
    const facts = async (page: Page): Promise<Record<string, unknown>> => JSON.parse(await textAfter(page, 'context')) as Record<string, unknown>
    const options = { locale: 'de-DE', timezoneId: 'Asia/Tokyo', colorScheme: 'dark' as const, extraHTTPHeaders: { 'x-forwarded-for': SPOOF } }

    const direct = await (await context(options)).newPage()
    await direct.goto(`${a.url}context?from=test`)
    await direct.getByText(/^context: /).waitFor()
    expect(await facts(direct)).toEqual({ ipAddress: '127.0.0.1', locale: 'de-DE', timezone: 'Asia/Tokyo', timezoneOffset: -540, url: `${a.url}context?from=test`, theme: 'dark', isEmbedded: false })

    // Behind nginx (which connects from 127.0.0.3) with trust_proxy: the address nginx saw, not the spoofed entry.
    const proxied = await (await context({ ...options, colorScheme: 'light' })).newPage()
    await proxied.goto(`${viaNginx}context`)
    await proxied.getByText(/^context: /).waitFor()
    expect(await facts(proxied)).toMatchObject({ ipAddress: '127.0.0.1', url: `${viaNginx}context`, theme: 'light' })

    const framing = await (await context()).newPage()
    await framing.setContent(`<iframe src="${a.url}context" width="800" height="300"></iframe>`)
    const frame = framing.frameLocator('iframe')
    await frame.getByText(/^context: /).waitFor()
    expect(JSON.parse(((await frame.getByText(/^context: /).textContent()) ?? '').slice('context: '.length))).toMatchObject({ isEmbedded: true })
  }, 60_000)

  it("with Redis, a finished task's result survives its replica's death: the session resumes on the next replica with it", async () => {
    const page = await (await context()).newPage()
    await page.goto(`${a.url}export?seconds=1`)
    await page.getByText('replica: A').waitFor()
    await page.getByRole('button', { name: 'Start export' }).click()
    await page.getByText('rows: 100').waitFor({ timeout: 20_000 })
    expect(await sigkillTree(a.tree)).toEqual([])
    a.tree = await replicaA('A2')
    // The browser reconnects by itself and its session resumes from Redis, task result included.
    await page.getByText('replica: A2').waitFor({ timeout: 30_000 })
    expect(await page.getByText('status: done').count()).toBe(1)
    expect(await page.getByText('rows: 100').count()).toBe(1)
    expect(await page.getByText('Your previous session had expired').count()).toBe(0)
  }, 90_000)
})
