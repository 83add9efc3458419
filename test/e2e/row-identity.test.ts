import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcPage } from '../helpers/e2e-app.js'

const APP = 'test/e2e/fixtures/identity-app.ts:app'

/**
 * Issue #22.1 in chromium through `svc run`: an orders editor over a filtered list and a detail
 * panel beside a selectable table, over data that changes between runs (the page reads it from
 * the app's API; the test changes it there too). Edits and selections stay with their orders, and
 * when an order leaves the list they are dropped, never moved to the order now at their place.
 */
describe('row identity in the browser', () => {
  let svc: SvcRun
  let page: Page
  let errors: string[]
  useSvcPage(APP, { viewport: { width: 1280, height: 900 }, stepTimeoutMs: 10_000 }, (s) => void ({ svc, page, errors } = s))

  const api = async (path: string, method: string, body?: unknown) => {
    const res = await fetch(new URL(`api${path}`, svc.url), { method, ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) })
    expect(res.status).toBe(200)
    return res.json() as Promise<unknown>
  }
  const text = (prefix: string) => page.locator('.svc-text').filter({ hasText: new RegExp(`^${prefix}`) })
  const shows = (prefix: string, rest: string) => text(prefix).filter({ hasText: `${prefix}${rest}` }).waitFor()
  const editor = () => page.getByTestId('dataEditor')
  const cell = (row: string, col: string) => editor().locator(`tr[data-row="${row}"] td[data-col="${col}"]`)
  const setStatus = async (row: string, status: string) => {
    await cell(row, 'status').click()
    await editor().getByLabel('Edit Status').selectOption(status)
  }
  const setNote = async (row: string, note: string) => {
    await cell(row, 'note').click()
    await editor().getByLabel('Edit Note').fill(note)
    await editor().getByLabel('Edit Note').press('Enter')
  }
  const shownRows = () => editor().locator('tbody tr').evaluateAll((trs) => trs.map((tr) => `${tr.getAttribute('data-row')}:${tr.querySelector('[data-col="status"]')?.textContent}:${tr.querySelector('[data-col="note"]')?.textContent}`))

  it('with rowKey: saved edits leave with their orders; an edit follows its order when others leave', async () => {
    await api('/orders/reset', 'POST')
    await page.goto(new URL('orders', svc.url).href)
    await page.getByRole('heading', { name: 'Open orders' }).waitFor()
    await setStatus('10002', 'shipped')
    await shows('edits: ', '10002:shipped')
    await setStatus('10004', 'cancelled')
    await shows('edits: ', '10002:shipped 10004:cancelled')
    await page.getByRole('button', { name: 'Save 2 change(s)' }).click()
    await shows('all: ', '10001:open 10002:shipped 10003:open 10004:cancelled 10005:open 10006:open')
    await shows('dropped: ', '10002,10004')
    await shows('edits: ', 'none')
    expect(await page.getByRole('button', { name: /^Save/ }).count()).toBe(0)
    expect(await shownRows()).toEqual(['10001:open:', '10003:open:', '10005:open:', '10006:open:'])

    // Someone else ships 10001 while a note on 10005 is pending: the note stays on 10005.
    await setNote('10005', 'call first')
    await shows('edits: ', '10005:open')
    await api('/orders', 'PATCH', [{ id: 10001, status: 'shipped' }])
    await page.getByRole('button', { name: 'Refresh' }).click()
    await expect.poll(shownRows).toEqual(['10003:open:', '10005:open:call first', '10006:open:'])
    await shows('edits: ', '10005:open')
    await screenshot(page, 'row-identity-editor')
    await page.getByRole('button', { name: 'Save 1 change(s)' }).click()
    await shows('all: ', '10001:shipped 10002:shipped 10003:open 10004:cancelled 10005:open 10006:open')
    // 'all:' read the same before the save's run: wait for the save itself.
    await expect.poll(async () => ((await api('/orders', 'GET')) as { id: number; note: string }[]).filter((o) => o.note).map((o) => `${o.id}:${o.note}`)).toEqual(['10005:call first'])
    await shows('edits: ', 'none')

    // delete st.sessionState.orders discards what is pending, in the browser too.
    await setNote('10003', 'oops')
    await shows('edits: ', '10003:open')
    await page.getByRole('button', { name: 'Discard changes' }).click()
    await shows('edits: ', 'none')
    await expect.poll(shownRows).toEqual(['10003:open:', '10005:open:call first', '10006:open:'])
    expect(errors).toEqual([])
  })

  it('without rowKey: the edits are cleared when the rows change, never re-applied to the orders now at their index', async () => {
    await api('/orders/reset', 'POST')
    await page.goto(new URL('orders?keyed=0', svc.url).href)
    await page.getByRole('heading', { name: 'Open orders' }).waitFor()
    await setStatus('1', 'shipped')
    await setStatus('3', 'cancelled')
    await shows('edits: ', '10002:shipped 10004:cancelled')
    await page.getByRole('button', { name: 'Save 2 change(s)' }).click()
    await shows('all: ', '10001:open 10002:shipped 10003:open 10004:cancelled 10005:open 10006:open')
    await shows('edits: ', 'none')
    await shows('dropped: ', '1,3')
    expect(await page.getByRole('button', { name: /^Save/ }).count()).toBe(0)
    expect(await shownRows()).toEqual(['0:open:', '1:open:', '2:open:', '3:open:'])

    await setNote('2', 'call first')
    await shows('edits: ', '10005:open')
    await api('/orders', 'PATCH', [{ id: 10001, status: 'shipped' }])
    await page.getByRole('button', { name: 'Refresh' }).click()
    await shows('edits: ', 'none')
    await expect.poll(shownRows).toEqual(['0:open:', '1:open:', '2:open:'])
    await screenshot(page, 'row-identity-editor-unkeyed')
    expect(((await api('/orders', 'GET')) as { note: string }[]).every((o) => o.note === '')).toBe(true)
  })

  it('with rowKey: the detail panel keeps order #10002 through a filter change, and empties when it is gone', async () => {
    await api('/orders/reset', 'POST')
    await api('/orders', 'PATCH', [{ id: 10001, status: 'shipped' }])
    await page.goto(new URL('detail', svc.url).href)
    await page.getByRole('heading', { name: 'Orders' }).waitFor()
    await page.getByRole('checkbox', { name: 'Select row 10002' }).check()
    await shows('detail: ', '#10002 Globex')
    await page.getByLabel('Show').selectOption('open')
    await expect.poll(() => page.getByTestId('dataframe').locator('tbody tr').first().getAttribute('data-row')).toBe('10002')
    await shows('detail: ', '#10002 Globex')
    expect(await page.getByRole('checkbox', { name: 'Select row 10002' }).isChecked()).toBe(true)
    await screenshot(page, 'row-identity-detail')
    // 10002 ships elsewhere: the panel empties; 10003, now first, is not selected.
    await api('/orders', 'PATCH', [{ id: 10002, status: 'shipped' }])
    await page.getByRole('button', { name: 'Refresh' }).click()
    await shows('detail: ', 'none')
    await shows('dropped: ', '10002')
    expect(await page.getByRole('checkbox', { name: 'Select row 10003' }).isChecked()).toBe(false)
  })

  it('without rowKey: a filter change clears the selection instead of moving it to #10003', async () => {
    await api('/orders/reset', 'POST')
    await api('/orders', 'PATCH', [{ id: 10001, status: 'shipped' }])
    await page.goto(new URL('detail?keyed=0', svc.url).href)
    await page.getByRole('heading', { name: 'Orders' }).waitFor()
    // The same tab's session still shows open orders from the test before.
    await page.getByLabel('Show').selectOption('all')
    // All six orders (the open ones are five): the render of 'all' is in, so the row picked next is #10002.
    await expect.poll(() => page.getByTestId('dataframe').locator('tbody tr').count()).toBe(6)
    await expect.poll(() => page.getByTestId('dataframe').locator('tbody tr').first().getAttribute('data-row')).toBe('0')
    await shows('detail: ', 'none')
    await page.getByRole('checkbox', { name: 'Select row 1' }).check()
    await shows('detail: ', '#10002 Globex')
    await page.getByLabel('Show').selectOption('open')
    await shows('dropped: ', '1')
    await shows('detail: ', 'none')
    expect(await page.getByTestId('dataframe').getByRole('checkbox', { checked: true }).count()).toBe(0)
    await screenshot(page, 'row-identity-detail-unkeyed')
    expect(errors).toEqual([])
  })

  it('with rowKey: a key cannot be edited on an existing row; an added row with a key in use is refused, with the reason shown', async () => {
    await page.goto(new URL('stock', svc.url).href)
    await page.getByRole('heading', { name: 'Stock' }).waitFor()
    await shows('skus: ', 'k1=1 k2=2')
    // The key cell of an existing row opens no editor; its other cells do.
    await cell('k1', 'sku').click()
    expect(await editor().getByLabel('Edit SKU').count()).toBe(0)
    expect(await cell('k1', 'sku').getAttribute('tabindex')).toBeNull()
    await page.getByRole('button', { name: '+ Add row' }).click()
    await shows('skus: ', 'k1=1 k2=2 null=null')
    const added = editor().locator('tbody tr').last()
    const setSku = async (sku: string) => {
      await added.locator('td[data-col="sku"]').click()
      await editor().getByLabel('Edit SKU').fill(sku)
      await editor().getByLabel('Edit SKU').press('Enter')
    }
    await setSku('k1')
    const refusal = page.getByRole('alert').filter({ hasText: 'Not saved' })
    await expect.poll(() => refusal.textContent()).toBe('Not saved: added row 1: the key "k1" is already used by another row; each row needs its own key')
    // The control went back to what the server holds: the new row without a key.
    await expect.poll(() => added.locator('td[data-col="sku"]').textContent()).not.toBe('k1')
    await shows('skus: ', 'k1=1 k2=2 null=null')
    await screenshot(page, 'row-identity-key-refused')
    await setSku('k3')
    await shows('skus: ', 'k1=1 k2=2 k3=null')
    expect(await refusal.count()).toBe(0)
    expect(errors).toEqual([])
  })
})
