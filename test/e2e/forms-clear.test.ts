import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { createUiTestHandle, type UiTestHandle } from 'svc/ui'
import type { ClientMessage } from '../../src/ui/wire/protocol.js'
import { screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcPage } from '../helpers/e2e-app.js'
import { app } from './fixtures/identity-app.js'

const APP = 'test/e2e/fixtures/identity-app.ts:app'

/** Every form-capable widget of the fixture's `/form` page: label, type, key. */
const WIDGETS = [
  ['Name', 'textInput', 'name'],
  ['Plan', 'radio', 'plan'],
  ['Region', 'selectbox', 'region'],
  ['Topics', 'multiselect', 'topics'],
  ['Newsletter', 'checkbox', 'news'],
  ['Beta features', 'toggle', 'beta'],
  ['About you', 'textArea', 'about'],
  ['Age', 'numberInput', 'age'],
  ['Avatar', 'fileUploader', 'avatar'],
  ['Seats', 'slider', 'seats'],
  ['Budget', 'slider', 'budget'],
  ['Start', 'dateInput', 'start'],
  ['Trip', 'dateInput', 'trip'],
  ['Call at', 'timeInput', 'call'],
  ['Colour', 'colorPicker', 'colour'],
  ['Size', 'selectSlider', 'size'],
  ['Tags', 'pills', 'tags'],
  ['View', 'segmentedControl', 'view'],
  ['', 'feedback', 'thumbs'],
  ['', 'dataEditor', 'items'],
  ['', 'dataframe', 'pick'],
] as const

type Shown = Record<string, unknown>

/**
 * What the page shows in each control, in the wire form the server's props use (option indexes,
 * ISO days, numbers); the data editor as its `qty` cells, the uploader as its file names.
 */
function readShown(page: Page): Promise<Shown> {
  return page.evaluate((widgets) => {
    const out: Record<string, unknown> = {}
    for (const [label, type, key] of widgets) {
      const field = label ? document.querySelector<HTMLElement>(`[data-testid="${type}"][data-label="${label}"]`) : document.querySelector<HTMLElement>(`[data-testid="${type}"]`)
      if (!field) throw new Error(`no ${type} "${label}" on the page`)
      const inputs = [...field.querySelectorAll<HTMLInputElement>('input:not([type=file]), textarea')]
      const pressed = [...field.querySelectorAll('button[aria-pressed]')].flatMap((b, i) => (b.getAttribute('aria-pressed') === 'true' ? [i] : []))
      switch (type) {
        case 'radio':
          out[key] = inputs.findIndex((i) => i.checked)
          break
        case 'selectbox':
          out[key] = Number(field.querySelector('select')!.value)
          break
        case 'multiselect':
          out[key] = [...field.querySelectorAll('.svc-chip span')].map((s) => ['api', 'ui', 'ops'].indexOf(s.textContent ?? ''))
          break
        case 'checkbox':
        case 'toggle':
          out[key] = inputs[0]!.checked
          break
        case 'numberInput':
        case 'slider':
        case 'selectSlider':
          out[key] = inputs.length === 2 ? inputs.map((i) => Number(i.value)) : Number(inputs[0]!.value)
          break
        case 'dateInput':
          out[key] = inputs.length === 2 ? inputs.map((i) => i.value) : inputs[0]!.value
          break
        case 'fileUploader':
          out[key] = [...field.querySelectorAll('.svc-file-name')].map((n) => n.textContent)
          break
        case 'pills':
        case 'segmentedControl':
          out[key] = pressed
          break
        case 'feedback':
          out[key] = pressed[0] ?? null
          break
        case 'dataEditor':
          out[key] = [...field.querySelectorAll('td[data-col="qty"]')].map((td) => Number(td.textContent))
          break
        case 'dataframe':
          out[key] = [...field.querySelectorAll<HTMLInputElement>('tbody input[type=checkbox]')].flatMap((c) => (c.checked ? [c.closest('tr')!.getAttribute('data-row')] : []))
          break
        default:
          out[key] = inputs[0]!.value
      }
    }
    return out
  }, WIDGETS as unknown as [string, string, string][])
}

/** The same, from the AppTest handle's last render (the server's values, as the browser gets them). */
function handleShows(at: UiTestHandle): Shown {
  const out: Shown = {}
  for (const [, type, key] of WIDGETS) {
    if (type === 'dataEditor') out[key] = (at.get('dataEditor')[0]!.props.rows as unknown[][]).map((r) => r[1])
    else if (type === 'dataframe') out[key] = at.get('dataframe')[0]!.props.selection
    else if (type === 'feedback') out[key] = at.get('feedback')[0]!.props.value
    else {
      const v = at.widget(type, key).props.value
      out[key] = type === 'fileUploader' ? (v as { name: string }[]).map((f) => f.name) : type === 'timeInput' && v !== null ? `${String(v)}` : v
    }
  }
  return out
}

