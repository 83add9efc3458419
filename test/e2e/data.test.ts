import { describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { collectPageErrors, screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcPage } from '../helpers/e2e-app.js'

const APP = 'test/e2e/fixtures/data-app.ts:app'

/** Dataframe column formats, row selection, the data editor and a 100k-row table, in chromium through `svc run`. */
describe('data in the browser', () => {
  let svc: SvcRun
  let browser: Browser
  let page: Page
  let errors: string[]
  useSvcPage(APP, { viewport: { width: 1280, height: 900 }, stepTimeoutMs: 10_000 }, (s) => void ({ svc, browser, page, errors } = s))

  const text = (prefix: string) => page.locator('.svc-text').filter({ hasText: new RegExp(`^${prefix}`) })
  const frame = (i: number) => page.getByTestId('dataframe').nth(i)

  it('formats configured columns: currency, percent, progress, link, image, checkbox, hidden, pinned', async () => {
    await page.goto(svc.url)
    await page.getByRole('heading', { name: 'Orders' }).waitFor()
    const df = frame(0)
    const headers = await df.locator('thead th').allTextContents()
    // Index first, then the pinned column, then the rest in data order; the hidden column is not sent.
    expect(headers.map((h) => h.replace(/[↕↑↓?]/g, '').trim())).toEqual(['', 'Region', 'id', 'customer', 'Amount', 'Share', 'Fulfilled', 'Order page', 'Logo', 'Paid'])
    const first = df.locator('tbody tr').first()
    expect(await first.locator('td[data-col="amount"]').textContent()).toBe('$1,234.50')
    expect(await first.locator('td[data-col="share"]').textContent()).toBe('12.50%')
    expect(await first.locator('td[data-col="progress"] [role="progressbar"]').getAttribute('aria-valuenow')).toBe('0.2')
    expect(await first.locator('td[data-col="progress"]').textContent()).toBe('20%')
    const link = first.locator('td[data-col="site"] a')
    expect(await link.textContent()).toBe('acme')
    expect(await link.getAttribute('href')).toBe('https://acme.example.com/orders/1001')
    expect(await df.locator('td[data-col="logo"] img').count()).toBe(8)
    expect(await first.locator('td[data-col="paid"] [role="checkbox"]').isChecked()).toBe(false)
    expect(await df.locator('tbody tr').nth(1).locator('td[data-col="paid"] [role="checkbox"]').isChecked()).toBe(true)
    expect(await page.content()).not.toContain('secret-0')
    expect(await df.locator('th.is-pinned').getAttribute('style')).toContain('--svc-pin-1')
    // A pinned column stays put while the table scrolls sideways.
    await page.setViewportSize({ width: 700, height: 900 })
    const wrap = df.locator('.svc-table-wrap')
    const before = await df.locator('td.is-pinned').first().boundingBox()
    await wrap.evaluate((el) => (el.scrollLeft = 300))
    const after = await df.locator('td.is-pinned').first().boundingBox()
    expect(after!.x).toBeCloseTo(before!.x, 0)
    await wrap.evaluate((el) => (el.scrollLeft = 0))
    await page.setViewportSize({ width: 1280, height: 900 })
    await screenshot(page, 'data-formatted')
  })

  it('selects one row, then several across sort and pages; the page gets indexes and rows', async () => {
    const single = frame(1)
    await single.getByRole('checkbox', { name: 'Select row 2' }).check()
    await text('single:').filter({ hasText: 'single: [2] Initech' }).waitFor()
    await single.getByRole('checkbox', { name: 'Select row 1' }).check()
    await text('single:').filter({ hasText: 'single: [1] Globex' }).waitFor()
    expect(await single.getByRole('checkbox', { name: 'Select row 2' }).isChecked()).toBe(false)

    const multi = frame(2)
    await multi.getByRole('checkbox', { name: 'Select row 0' }).check()
    await text('multi:').filter({ hasText: 'multi: [0]' }).waitFor()
    await multi.getByRole('checkbox', { name: 'Select row 3' }).check()
    await text('multi:').filter({ hasText: 'multi: [0,3]' }).waitFor()
    // Sort by id descending: rows 7..3 on the first page; row 3 is still selected.
    const sortId = multi.getByRole('button', { name: 'id', exact: true })
    await sortId.click()
    await multi.locator('th[aria-sort="ascending"]').waitFor()
    await sortId.click()
    await multi.locator('th[aria-sort="descending"]').waitFor()
    await expect.poll(() => multi.locator('tbody tr').first().getAttribute('data-row')).toBe('7')
    expect(await multi.getByRole('checkbox', { name: 'Select row 3' }).isChecked()).toBe(true)
    await multi.getByRole('checkbox', { name: 'Select row 7' }).check()
    await text('multi:').filter({ hasText: 'multi: [0,3,7]' }).waitFor()
    await multi.getByRole('button', { name: 'Next page' }).click()
    await expect.poll(() => multi.locator('tbody tr').first().getAttribute('data-row')).toBe('2')
    expect(await multi.getByRole('checkbox', { name: 'Select row 0' }).isChecked()).toBe(true)
    expect(await multi.getByText('3 selected').count()).toBe(1)
    await screenshot(page, 'data-selection')
  })

  it('edits cells with typed editors, adds and deletes rows; the page gets the edited rows', async () => {
    await page.goto(`${svc.url}editor`)
    await page.getByRole('heading', { name: 'Tasks' }).waitFor()
    const ed = page.getByTestId('dataEditor')
    const cell = (row: number, col: string) => ed.locator(`tr[data-row="${row}"] td[data-col="${col}"]`)
    await text('total hours:').filter({ hasText: 'total hours: 6' }).waitFor()

    await cell(0, 'hours').click()
    await ed.getByLabel('Edit Hours').fill('5')
    await ed.getByLabel('Edit Hours').press('Enter')
    await text('total hours:').filter({ hasText: 'total hours: 8' }).waitFor()
    // Keyboard: Enter opens a cell's editor, Escape leaves it without a change.
    await cell(1, 'hours').focus()
    await page.keyboard.press('Enter')
    await ed.getByLabel('Edit Hours').fill('30')
    await ed.getByLabel('Edit Hours').press('Escape')
    expect(await ed.getByLabel('Edit Hours').count()).toBe(0)
    expect(await cell(1, 'hours').textContent()).toBe('1')

    await ed.getByRole('checkbox', { name: 'Done of row 0' }).check()
    await text('rows:').filter({ hasText: 'Write docs/ada/true' }).waitFor()

    await cell(2, 'owner').click()
    await ed.getByLabel('Edit Owner').selectOption('linus')
    await text('rows:').filter({ hasText: 'Ship it/linus/false' }).waitFor()

    await cell(0, 'due').click()
    await ed.getByLabel('Edit Due').fill('2026-02-03')
    await ed.getByLabel('Edit Due').press('Enter')
    await expect.poll(() => cell(0, 'due').textContent()).toBe('03 Feb 2026')

    await ed.getByRole('button', { name: '+ Add row' }).click()
    await text('rows:').filter({ hasText: 'rows: 4;' }).waitFor()
    await cell(3, 'task').click()
    await ed.getByLabel('Edit task').fill('New task')
    await ed.getByLabel('Edit task').press('Enter')
    await text('rows:').filter({ hasText: 'New task/null/false' }).waitFor()
    await text('total hours:').filter({ hasText: 'total hours: 9' }).waitFor()

    await ed.getByRole('button', { name: 'Delete row 1' }).click()
    await text('rows:').filter({ hasText: 'rows: 3;' }).waitFor()
    expect(await text('rows:').textContent()).toBe('rows: 3; tasks: Write docs/ada/true, Ship it/linus/false, New task/null/false')
    // Edits live in widget state: a reload of the session (rerun) keeps them.
    await page.reload()
    await text('rows:').filter({ hasText: 'rows: 3;' }).waitFor()
    await screenshot(page, 'data-editor')
  })

  it('a 100,000-row table shows one page, and paging, sorting and selecting move one page', async () => {
    const big = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const bigErrors = collectPageErrors(big)
    let received = 0
    big.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => void (received += Buffer.byteLength(payload))))
    await big.goto(`${svc.url}big`)
    const df = big.getByTestId('dataframe')
    await df.getByText('1–25 of 100,000 rows').waitFor()
    const firstShown = received
    expect(await df.locator('tbody tr').count()).toBe(25)

    let mark = received
    await df.getByRole('button', { name: 'Next page' }).click()
    await df.getByText('Page 2 of 4,000').waitFor()
    await expect.poll(() => df.locator('tbody tr').first().getAttribute('data-row')).toBe('25')
    const perPage = received - mark

    mark = received
    const sortAmount = df.getByRole('button', { name: 'amount', exact: true })
    await sortAmount.click()
    await df.locator('th[aria-sort="ascending"]').waitFor()
    await sortAmount.click()
    await df.locator('th[aria-sort="descending"]').waitFor()
    // The first sort of 100k rows orders them once on the server (later pages only slice).
    await expect.poll(() => df.locator('tbody tr').first().locator('td[data-col="amount"]').textContent(), { timeout: 15_000 }).toBe('$999.99')
    const perSort = (received - mark) / 2

    mark = received
    const top = await df.locator('tbody tr').first().getAttribute('data-row')
    await df.getByRole('checkbox', { name: `Select row ${top}`, exact: true }).check()
    await big.locator('.svc-text').filter({ hasText: `big selected: [${top}]` }).waitFor()
    const perSelect = received - mark
    expect(await df.locator('tbody tr').count()).toBe(25)
    expect(await big.locator('tr').count()).toBeLessThan(30)

    console.log(`100k-row dataframe: first shown ${firstShown} B, page change ${perPage} B, sort ${perSort} B, select (rerun) ${perSelect} B`)
    expect(firstShown).toBeLessThan(20_000)
    expect(perPage).toBeLessThan(4_000)
    expect(perSort).toBeLessThan(4_000)
    expect(perSelect).toBeLessThan(10_000)
    await screenshot(big, 'data-big')
    expect(bigErrors).toEqual([])
    await big.close()
  })

  it('no page errors', () => {
    expect(errors).toEqual([])
  })
})
