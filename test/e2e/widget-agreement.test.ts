import { describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { createUiTestHandle } from 'svc/ui'
import { screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcWithBrowser } from '../helpers/e2e-app.js'
import { expectAgreement, openAgreementPage, prng, replay, type Rng } from '../helpers/widget-agreement.js'
import { app, COLOURS, DAY_MAX, DAY_MIN, PLANS, QTY_MAX, SEED_ITEMS, SIZES, TAGS, type Held, type Item } from './fixtures/agreement-app.js'

const APP = 'test/e2e/fixtures/agreement-app.ts:app'
/** Seeds and steps: fixed by default (bounded time); `SVC_AGREEMENT_SEEDS=7,8 SVC_AGREEMENT_STEPS=200` for a longer soak. */
const SEEDS = (process.env.SVC_AGREEMENT_SEEDS ?? '1,2').split(',').map(Number)
/** Even seeds run a slow page (its runs take this long), so actions land while a run is under way. */
const SLOW_MS = Number(process.env.SVC_AGREEMENT_SLOW_MS ?? 250)
const STEPS = Number(process.env.SVC_AGREEMENT_STEPS ?? 45)

/**
 * What the page holds can be read three ways after each step: the controls the browser shows,
 * the page's own `held:` line (the real server, through `svc run`), and the AppTest handle fed
 * the same client messages. All three must agree after every step of a seeded random walk of
 * what users do over days: type, pick, click, reset, set state, submit, edit a table whose data
 * changes under it, reload, lose the socket.
 */
describe('what the browser shows is what the page holds', () => {
  let svc: SvcRun
  let browser: Browser
  useSvcWithBrowser(APP, [], (s) => void ({ svc, browser } = s))

  for (const seed of SEEDS) {
    const slow = seed % 2 === 0 ? SLOW_MS : 0
    it(`seed ${seed}${slow ? ', slow page' : ''}: ${STEPS} random steps agree in the browser, on the server and in the AppTest handle`, async () => {
      await agreementWalk(svc, browser, seed, slow)
    }, 30_000 + STEPS * 8_000)
  }
})

async function agreementWalk(svc: SvcRun, browser: Browser, seed: number, slowMs: number): Promise<void> {
  const rng = prng(seed)
  let items: Item[] = SEED_ITEMS.map((i) => ({ ...i }))
  const putItems = async () => {
    const res = await fetch(new URL('api/items', svc.url), { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(items) })
    expect(res.status).toBe(200)
  }
  await putItems()
  // The AppTest handle's page reads the same items through the same API.
  process.env.SVC_INTERNAL_API_BASE = new URL('api', svc.url).href
  const at = createUiTestHandle(app, { target: '/', timeoutMs: 10_000, ...(slowMs ? { queryParams: { slow: String(slowMs) } } : {}) })

  const ap = await openAgreementPage(browser, slowMs ? `${svc.url}?slow=${slowMs}` : svc.url, `seed ${seed}`)
  try {
    const { page, field, button, newConnection } = ap
    /** Form fields edited in the browser and not submitted: shown there, not held by the server (by design). */
    let unsubmitted: Partial<Pick<Held, 'email' | 'plan'>> = {}
    const word = (r: Rng) => Array.from({ length: r.int(0, 24) }, () => r.pick('abcdefghij XYZ'.split(''))).join('')
    const commitKey = (r: Rng) => r.pick(['Enter', 'Tab'])
    const dayOf = (r: Rng) => new Date(Date.UTC(2025, 10, 1) + r.int(0, 480) * 86_400_000).toISOString().slice(0, 10)

    type Action = [weight: number, name: string, run: (r: Rng) => Promise<string>]
    const actions: Action[] = [
      [3, 'type name', async (r) => {
        const v = word(r)
        await field('textInput', 'Name').locator('input').fill(v)
        const key = commitKey(r)
        await field('textInput', 'Name').locator('input').press(key)
        return `${JSON.stringify(v)} + ${key}`
      }],
      [3, 'type name, then Reset text', async (r) => {
        const v = word(r)
        await field('textInput', 'Name').locator('input').fill(v)
        await button('Reset text').click()
        delete unsubmitted.email
        return JSON.stringify(v)
      }],
      [2, 'type notes, then Set values', async (r) => {
        const v = word(r)
        await field('textArea', 'Notes').locator('textarea').fill(v)
        await button('Set values').click()
        unsubmitted = {}
        return JSON.stringify(v)
      }],
      [2, 'type qty', async (r) => {
        const v = String(r.int(0, 60))
        await field('numberInput', 'Qty').locator('input').fill(v)
        const key = commitKey(r)
        await field('numberInput', 'Qty').locator('input').press(key)
        return `${v} + ${key}`
      }],
      [2, 'step qty', async (r) => {
        const name = r.pick(['Increase', 'Decrease'])
        const b = field('numberInput', 'Qty').getByRole('button', { name })
        if (await b.isDisabled()) return `${name} is disabled`
        await b.click()
        return name
      }],
      [2, 'slide level', async (r) => {
        const key = r.pick(['ArrowRight', 'ArrowLeft', 'End', 'Home'])
        await field('slider', 'Level').locator('input').press(key)
        return key
      }],
      [2, 'pick colour', async (r) => {
        const v = r.pick(COLOURS)
        await field('selectbox', 'Colour').locator('select').selectOption(v)
        return v
      }],
      [2, 'add or remove a tag', async (r) => {
        const select = field('multiselect', 'Tags').locator('select')
        const remove = field('multiselect', 'Tags').locator('.svc-chip-remove')
        const removable = await remove.count()
        if ((await select.isDisabled()) || (removable > 0 && r.chance(0.4))) {
          if (removable === 0) return 'nothing to add or remove'
          const i = r.int(0, removable - 1)
          const label = await remove.nth(i).getAttribute('aria-label')
          await remove.nth(i).click()
          return String(label)
        }
        const options = (await select.locator('option:not([disabled])').allTextContents()).filter((o) => (TAGS as readonly string[]).includes(o))
        const v = r.pick(options)
        await select.selectOption(v)
        return `add ${v}`
      }],
      [2, 'click agree', async () => {
        await field('checkbox', 'Agree').locator('input').click()
        return ''
      }],
      [2, 'click dark', async () => {
        await page.getByRole('switch', { name: 'Dark' }).click()
        return ''
      }],
      [2, 'pick size', async (r) => {
        const v = r.pick(SIZES)
        await field('radio', 'Size').getByText(v, { exact: true }).click()
        return v
      }],
      [2, 'pick day', async (r) => {
        const v = dayOf(r)
        await field('dateInput', 'Day').locator('input').fill(v)
        return `${v}${v < DAY_MIN || v > DAY_MAX ? ' (outside min/max)' : ''}`
      }],
      [2, 'type notes', async (r) => {
        const v = word(r)
        await field('textArea', 'Notes').locator('textarea').fill(v)
        const key = r.pick(['Control+Enter', 'Tab'])
        await field('textArea', 'Notes').locator('textarea').press(key)
        return `${JSON.stringify(v)} + ${key}`
      }],
      [2, 'edit the form, not sent', async (r) => {
        if (r.chance(0.5)) {
          const v = word(r)
          await field('textInput', 'Email').locator('input').fill(v)
          await field('textInput', 'Email').locator('input').press('Tab')
          unsubmitted.email = v
          return `email ${JSON.stringify(v)}`
        }
        const v = r.pick(PLANS)
        await field('selectbox', 'Plan').locator('select').selectOption(v)
        unsubmitted.plan = v
        return `plan ${v}`
      }],
      [2, 'send the form', async (r) => {
        if (r.chance(0.5)) {
          const v = word(r)
          await field('textInput', 'Email').locator('input').fill(v)
          await field('textInput', 'Email').locator('input').press('Enter')
          unsubmitted = {}
          return `Enter in email ${JSON.stringify(v)}`
        }
        await button('Send').click()
        unsubmitted = {}
        return 'Send'
      }],
      [3, 'edit a qty cell', async (r) => {
        const rows = await page.getByTestId('dataEditor').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row')!))
        if (rows.length === 0) return 'no rows'
        const row = r.pick(rows)
        // Above the column's max the server refuses the edit: the cell must not keep it.
        const v = String(r.chance(0.25) ? r.int(QTY_MAX + 1, QTY_MAX + 30) : r.int(0, 20))
        await page.getByTestId('dataEditor').locator(`tr[data-row="${row}"] td[data-col="qty"]`).click()
        await page.getByTestId('dataEditor').getByLabel('Edit Qty').fill(v)
        await page.getByTestId('dataEditor').getByLabel('Edit Qty').press('Enter')
        return `${row} = ${v}`
      }],
      [2, 'Reset text', async () => {
        await button('Reset text').click()
        delete unsubmitted.email
        return ''
      }],
      [2, 'Set values', async () => {
        await button('Set values').click()
        unsubmitted = {}
        return ''
      }],
      [2, 'Set invalid', async () => {
        await button('Set invalid').click()
        delete unsubmitted.plan
        return ''
      }],
      [2, 'Reset choices (callback)', async () => {
        await button('Reset choices').click()
        delete unsubmitted.plan
        return ''
      }],
      [2, 'Clear code', async () => {
        await button('Clear code').click()
        return ''
      }],
      [2, 'Reset all after drawing', async () => {
        await button('Reset all after').click()
        unsubmitted = {}
        return ''
      }],
      [2, 'change the items', async (r) => {
        const what = r.int(0, 3)
        if (what === 0 && items.length > 1) items.splice(r.int(0, items.length - 1), 1)
        else if (what === 1 && items.length < 7) items.push({ sku: `N${r.int(10, 99)}${items.length}`, name: 'new', qty: r.int(0, 20) })
        else if (what === 2) items = items.map((i) => (r.chance(0.5) ? { ...i, qty: r.int(0, 20) } : i))
        else items = [...items].reverse()
        await putItems()
        const rerun = r.chance(0.6)
        if (rerun) await button('Rerun').click()
        return `${items.map((i) => `${i.sku}:${i.qty}`).join(' ')}${rerun ? ' + Rerun' : ''}`
      }],
      [2, 'type code (in a fragment)', async (r) => {
        const v = word(r)
        await field('textInput', 'Code').locator('input').fill(v)
        const key = commitKey(r)
        await field('textInput', 'Code').locator('input').press(key)
        return `${JSON.stringify(v)} + ${key}`
      }],
      [2, 'type code, then Clear code', async (r) => {
        const v = word(r)
        await field('textInput', 'Code').locator('input').fill(v)
        await button('Clear code').click()
        return JSON.stringify(v)
      }],
      [1, 'reload the page', async () => {
        await newConnection(() => page.reload())
        unsubmitted = {}
        return ''
      }],
      [1, 'lose the socket', async () => {
        await newConnection(async () => ap.dropSocket())
        return ''
      }],
    ]
    /** Actions a fast user does one after the other, without waiting for the page. */
    const quick = new Set(['type name', 'type name, then Reset text', 'type qty', 'slide level', 'pick colour', 'click agree', 'click dark', 'pick size', 'type notes',
      'edit the form, not sent', 'send the form', 'Reset text', 'Set values', 'Reset choices (callback)', 'Reset all after drawing', 'type code (in a fragment)', 'Clear code'])
    const choose = (list: Action[]): Action => {
      let x = rng.int(1, list.reduce((n, [w]) => n + w, 0))
      for (const a of list) if ((x -= a[0]) <= 0) return a
      return list[list.length - 1]!
    }
    const quickActions = actions.filter(([, name]) => quick.has(name))
    const inTurn = async (r: Rng, n: number) => {
      const done: string[] = []
      for (let i = 0; i < n; i++) {
        const [, name, run] = choose(quickActions)
        done.push(`${name} ${await run(r)}`.trim())
      }
      return done.join('; ')
    }
    actions.push(
      [3, 'burst', (r) => inTurn(r, r.int(2, 3))],
      [1, 'act while the socket is down', async (r) => {
        let done = ''
        await newConnection(async () => {
          ap.dropSocket()
          done = await inTurn(r, 1)
        })
        return done
      }],
    )

    await page.goto(slowMs ? `${svc.url}?slow=${slowMs}` : svc.url)
    await page.getByRole('heading', { name: 'Agreement' }).waitFor()
    const log: string[] = []
    for (let step = 0; step <= STEPS; step++) {
      if (step > 0) {
        const [, name, run] = choose(actions)
        log.push(`${step}. ${name} ${await run(rng)}`.trim())
      }
      await ap.settle()
      await replay(at, ap.takeFrames())
      await expectAgreement(page, at, `seed ${seed}, step ${step}${step ? ` (${log[step - 1]})` : ''}; steps so far:\n${log.join('\n')}\n`, unsubmitted)
    }
    await screenshot(page, `widget-agreement-seed-${seed}`)
    expect(ap.errors).toEqual([])
  } finally {
    await ap.close()
  }
}
