import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { collectPageErrors, launchBrowser, screenshot } from '../helpers/e2e-browser.js'
import { FakeSidecar } from '../helpers/e2e-fake-sidecar.js'
import { NAV, showcaseMain, showcaseSidebar } from '../helpers/e2e-showcase.js'
import type { ClientMessage } from '../../src/ui/wire/protocol.js'
import { WIDGET_TYPES, type ElementType } from '../../src/ui/wire/elements.js'

/** The browser client alone, against a scripted fake page server. */
describe('browser client rendering', () => {
  const fake = new FakeSidecar()
  let browser: Browser
  let page: Page
  let errors: string[]

  beforeAll(async () => {
    await fake.start()
    fake.onMessage = (m, reply) => {
      if (m.type === 'hello') {
        reply({ type: 'session', sessionId: 's-1', restored: false })
        reply({
          type: 'render', runId: 1, query: '', nav: NAV, main: showcaseMain(), sidebar: showcaseSidebar(),
          page: { path: '/showcase', title: 'Showcase', icon: '🧩', layout: 'wide', breadcrumb: null },
        })
      }
      if (m.type === 'dataframe_page') {
        reply({
          type: 'dataframe_rows', id: m.id, runId: 1, page: m.page, pageSize: 10, totalRows: 137, sort: m.sort,
          rows: Array.from({ length: 10 }, (_, i) => [m.page * 10 + i + 1, 'Row', true, 1, '2026-02-01']),
          rowIds: Array.from({ length: 10 }, (_, i) => m.page * 10 + i),
        })
      }
    }
    browser = await launchBrowser()
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    errors = collectPageErrors(page)
    await page.goto(`${fake.url}showcase`)
    await page.getByRole('heading', { name: 'Showcase', level: 1 }).waitFor()
  })

  afterAll(async () => {
    await browser?.close()
    await fake.stop()
  })

  it('renders every element type of the catalogue without page errors', async () => {
    const rendered = new Set(await page.locator('.svc-el').evaluateAll((els) => els.map((e) => e.getAttribute('data-type'))))
    const expected: ElementType[] = ['title', 'caption', 'columns', 'column', 'metric', 'header', 'lineChart', 'tabs', 'barChart', 'dataframe', 'table', 'json', 'success', 'info', 'warning', 'error', 'exception', 'progress', 'spinner', 'form', 'subheader', 'expander', 'container', 'markdown', 'code', 'text', 'link', 'image', 'divider', 'empty', ...WIDGET_TYPES.filter((t) => t !== 'component')]
    // A custom component needs its files served by a real page server: test/e2e/components.test.ts.
    for (const t of expected) expect(rendered, t).toContain(t)
    // Tab panels are rendered by `tabs` itself (ARIA tabpanel), not as separate element wrappers.
    expect(await page.locator('[role=tabpanel]').count()).toBe(3)
    expect(await page.locator('.svc-unknown').count()).toBe(0)
    await screenshot(page, 'client-showcase')
    expect(errors).toEqual([])
  })

  it('shows the sidebar nav with the active page and the page title', async () => {
    await expect.poll(() => page.title()).toBe('Showcase · Fake app')
    const active = page.locator('.svc-nav-link[aria-current=page]')
    expect(await active.textContent()).toContain('Showcase')
    expect(await page.locator('.svc-nav-link').count()).toBe(3)
  })

  it('commits a text input on Enter, not per keystroke', async () => {
    const from = fake.received.length
    const input = page.getByLabel('Name', { exact: true })
    await input.fill('')
    await input.pressSequentially('Grace')
    await input.press('Enter')
    // The socket keeps order: a per-keystroke send would arrive before the Enter commit.
    const m = await fake.next((x) => x.type === 'widget' && x.id === 'w.name', 5_000, from)
    expect(m).toMatchObject({ type: 'widget', id: 'w.name', value: 'Grace' })
  })

  it('sends a button click as a trigger', async () => {
    const from = fake.received.length
    await page.getByRole('button', { name: 'Refresh' }).click()
    expect(await fake.next((x) => x.type === 'widget' && x.id === 'w.btn', 5_000, from)).toMatchObject({ value: true, trigger: true })
  })

  it('sends checkbox, selectbox, multiselect and radio values', async () => {
    const from = fake.received.length
    await page.getByLabel('Send weekly digest').uncheck()
    await page.getByLabel('Region').selectOption({ label: 'APAC' })
    await page.getByRole('button', { name: 'Remove api' }).click()
    await page.getByRole('radio', { name: 'Enterprise' }).check()
    const byId = async (id: string) => ((await fake.next((x) => x.type === 'widget' && x.id === id, 5_000, from)) as Extract<ClientMessage, { type: 'widget' }>).value
    expect(await byId('w.check')).toBe(false)
    expect(await byId('w.sel')).toBe(2)
    expect(await byId('w.multi')).toEqual([1])
    expect(await byId('w.radio')).toBe(2)
  })

  it('collects form values and sends them once on submit', async () => {
    const from = fake.received.length
    await page.getByLabel('Email').fill('grace@example.com')
    await page.getByLabel('Role').selectOption({ label: 'Admin' })
    expect(fake.received.slice(from).some((m) => m.type === 'widget')).toBe(false)
    await page.getByRole('button', { name: 'Send invite' }).click()
    const m = await fake.next((x) => x.type === 'form_submit', 5_000, from)
    expect(m).toEqual({ v: 1, type: 'form_submit', formId: 'f1', values: { 'w.f.email': 'grace@example.com', 'w.f.role': 2, 'w.f.submit': true }, n: expect.any(Number) })
  })

  it('pages and sorts a dataframe through the server without a rerun', async () => {
    const df = page.getByTestId('dataframe')
    let from = fake.received.length
    await df.getByRole('button', { name: 'Next page' }).click()
    expect(await fake.next((x) => x.type === 'dataframe_page', 5_000, from)).toMatchObject({ id: 'm.7', page: 1, sort: null })
    await expect.poll(() => df.locator('tbody tr').first().locator('td').nth(1).textContent()).toBe('11')
    from = fake.received.length
    await df.getByRole('button', { name: /amount/ }).click()
    expect(await fake.next((x) => x.type === 'dataframe_page', 5_000, from)).toMatchObject({ page: 0, sort: { column: 'amount', direction: 'asc' } })
    await expect.poll(() => df.locator('th[aria-sort=ascending]').count()).toBe(1)
  })

  it('switches tabs with the keyboard', async () => {
    const tab = page.getByRole('tab', { name: 'Bars' })
    await tab.focus()
    await page.keyboard.press('ArrowRight')
    expect(await page.getByRole('tab', { name: 'Area' }).getAttribute('aria-selected')).toBe('true')
    expect(await page.getByTestId('areaChart').isVisible()).toBe(true)
  })

  it('shows a chart tooltip on hover', async () => {
    const svg = page.getByTestId('lineChart').locator('svg.marks')
    await svg.waitFor()
    const box = (await svg.boundingBox())!
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
    await page.mouse.move(box.x + box.width / 2 + 5, box.y + box.height / 2)
    const tip = page.locator('#vg-tooltip-element.visible')
    await tip.waitFor()
    expect(await tip.textContent()).toMatch(/api.*ui/)
    await screenshot(page, 'client-chart-tooltip')
  })
})
