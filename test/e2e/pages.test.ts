import { describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { collectPageErrors, screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcPage, useSvcWithBrowser } from '../helpers/e2e-app.js'

const APP = 'test/e2e/fixtures/pages-app.ts:app'

/** The whole stack: `svc run` (supervisor → gateway → bundled page server) driven by chromium. */
describe('pages in the browser through svc run', () => {
  let svc: SvcRun
  let page: Page
  let errors: string[]
  useSvcPage(APP, { viewport: { width: 1200, height: 800 } }, (s) => void ({ svc, page, errors } = s))

  const clicks = () => page.locator('.svc-text').filter({ hasText: /^clicks: / })

  it('loads the page, applies a text input on Enter and counts button clicks', async () => {
    await page.goto(svc.url)
    await page.getByRole('heading', { name: 'Greeting', level: 1 }).waitFor()
    await page.getByText('Hello, world!').waitFor()
    const input = page.getByLabel('Your name')
    await input.fill('Ada')
    await input.press('Enter')
    await page.getByText('Hello, Ada!').waitFor()
    await page.getByRole('button', { name: 'Count' }).click()
    await expect.poll(() => clicks().textContent()).toBe('clicks: 1')
    await page.getByRole('button', { name: 'Count' }).click()
    await expect.poll(() => clicks().textContent()).toBe('clicks: 2')
    await screenshot(page, 'pages-greeting')
  })

  it('switches pages from the sidebar and by deep link, sharing the session', async () => {
    await page.getByRole('link', { name: /Second page/ }).click()
    await page.getByRole('heading', { name: 'Second page', level: 1 }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/second')
    expect(await page.getByText(/clicks seen here: 2/).count()).toBe(1)
    await page.goBack()
    await page.getByRole('heading', { name: 'Greeting', level: 1 }).waitFor()
    await page.goto(`${svc.url}?page=second`)
    await page.getByRole('heading', { name: 'Second page', level: 1 }).waitFor()
    await expect.poll(() => new URL(page.url()).pathname).toBe('/second')
  })

  it('keeps session state across a browser reload', async () => {
    await page.goto(svc.url)
    await expect.poll(() => clicks().textContent()).toBe('clicks: 2')
    await page.getByLabel('Your name').fill('Grace')
    await page.getByLabel('Your name').press('Enter')
    await page.getByText('Hello, Grace!').waitFor()
    await page.reload()
    await page.getByText('Hello, Grace!').waitFor()
    expect(await page.getByLabel('Your name').inputValue()).toBe('Grace')
    expect(await clicks().textContent()).toBe('clicks: 2')
  })

  it('shows the not-found page with links to every page', async () => {
    await page.goto(`${svc.url}no-such-page`)
    await page.getByRole('heading', { name: 'Page not found' }).waitFor()
    await page.getByRole('link', { name: /Second page/ }).last().click()
    await page.getByRole('heading', { name: 'Second page', level: 1 }).waitFor()
    await screenshot(page, 'pages-after-not-found')
  })

  it('reconnects to the same session after the gateway worker restarts', async () => {
    await page.goto(svc.url)
    await expect.poll(() => clicks().textContent()).toBe('clicks: 2')
    const workers = svc.gatewayWorkerPids()
    expect(workers.length).toBeGreaterThan(0)
    for (const pid of workers) process.kill(pid, 'SIGKILL')
    await page.getByTestId('reconnect-banner').waitFor({ timeout: 10_000 })
    await page.getByTestId('reconnect-banner').waitFor({ state: 'detached', timeout: 30_000 })
    await page.getByRole('button', { name: 'Count' }).click()
    await expect.poll(() => clicks().textContent(), { timeout: 10_000 }).toBe('clicks: 3')
    expect(errors).toEqual([])
  })
})

describe('pages under a root path (svc run --root-path /tools)', () => {
  let svc: SvcRun
  let browser: Browser
  useSvcWithBrowser(APP, ['--root-path', '/tools'], (s) => void ({ svc, browser } = s))

  it('serves the page, its assets and the stream under /tools', async () => {
    expect(svc.url).toMatch(/\/tools\/$/)
    const page = await browser.newPage({ viewport: { width: 1000, height: 700 } })
    const errors = collectPageErrors(page)
    const outside: string[] = []
    page.on('request', (r) => {
      const u = new URL(r.url())
      if (u.origin === svc.origin && !u.pathname.startsWith('/tools/')) outside.push(u.pathname)
    })
    await page.goto(svc.url)
    await page.getByRole('heading', { name: 'Greeting', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Count' }).click()
    await page.locator('.svc-text').filter({ hasText: 'clicks: 1' }).waitFor()
    await page.getByRole('link', { name: /Second page/ }).click()
    await page.getByRole('heading', { name: 'Second page', level: 1 }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/tools/second')
    await page.reload()
    await page.getByText('clicks seen here: 1').waitFor()
    expect(outside).toEqual([])
    expect(errors).toEqual([])
    await screenshot(page, 'pages-root-path')
  }, 60_000)
})