/**
 * Issue #22.2: `clearOnSubmit` clears what the browser shows, not only the server's values. Every
 * form-capable widget is filled in chromium and submitted through `svc run`; the page must then
 * show exactly what the AppTest handle holds after the same submit (replayed from the frame the
 * browser sent): the defaults.
 */
describe('a form with clearOnSubmit in the browser', () => {
  let svc: SvcRun
  let page: Page
  let errors: string[]
  useSvcPage(APP, { viewport: { width: 1280, height: 1400 }, stepTimeoutMs: 10_000 }, (s) => void ({ svc, page, errors } = s))

  const field = (type: string, label: string) => page.locator(`[data-testid="${type}"][data-label="${label}"]`)
  const setRange = (type: string, label: string, nth: number, value: number) =>
    field(type, label).locator('input[type=range]').nth(nth).evaluate((el, v) => {
      const input = el as HTMLInputElement
      input.value = String(v)
      input.dispatchEvent(new Event('input', { bubbles: true }))
      input.dispatchEvent(new Event('change', { bubbles: true }))
    }, value)

  it('every widget shows what the AppTest handle reports after the same submit: its default', async () => {
    const submits: ClientMessage[] = []
    page.on('websocket', (ws) => ws.on('framesent', ({ payload }) => {
      const m = JSON.parse(String(payload)) as ClientMessage
      if (m.type === 'form_submit') submits.push(m)
    }))
    await page.goto(new URL('form', svc.url).href)
    await page.getByRole('heading', { name: 'Sign up' }).waitFor()
    const at = await createUiTestHandle(app, { target: '/form' }).run()
    const defaults = handleShows(at)
    expect(await readShown(page)).toEqual(defaults)

    await field('textInput', 'Name').locator('input').fill('Ada')
    await field('radio', 'Plan').getByText('Team').click()
    await field('selectbox', 'Region').locator('select').selectOption('AMER')
    await field('multiselect', 'Topics').locator('select').selectOption('ops')
    await page.getByLabel('Newsletter').check()
    await page.getByRole('switch', { name: 'Beta features' }).check()
    await field('textArea', 'About you').locator('textarea').fill('Likes tables')
    await field('numberInput', 'Age').locator('input').fill('41')
    await field('numberInput', 'Age').locator('input').press('Tab')
    await field('fileUploader', 'Avatar').locator('input[type=file]').setInputFiles({ name: 'me.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') })
    await field('fileUploader', 'Avatar').getByText('me.txt').waitFor()
    await setRange('slider', 'Seats', 0, 7)
    await setRange('slider', 'Budget', 1, 800)
    await field('dateInput', 'Start').locator('input').fill('2026-04-01')
    await field('dateInput', 'Trip').locator('input').nth(1).fill('2026-03-20')
    await field('timeInput', 'Call at').locator('input').fill('14:30')
    await field('colorPicker', 'Colour').locator('input').fill('#ff8800')
    await setRange('selectSlider', 'Size', 0, 3)
    await field('pills', 'Tags').getByRole('button', { name: 'blue' }).click()
    await field('segmentedControl', 'View').getByRole('button', { name: 'grid' }).click()
    await page.getByTestId('feedback').getByRole('button', { name: 'Thumbs up' }).click()
    const editor = page.getByTestId('dataEditor')
    await editor.locator('tr[data-row="ink"] td[data-col="qty"]').click()
    await editor.getByLabel('Edit qty').fill('9')
    await editor.getByLabel('Edit qty').press('Enter')
    await page.getByTestId('dataframe').getByRole('checkbox', { name: 'Select row 2' }).check()

    const filled = await readShown(page)
    for (const [, , key] of WIDGETS) expect(filled[key], `${key} was changed by the test`).not.toEqual(defaults[key])
    await screenshot(page, 'form-filled')

    await page.getByRole('button', { name: 'Sign up' }).click()
    await page.getByText('Welcome Ada on Team').waitFor()
    await expect.poll(() => page.getByTestId('dataEditor').locator('td[data-col="qty"]').allTextContents()).toEqual(['1', '2'])
    const shown = await readShown(page)
    await screenshot(page, 'form-cleared')

    // The same submit, replayed into the AppTest handle.
    expect(submits).toHaveLength(1)
    await at.send(submits[0]!)
    expect(at.get('success')[0]!.props.html).toContain('Welcome Ada on Team')
    expect(handleShows(at)).toEqual(shown)
    expect(shown).toEqual(defaults)

    // Submitting again sends what the page shows, so the page greets the defaults.
    await page.getByRole('button', { name: 'Sign up' }).click()
    await page.getByText('Welcome on Free').waitFor()
    expect(await readShown(page)).toEqual(defaults)
    await at.send(submits[1]!)
    expect(at.get('success')[0]!.props.html).toContain('Welcome  on Free')
    expect(errors).toEqual([])
  })
})
