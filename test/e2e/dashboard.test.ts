import { describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { collectPageErrors, screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcPage } from '../helpers/e2e-app.js'

/** The demo app (examples/dashboard) as a user drives it. */
describe('examples/dashboard in the browser', () => {
  let svc: SvcRun
  let browser: Browser
  let page: Page
  let errors: string[]
  useSvcPage('examples/dashboard/app.ts:app', { viewport: { width: 1360, height: 900 }, stepTimeoutMs: 10_000 }, (s) => void ({ svc, browser, page, errors } = s))

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
    // The trend chart is drawn by Vega-Lite as SVG.
    await page.getByTestId('areaChart').locator('svg g.mark-area path').first().waitFor()
    // The filters above the metrics: segmented control, pills and a select slider narrow the orders.
    const north = Number(await orders.textContent())
    await page.getByRole('button', { name: '7 days', exact: true }).click()
    await expect.poll(async () => Number(await orders.textContent())).toBeLessThan(north)
    const week = Number(await orders.textContent())
    await page.getByRole('button', { name: 'paid', exact: true }).click()
    await expect.poll(async () => Number(await orders.textContent())).toBeLessThan(week)
    await page.getByLabel('Order size (from)').focus()
    await page.keyboard.press('ArrowRight')
    await expect.poll(async () => Number(await orders.textContent())).toBeLessThan(week)
    await page.getByRole('button', { name: 'All', exact: true }).click()
    await page.getByRole('button', { name: 'paid', exact: true }).click()
    await page.getByLabel('Order size (from)').focus()
    await page.keyboard.press('ArrowLeft')
    await expect.poll(async () => Number(await orders.textContent())).toBe(north)
    await screenshot(page, 'dashboard-overview')
  })

  it('overview: the live panel refreshes on its own timer while the page itself does not rerun', async () => {
    const runs = page.locator('#svc-sidebar').getByText(/^Page runs this session: \d+$/)
    const refresh = page.getByText(/· refresh #\d+$/)
    const tick = async (): Promise<number> => Number((await refresh.innerText()).match(/#(\d+)$/)![1])
    const pageRuns = await runs.innerText()
    const first = await tick()
    await expect.poll(tick, { timeout: 10_000 }).toBeGreaterThanOrEqual(first + 2)
    expect(await runs.innerText()).toBe(pageRuns)
    await page.getByRole('heading', { name: 'On-call notes' }).waitFor()
    expect(await page.getByRole('link', { name: 'refund policy' }).getAttribute('target')).toBe('_blank')
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

  it('orders: a text filter applies on Enter; a selected row drives the detail panel; a dialog confirms a refund', async () => {
    await page.getByRole('link', { name: /Orders/ }).click()
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor()
    const info = page.getByTestId('info').locator('.svc-alert-body')
    const before = await info.textContent()
    await page.getByLabel('Product contains').fill('gad')
    await page.getByLabel('Product contains').press('Enter')
    await expect.poll(() => info.textContent()).not.toBe(before)
    expect(await info.textContent()).toMatch(/^\d+ of 240 orders match\.$/)

    const df = page.getByTestId('dataframe')
    const first = df.locator('tbody tr').first()
    // Column formats: currency, percent, a progress bar, a link, a formatted date.
    expect(await first.locator('td[data-col="amount"]').innerText()).toMatch(/^\$\d/)
    expect(await first.locator('td[data-col="discount"]').innerText()).toMatch(/%$/)
    expect(await first.locator('td[data-col="fulfilled"] [role="progressbar"]').count()).toBe(1)
    expect(await first.locator('td[data-col="link"] a').innerText()).toBe('JSON')
    expect(await first.locator('td[data-col="day"]').innerText()).toMatch(/^\d\d Jan$/)
    const id = (await first.locator('td[data-col="id"]').innerText()).trim()
    await page.getByText('Select an order in the table to see it here.').waitFor()
    await first.getByRole('checkbox').check()
    await page.getByRole('heading', { name: `Order #${id}` }).waitFor()
    await screenshot(page, 'dashboard-orders')

    const runs = page.locator('#svc-sidebar').getByText(/^Page runs this session: \d+$/)
    await page.getByRole('button', { name: 'Refund…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Confirm refund' })
    await dialog.waitFor()
    const pageRuns = await runs.innerText()
    await dialog.getByRole('switch', { name: 'Email the customer' }).or(dialog.getByRole('checkbox', { name: 'Email the customer' })).uncheck()
    await dialog.getByText('is not emailed').waitFor()
    // The checkbox reran the dialog body alone.
    expect(await runs.innerText()).toBe(pageRuns)
    await screenshot(page, 'dashboard-refund-dialog')
    await dialog.getByRole('button', { name: 'Refund', exact: true }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.getByTestId('toast').getByText(`Order ${id} refunded`).waitFor()
    await page.getByText('Status: refunded').waitFor()
    expect(await page.getByRole('button', { name: 'Refund…' }).isDisabled()).toBe(true)
  })

  it('targets: editing a cell updates the metrics and the chart; a save the API refuses names the cell, the fixed one is stored', async () => {
    await page.getByRole('link', { name: /Targets/ }).click()
    await page.getByRole('heading', { name: 'Targets', level: 1 }).waitFor()
    const total = page.getByTestId('metric').filter({ hasText: 'Total target' }).locator('.svc-metric-value')
    await expect.poll(() => total.textContent()).toBe('$46,000')
    const ed = page.getByTestId('dataEditor')
    await ed.locator('tr[data-row="South"] td[data-col="target"]').click()
    await ed.getByLabel('Edit Target').fill('20000')
    await ed.getByLabel('Edit Target').press('Enter')
    await expect.poll(() => total.textContent()).toBe('$56,000')
    await page.getByTestId('vegaLiteChart').locator('g.mark-tick path, g.mark-rect path').first().waitFor()
    await screenshot(page, 'dashboard-targets')

    // A save the route refuses (a cleared date) names the cell and keeps the edits; nothing is stored.
    const review = (region: string) => ed.locator(`tr[data-row="${region}"] td[data-col="review"]`)
    await review('North').click()
    await ed.getByLabel('Edit Review on').fill('')
    await ed.getByLabel('Edit Review on').press('Enter')
    await page.getByRole('button', { name: 'Save targets' }).click()
    await page.getByTestId('error').getByText(/^Not saved: row 1, review: /).waitFor()
    await screenshot(page, 'dashboard-targets-refused')
    const stored = async () => (await (await fetch(new URL('api/targets', svc.url))).json()) as { region: string; target: number; review: string }[]
    expect((await stored()).find((t) => t.region === 'South')!.target).toBe(10000)
    expect(await total.textContent()).toBe('$56,000')
    // Fixed, the same edits are saved.
    await review('North').click()
    await ed.getByLabel('Edit Review on').fill('2026-03-01')
    await ed.getByLabel('Edit Review on').press('Enter')
    await page.getByRole('button', { name: 'Save targets' }).click()
    await page.getByText('Targets saved').waitFor()
    const saved = await stored()
    expect(saved.find((t) => t.region === 'South')!.target).toBe(20000)
    expect(saved.find((t) => t.region === 'North')!.review).toBe('2026-03-01')
    expect(errors).toEqual([])
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

  it('looks right in the dark theme', async () => {
    const context = await browser.newContext({ colorScheme: 'dark', viewport: { width: 1360, height: 900 } })
    try {
      const dark = await context.newPage()
      const darkErrors = collectPageErrors(dark)
      await dark.goto(svc.url)
      await dark.locator('.svc-app[data-layout="wide"]').waitFor({ timeout: 10_000 })
      expect(await dark.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
      await dark.getByTestId('vegaLiteChart').or(dark.getByTestId('areaChart')).first().locator('svg').first().waitFor()
      await screenshot(dark, 'dashboard-overview-dark')
      await dark.getByRole('link', { name: /Orders/ }).click()
      await dark.getByTestId('dataframe').locator('tbody tr').first().getByRole('checkbox').check()
      await dark.getByRole('heading', { name: /^Order #\d+$/ }).waitFor()
      await screenshot(dark, 'dashboard-orders-dark')
      await dark.getByRole('link', { name: /Targets/ }).click()
      await dark.getByTestId('vegaLiteChart').locator('svg').first().waitFor()
      await screenshot(dark, 'dashboard-targets-dark')
      expect(darkErrors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
