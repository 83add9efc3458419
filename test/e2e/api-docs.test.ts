import { describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { collectPageErrors, screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcWithBrowser } from '../helpers/e2e-app.js'

const APP = 'examples/hello/app.ts:app'

/**
 * The API docs (Swagger UI, loaded by the gateway on the first docs request) as a user opens
 * them: `/docs` redirects to `{api}/docs`, whose page must load its assets and the spec.
 */
async function openDocs(browser: Browser, svc: SvcRun, path: string, shot: string): Promise<{ url: string; failed: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 800 } })
  const errors = collectPageErrors(page)
  const failed: string[] = []
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`)
  })
  await page.goto(`${svc.origin}${path}`)
  await page.locator('.opblock-summary-path', { hasText: '/hello' }).waitFor({ timeout: 15_000 })
  await screenshot(page, shot)
  expect(errors).toEqual([])
  const url = new URL(page.url()).pathname
  await page.close()
  return { url, failed }
}

describe('API docs in the browser', () => {
  let svc: SvcRun
  let browser: Browser
  useSvcWithBrowser(APP, [], (s) => void ({ svc, browser } = s))

  it('/docs leads to {api}/docs, which shows the routes (assets and spec found)', async () => {
    const { url, failed } = await openDocs(browser, svc, '/docs', 'api-docs')
    expect(url).toBe('/api/docs')
    expect(failed).toEqual([])
  })

  it('with a trailing slash too', async () => {
    expect(await openDocs(browser, svc, '/api/docs/', 'api-docs-slash')).toEqual({ url: '/api/docs/', failed: [] })
  })
})

describe('API docs under a root path (svc run --root-path /tools)', () => {
  let svc: SvcRun
  let browser: Browser
  useSvcWithBrowser(APP, ['--root-path', '/tools'], (s) => void ({ svc, browser } = s))

  it('/tools/docs leads to /tools/api/docs, which shows the routes', async () => {
    expect(await openDocs(browser, svc, '/tools/docs', 'api-docs-root-path')).toEqual({ url: '/tools/api/docs', failed: [] })
  })
})
