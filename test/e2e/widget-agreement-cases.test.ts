import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { createUiTestHandle, type UiTestHandle } from 'svc/ui'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcWithBrowser } from '../helpers/e2e-app.js'
import { expectAgreement, openAgreementPage, replay, shownInBrowser, type AgreementPage } from '../helpers/widget-agreement.js'
import { app, SEED_ITEMS, type Held } from './fixtures/agreement-app.js'

const APP = 'test/e2e/fixtures/agreement-app.ts:app'

/**
 * The divergences the random agreement walk (widget-agreement.test.ts) found, one case each, in
 * chromium through `svc run`: after every step the browser shows what the server's page holds
 * and what an AppTest handle fed the same messages holds. Runs the test must catch under way are
 * held at a gate the page awaits (`?gated=1`), so nothing depends on timing.
 */
describe('what the browser shows is what the page holds: the cases found', () => {
  let svc: SvcRun
  let browser: Browser
  useSvcWithBrowser(APP, [], (s) => void ({ svc, browser } = s))

  let ap: AgreementPage
  let at: UiTestHandle
  const api = async (path: string, method: string, body?: unknown) => {
    const res = await fetch(new URL(`api${path}`, svc.url), { method, ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) })
    expect(res.status).toBe(200)
  }
  beforeEach(async (t) => {
    await api('/items', 'PUT', SEED_ITEMS)
    process.env.SVC_INTERNAL_API_BASE = new URL('api', svc.url).href
    at = createUiTestHandle(app, { timeoutMs: 10_000 })
    ap = await openAgreementPage(browser, `${svc.url}?gated=1`, t.task.name)
    await ap.page.goto(`${svc.url}?gated=1`)
    await step('the first run')
  })
  afterEach(async () => {
    await api('/gate/open', 'POST')
    expect(ap.errors).toEqual([])
    await ap.close()
  })

  /** Settle, replay what the browser sent into the AppTest handle, and compare all three. */
  async function step(what: string, unsubmitted: Partial<Held> = {}): Promise<Held> {
    await ap.settle()
    await replay(at, ap.takeFrames())
    await expectAgreement(ap.page, at, `after ${what}: `, unsubmitted)
    return shownInBrowser(ap.page)
  }
  const fill = async (type: string, label: string, value: string, key: string) => {
    const input = ap.field(type, label).locator('input, textarea')
    await input.fill(value)
    await input.press(key)
  }

  it('a typed value and a reset in one run: the field shows the reset, although the render repeats the last one', async () => {
    await api('/gate/close', 'POST')
    // The blur sends the name, the click the reset; the name's run is held, so both land in one.
    await ap.field('textInput', 'Name').locator('input').fill('typed')
    await ap.button('Reset text').click()
    await api('/gate/open', 'POST')
    expect((await step('typing a name, then Reset text')).name).toBe('')
    await ap.button('Set values').click()
    expect((await step('Set values')).notes).toBe('set')
    await api('/gate/close', 'POST')
    await ap.field('textArea', 'Notes').locator('textarea').fill('typed')
    await ap.button('Set values').click()
    await api('/gate/open', 'POST')
    expect((await step('typing notes, then Set values again')).notes).toBe('set')
  })

  it('an edit the server refuses does not stay in the cell', async () => {
    await ap.page.getByTestId('dataEditor').locator('tr[data-row="B2"] td[data-col="qty"]').click()
    await ap.page.getByTestId('dataEditor').getByLabel('Edit Qty').fill('150')
    await ap.page.getByTestId('dataEditor').getByLabel('Edit Qty').press('Enter')
    expect((await step('qty 150 (over the column max 99) for B2')).items).toEqual(['A1:3', 'B2:5', 'C3:8', 'D4:1'])
  })

  it('a reset drawn after the form clears its unsubmitted edit, though the value it holds does not change', async () => {
    await fill('textInput', 'Email', 'draft@example.com', 'Tab')
    expect((await step('typing an email, not sent', { email: 'draft@example.com' })).email).toBe('draft@example.com')
    await ap.button('Reset all after').click()
    expect((await step('Reset all after')).email).toBe('')
  })

  it('a value the page sets replaces an unsubmitted edit, also when the page sets the value it already held', async () => {
    await fill('textInput', 'Email', 'mine@example.com', 'Tab')
    await ap.button('Set values').click()
    expect((await step('an unsubmitted email, then Set values')).email).toBe('set@example.com')
    await fill('textInput', 'Email', 'mine-again@example.com', 'Tab')
    await ap.button('Set values').click()
    expect((await step('another unsubmitted email, then Set values again')).email).toBe('set@example.com')
  })

  it('a reset in a button callback replaces an unsubmitted choice', async () => {
    await ap.field('selectbox', 'Plan').locator('select').selectOption('Team')
    expect((await step('choosing Team, not sent', { plan: 'Team' })).plan).toBe('Team')
    await ap.button('Reset choices').click()
    expect((await step('Reset choices (onClick deletes the keys)')).plan).toBe('Free')
  })

  it("input made while a click's run is under way is applied after that run, not before it", async () => {
    await api('/gate/close', 'POST')
    await ap.button('Set values').click()
    await fill('numberInput', 'Qty', '45', 'Enter')
    await api('/gate/open', 'POST')
    expect((await step('Set values, then qty 45 while its run was held')).qty).toBe(45)
  })

  it("an edit made while a click's run is under way survives that run's reset of the field", async () => {
    await api('/gate/close', 'POST')
    await ap.button('Reset text').click()
    await fill('textInput', 'Email', 'after@example.com', 'Tab')
    // A message that causes no run, handled while the reset's run is held: the run did not see the edit.
    await ap.probe()
    await api('/gate/open', 'POST')
    const shown = await step('Reset text, then an email typed while its run was held', { email: 'after@example.com' })
    expect(shown.email).toBe('after@example.com')
    await ap.button('Send').click()
    const sent = await step('sending it')
    expect(sent.email).toBe('')
    expect(await ap.page.getByText('sent: after@example.com on Free').count()).toBe(1)
  })
})
