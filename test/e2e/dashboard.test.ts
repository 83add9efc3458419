import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { collectPageErrors, launchBrowser, screenshot } from '../helpers/e2e-browser.js'
import { startSvc, type SvcRun } from '../helpers/e2e-svc.js'

/** The demo app (examples/dashboard) as a user drives it. */
describe('examples/dashboard in the browser', () => {
  let svc: SvcRun
  let browser: Browser
  let page: Page
  let errors: string[]

  beforeAll(async () => {
    ;[svc, browser] = await Promise.all([startSvc('examples/dashboard/app.ts:app'), launchBrowser()])
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } })
    errors = collectPageErrors(page)
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await svc?.stop()
  })

  it('overview: a region filter reruns the page and lands in the URL', async () => {
    await page.goto(svc.url)
    await page.getByRole('heading', { name: 'Acme Ops', level: 1 }).waitFor()
    // The page returns its PageMeta (layout: wide) at the end of the run; a partial render of a
    // slow first run can show the heading before that. Wait for the final render, then check.
    await page.locator('.svc-app[data-layout="wide"]').waitFor({ timeout: 10_000 })
    expect(await page.locator('.svc-app').getAttribute('data-layout')).toBe('wide')
    const orders = page.getByTestId('metric').filter({ hasText: 'Orders' }).locator('.svc-metric-value')
    const all = Number(await orders.textContent())
    await page.getByLabel('Region').selectOption({ label: 'North' })
    await expect.poll(() => new URL(page.url()).searchParams.get('region')).toBe('North')
    await expect.poll(async () => Number(await orders.textContent())).toBeLessThan(all)
    await expect.poll(() => page.title()).toMatch(/Overview · North/)
    await screenshot(page, 'dashboard-overview')
  })

  it('overview: the product mix tab draws its bar chart and the Vega-Lite donut', async () => {
    await page.getByRole('tab', { name: 'Product mix' }).click()
    const panel = page.getByRole('tabpanel', { name: 'Product mix' })
    await panel.getByTestId('barChart').locator('g.mark-rect path').first().waitFor()
    await panel.getByTestId('vegaLiteChart').locator('g.mark-arc path').first().waitFor()
    expect(await panel.getByTestId('vegaLiteChart').locator('g.mark-arc path').count()).toBeGreaterThan(1)
    await screenshot(page, 'dashboard-product-mix')
    await page.getByRole('tab', { name: 'Trend' }).click()
  })

  it('orders: a text filter applies on Enter and a form submits once', async () => {
    await page.getByRole('link', { name: /Orders/ }).click()
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor()
    const info = page.getByTestId('info').locator('.svc-alert-body')
    const before = await info.textContent()
    await page.getByLabel('Product contains').fill('gad')
    await page.getByLabel('Product contains').press('Enter')
    await expect.poll(() => info.textContent()).not.toBe(before)
    expect(await info.textContent()).toMatch(/^\d+ of 240 orders match\.$/)
    await page.getByLabel('Order id').fill('1003')
    await page.getByLabel('Reason').fill('damaged')
    await page.getByRole('button', { name: 'Refund' }).click()
    await page.getByTestId('toast').getByText('Order 1003 refunded').waitFor()
    await screenshot(page, 'dashboard-orders')
  })

  it('settings: session state survives a reload', async () => {
    await page.getByRole('link', { name: /Settings/ }).click()
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
    await page.getByRole('radio', { name: 'Rose' }).check()
    await page.getByRole('switch', { name: 'Compact tables' }).check()
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByTestId('success').getByText(/Saved: Rose, compact on/).waitFor()
    await screenshot(page, 'dashboard-settings')
    await page.reload()
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
    expect(await page.getByRole('radio', { name: 'Rose' }).isChecked()).toBe(true)
    expect(await page.getByRole('switch', { name: 'Compact tables' }).isChecked()).toBe(true)
    expect(errors).toEqual([])
  })
})
