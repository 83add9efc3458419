import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, FrameLocator, Page } from 'playwright-core'
import type { ViteDevServer } from 'vite'
import { collectPageErrors, launchBrowser, screenshot } from '../helpers/e2e-browser.js'
import { startSvc, type SvcRun } from '../helpers/e2e-svc.js'
import { buildStarRating, STAR_RATING_CONFIG } from '../helpers/example-component.js'

/**
 * #25.4 in Chromium against a real `svc run` tree: the example star rating (built with Vite by
 * the repository's npm script) served from its folder, and the same source from a Vite dev
 * server. Args in, value back, rerun, height following content, theme switch, server checks.
 */
const CONFIG = STAR_RATING_CONFIG
const FRAME = 'iframe[title="star-rating"]'

async function frameHeight(page: Page, selector: string): Promise<number> {
  return page.locator(selector).evaluate((f) => f.getBoundingClientRect().height)
}

describe('custom components in Chromium (svc run, the Vite-built example)', () => {
  let svc: SvcRun
  let browser: Browser
  let vite: ViteDevServer
  let page: Page
  let errors: string[]
  let frame: FrameLocator

  beforeAll(async () => {
    // The test uses the example's real build (npm run build:example-component), made here when stale.
    await buildStarRating()
    const { createServer } = await import('vite')
    vite = await createServer({ configFile: CONFIG, logLevel: 'silent', server: { host: '127.0.0.1', port: 0, strictPort: false } })
    await vite.listen()
    const devUrl = vite.resolvedUrls!.local[0]!
    ;[svc, browser] = await Promise.all([startSvc('test/e2e/fixtures/component-app.ts:app', ['--no-pidfile'], { STAR_DEV_URL: devUrl }), launchBrowser()])
    page = await browser.newPage({ viewport: { width: 1000, height: 800 } })
    errors = collectPageErrors(page)
    frame = page.frameLocator(FRAME)
  }, 90_000)

  afterAll(async () => {
    await browser?.close()
    await svc?.stop()
    await vite?.close()
  })

  it('args in: the component draws what the page passed, in a scripts-only sandbox under a versioned path', async () => {
    await page.emulateMedia({ colorScheme: 'light' })
    await page.goto(svc.url)
    await frame.getByText('How good was it? (out of 5)').waitFor()
    expect(await frame.getByRole('button', { name: /star/ }).count()).toBe(5)
    const iframe = page.locator(FRAME)
    expect(await iframe.getAttribute('sandbox')).toBe('allow-scripts')
    expect(await iframe.getAttribute('src')).toMatch(/^\/_stcore\/component\/star-rating\/[0-9a-f]{16}\/index\.html$/)
    await page.getByText('page sees: 0 of 5').waitFor()
  })

  it('value back: a click reruns the page with it, the iframe grows with the content, and the value survives new args', async () => {
    const before = await frameHeight(page, FRAME)
    await frame.getByRole('button', { name: '4 stars' }).click()
    await page.getByText('page sees: 4 of 5').waitFor()
    await frame.getByText('Thanks! You gave 4 of 5.').waitFor()
    await expect.poll(() => frameHeight(page, FRAME), { timeout: 10_000 }).toBeGreaterThan(before + 30)
    const grown = await frameHeight(page, FRAME)
    const inner = await frame.locator('html').evaluate((html) => Math.ceil(html.getBoundingClientRect().height))
    expect(Math.abs(grown - inner)).toBeLessThanOrEqual(1)
    await screenshot(page, 'component-rated-light')

    // New args (7 stars) reach the component; the keyed value stays.
    await page.getByLabel('Stars').fill('7')
    await page.getByLabel('Stars').press('Enter')
    await frame.getByText('How good was it? (out of 7)').waitFor()
    expect(await frame.getByRole('button', { name: /star/ }).count()).toBe(7)
    await page.getByText('page sees: 4 of 7').waitFor()
    expect(await frame.getByRole('button', { name: '4 stars' }).getAttribute('aria-pressed')).toBe('true')
  })

  it('the server checks values: one the schema refuses (99) never reaches the page; the next good one does', async () => {
    const runs = await page.getByText(/^runs: \d+$/).innerText()
    const child = page.frames().find((f) => f.url().includes('/_stcore/component/star-rating/'))!
    await child.evaluate(() => {
      window.parent.postMessage({ svc: 'component', v: 1, type: 'setValue', value: 99 }, '*')
      window.parent.postMessage({ svc: 'component', v: 2, type: 'setValue', value: 3 }, '*')
      window.parent.postMessage({ svc: 'component', v: 1, type: 'setValue', value: 'x'.repeat(70_000) }, '*')
      window.parent.postMessage({ svc: 'component', v: 1, type: 'setValue', value: 2 }, '*')
    })
    await page.getByText('page sees: 2 of 7').waitFor()
    expect(await page.getByText('page sees: 99').count()).toBe(0)
    expect(await page.getByText('page sees: 3 of 7').count()).toBe(0)
    expect(Number((await page.getByText(/^runs: \d+$/).innerText()).slice(6))).toBe(Number(runs.slice(6)) + 1)
  })

  it('in a form, the value waits for the submit button like other widgets: one rerun, with it', async () => {
    const runs = Number((await page.getByText(/^runs: \d+$/).innerText()).slice(6))
    const inForm = page.frameLocator('iframe[title="star-rating-form"]')
    await inForm.getByText('In a form').waitFor()
    await inForm.getByRole('button', { name: '2 stars' }).click()
    await inForm.getByText('Thanks! You gave 2 of 3.').waitFor()
    await page.getByRole('button', { name: 'Send review' }).click()
    await page.getByText('form sees: 2').waitFor()
    expect(Number((await page.getByText(/^runs: \d+$/).innerText()).slice(6))).toBe(runs + 1)
  })

  it('theme switch reaches the component: dark variables, colours and color-scheme follow the page', async () => {
    const pageText = () => page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--svc-text').trim())
    const labelColor = () => frame.locator('.rating-label').evaluate((el) => getComputedStyle(el).color)
    const lightLabel = await labelColor()
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark')
    await expect.poll(() => frame.locator('html').getAttribute('data-theme')).toBe('dark')
    expect(await frame.locator('html').evaluate((h, v) => getComputedStyle(h).getPropertyValue('--svc-text').trim() === v, await pageText())).toBe(true)
    await expect.poll(labelColor).not.toBe(lightLabel)
    expect(await frame.locator('#rating').getAttribute('data-base')).toBe('dark')
    await screenshot(page, 'component-rated-dark')
    await page.emulateMedia({ colorScheme: 'light' })
    await expect.poll(() => frame.locator('html').getAttribute('data-theme')).toBe('light')
    await expect.poll(labelColor).toBe(lightLabel)
  })

  it('a component from a dev server URL (Vite) works the same way, with its own origin', async () => {
    const dev = page.frameLocator('iframe[title="star-rating-dev"]')
    await dev.getByText('From the dev server').waitFor({ timeout: 20_000 })
    expect(await page.locator('iframe[title="star-rating-dev"]').getAttribute('sandbox')).toBe('allow-scripts allow-same-origin')
    await dev.getByRole('button', { name: '2 stars' }).click()
    await page.getByText('dev server component: 2').waitFor()
    expect(errors).toEqual([])
  })

  it('serves the folder only under its current version, sandboxed, cacheable, readable by the opaque-origin frame', async () => {
    const src = (await page.locator(FRAME).getAttribute('src'))!
    const res = await fetch(svc.url.replace(/\/$/, '') + src)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toBe("sandbox allow-scripts; frame-ancestors 'self'")
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    const base = svc.url.replace(/\/$/, '')
    expect((await fetch(base + src.replace(/\/[0-9a-f]{16}\//, '/0000000000000000/'))).status).toBe(404)
    for (const evil of ['..%2F..%2Fpackage.json', '%2e%2e/%2e%2e/package.json', 'vite.config.ts', '../src/main.ts']) {
      expect((await fetch(base + src.replace('index.html', evil))).status, evil).toBe(404)
    }
    expect((await fetch(`${base}/_stcore/component/nope/0000000000000000/index.html`)).status).toBe(404)
  })
})
