import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { collectPageErrors, launchBrowser, screenshot } from '../helpers/e2e-browser.js'
import { startSvc, type SvcRun } from '../helpers/e2e-svc.js'

const APP = 'test/e2e/fixtures/markdown-errors-app.ts:app'

/** A page that throws, seen in a real browser: `svc run` hides the details, the setting shows them. */
describe('page errors in the browser', () => {
  let browser: Browser | undefined
  let svc: SvcRun | undefined
  let page: Page

  afterEach(async () => {
    await page?.close()
    await svc?.stop()
    svc = undefined
  })
  afterAll(async () => {
    await browser?.close()
  })

  async function open(env: NodeJS.ProcessEnv): Promise<string[]> {
    ;[svc, browser] = await Promise.all([startSvc(APP, [], env), browser ?? launchBrowser()])
    page = await browser.newPage({ viewport: { width: 1000, height: 700 } })
    const errors = collectPageErrors(page)
    await page.goto(`${svc.url}boom`)
    await page.getByTestId('exception').waitFor()
    return errors
  }

  it('svc run: a generic message and the request ID, no stack, no server path', async () => {
    const errors = await open({})
    const box = page.getByTestId('exception')
    expect(await box.textContent()).toContain('This page hit an error.')
    const requestId = await page.getByTestId('exception-request-id').locator('code').textContent()
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
    expect(await page.getByRole('button', { name: /traceback/i }).count()).toBe(0)
    const text = await page.locator('body').innerText()
    for (const leak of ['SECRET-DETAIL', 'TypeError', 'loadOrders', '/test/e2e/', 'node_modules', '.ts:']) expect(text).not.toContain(leak)
    expect(await page.content()).not.toContain('SECRET-DETAIL')
    // What the page drew before it failed stays.
    await page.getByText('Loading orders…').waitFor()
    await screenshot(page, 'errors-run-hidden')
    // The server logged it at error with the same request ID.
    const line = await svc!.waitForOutput(/[^\n]*ui page exception[^\n]*/)
    expect(line).toContain(`"request_id":"${requestId}"`)
    expect(line).toContain('"level":"error"')
    expect(line).toContain('SECRET-DETAIL')
    expect(errors).toEqual([])
  }, 90_000)

  it('show_error_details on (SVC_SHOW_ERROR_DETAILS=1): message and traceback as in svc dev', async () => {
    const errors = await open({ SVC_SHOW_ERROR_DETAILS: '1' })
    expect(await page.getByTestId('exception').textContent()).toContain('TypeError: orders table is locked (SECRET-DETAIL)')
    // Shown at once, as Streamlit shows a traceback; the button folds it away.
    expect(await page.locator('pre.svc-stacktrace').textContent()).toContain('loadOrders')
    await page.getByRole('button', { name: 'Hide traceback' }).click()
    await page.locator('pre.svc-stacktrace').waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Show traceback' }).click()
    await screenshot(page, 'errors-details-shown')
    expect(errors).toEqual([])
  }, 90_000)
})
