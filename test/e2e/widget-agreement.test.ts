import { describe, expect, it } from 'vitest'
import type { Browser, Page, WebSocketRoute } from 'playwright-core'
import { createUiTestHandle, type UiTestHandle } from 'svc/ui'
import type { ClientMessage, WireServerMessage } from '../../src/ui/protocol.js'
import { collectPageErrors, screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcWithBrowser } from '../helpers/e2e-app.js'
import { app, COLOURS, DAY_MAX, DAY_MIN, PLANS, QTY_MAX, SEED_ITEMS, SIZES, TAGS, type Held, type Item } from './fixtures/agreement-app.js'

const APP = 'test/e2e/fixtures/agreement-app.ts:app'
/** Seeds and steps: fixed by default (bounded time); `SVC_AGREEMENT_SEEDS=7,8 SVC_AGREEMENT_STEPS=200` for a longer soak. */
const SEEDS = (process.env.SVC_AGREEMENT_SEEDS ?? '1,2').split(',').map(Number)
const STEPS = Number(process.env.SVC_AGREEMENT_STEPS ?? 45)
const PROBE = 'df-probe'
/** How long one step may take to settle before the test fails naming it. */
const SETTLE_MS = 15_000

/** A small, seedable PRNG (mulberry32): the same seed gives the same actions. */
function prng(seed: number) {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (lo: number, hi: number): number => lo + Math.floor(next() * (hi - lo + 1))
  const pick = <T>(list: readonly T[]): T => list[int(0, list.length - 1)]!
  return { next, int, pick, chance: (p: number) => next() < p }
}
type Rng = ReturnType<typeof prng>

/** One page socket as the proxy in front of it sees it. */
interface Conn {
  route: WebSocketRoute
  server: WebSocketRoute
  session: boolean
  /** The last `run_state` the server sent on it (null: none yet). */
  running: boolean | null
  /** Answers to the settling probe, with the run state last seen before each. */
  answers: { rowIds: string[]; running: boolean | null }[]
}

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
    it(`seed ${seed}: ${STEPS} random steps agree in the browser, on the server and in the AppTest handle`, async () => {
      await agreementWalk(svc, browser, seed)
    }, 30_000 + STEPS * 8_000)
  }
})

async function agreementWalk(svc: SvcRun, browser: Browser, seed: number): Promise<void> {
  const rng = prng(seed)
  let items: Item[] = SEED_ITEMS.map((i) => ({ ...i }))
  const putItems = async () => {
    const res = await fetch(new URL('api/items', svc.url), { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(items) })
    expect(res.status).toBe(200)
  }
  await putItems()
  // The AppTest handle's page reads the same items through the same API.
  process.env.SVC_INTERNAL_API_BASE = new URL('api', svc.url).href
  const at = createUiTestHandle(app, { target: '/', timeoutMs: 10_000 })

  const context = await browser.newContext({ viewport: { width: 1280, height: 1600 } })
  try {
    const page = await context.newPage()
    page.setDefaultTimeout(SETTLE_MS)
    const errors = collectPageErrors(page)
    const frames: ClientMessage[] = []
    let conn: Conn | null = null
    const waiters = new Set<() => void>()
    const changed = () => waiters.forEach((w) => w())
    const until = (what: string, ok: () => boolean): Promise<void> =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!ok()) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve()
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`seed ${seed}: ${what} did not happen within ${SETTLE_MS} ms`))
        }, SETTLE_MS)
        waiters.add(check)
        check()
      })
    await page.routeWebSocket(/\/_stcore\/stream$/, (route) => {
      const server = route.connectToServer()
      const c: Conn = { route, server, session: false, running: null, answers: [] }
      conn = c
      route.onMessage((text) => {
        const m = JSON.parse(String(text)) as ClientMessage
        if (!(m.type === 'dataframe_page' && m.id === PROBE)) frames.push(m)
        server.send(text)
      })
      server.onMessage((text) => {
        const m = JSON.parse(String(text)) as WireServerMessage
        if (m.type === 'session') c.session = true
        else if (m.type === 'run_state') c.running = m.running
        else if (m.type === 'dataframe_rows' && m.id === PROBE) c.answers.push({ rowIds: m.rowIds.map(String), running: c.running })
        route.send(text)
        changed()
      })
      changed()
    })

    /**
     * Wait until the server has handled everything the browser sent and finished the runs it
     * caused, and the browser has drawn their results. The probe (sorting a small table) is
     * answered at once, in order with the page's other messages: one answer proves every
     * earlier message was handled; a second one, sent after the first came back, proves a run
     * those messages scheduled has started (it says so before the answer). Probing goes on while
     * a run is under way. The browser has drawn an answer when the table shows its rows.
     */
    const settle = async (): Promise<void> => {
      await until('a page session with a finished run', () => conn !== null && conn.session && conn.running === false)
      await page.locator('.svc-banner').waitFor({ state: 'detached' })
      await page.locator(`[data-id="${PROBE}"] .svc-sort`).waitFor()
      for (let probes = 1; ; probes++) {
        const c = conn!
        const n = c.answers.length
        await page.evaluate((id) => document.querySelector<HTMLButtonElement>(`[data-id="${id}"] .svc-sort`)!.click(), PROBE)
        await until('the answer to a probe', () => c.answers.length > n)
        const answer = c.answers[n]!
        await page.waitForFunction(
          ({ id, rows }) => JSON.stringify([...document.querySelectorAll(`[data-id="${id}"] tbody tr`)].map((tr) => tr.getAttribute('data-row'))) === JSON.stringify(rows),
          { id: PROBE, rows: answer.rowIds },
        )
        if (probes >= 2 && answer.running === false) return
      }
    }
    const newConnection = async (act: () => Promise<unknown>) => {
      const before = conn
      await act()
      await until('a new page socket', () => conn !== before)
    }

    /** Form fields edited in the browser and not submitted: shown there, not held by the server (by design). */
    let unsubmitted: Partial<Pick<Held, 'email' | 'plan'>> = {}
    const field = (type: string, label: string) => page.locator(`[data-testid="${type}"][data-label="${label}"]`)
    const button = (name: string) => page.getByRole('button', { name, exact: true })
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
      [1, 'reload the page', async () => {
        await newConnection(() => page.reload())
        unsubmitted = {}
        return ''
      }],
      [1, 'lose the socket', async () => {
        await newConnection(async () => {
          conn!.route.close({ code: 1006 })
          conn!.server.close()
        })
        return ''
      }],
    ]
    const total = actions.reduce((n, [w]) => n + w, 0)
    const choose = (): Action => {
      let x = rng.int(1, total)
      for (const a of actions) if ((x -= a[0]) <= 0) return a
      return actions[actions.length - 1]!
    }

    await page.goto(svc.url)
    await page.getByRole('heading', { name: 'Agreement' }).waitFor()
    const log: string[] = []
    for (let step = 0; step <= STEPS; step++) {
      if (step > 0) {
        const [, name, run] = choose()
        log.push(`${step}. ${name} ${await run(rng)}`.trim())
      }
      await settle()
      for (const m of frames.splice(0)) await at.send(m)
      const where = `seed ${seed}, step ${step}${step ? ` (${log[step - 1]})` : ''}; steps so far:\n${log.join('\n')}\n`
      const held = await heldInBrowser(page)
      const shown = await shownInBrowser(page)
      expect(heldIn(at), `${where}the AppTest handle's page holds what the server's page holds`).toEqual(held)
      expect(shown, `${where}the browser shows what the server holds`).toEqual({ ...held, ...unsubmitted })
      expect(shown, `${where}the browser shows what the AppTest handle holds`).toEqual({ ...shownIn(at), ...unsubmitted })
    }
    await screenshot(page, `widget-agreement-seed-${seed}`)
    expect(errors).toEqual([])
  } finally {
    await context.close()
  }
}

/** The page's own `held:` line, as the browser shows it. */
async function heldInBrowser(page: Page): Promise<Held> {
  const line = await page.locator('.svc-text').filter({ hasText: /^held: / }).textContent()
  return JSON.parse(line!.slice('held: '.length)) as Held
}

function heldIn(at: UiTestHandle): Held {
  const line = at.text.map((t) => String(t.value)).find((t) => t.startsWith('held: '))
  if (line === undefined) throw new Error('the AppTest handle shows no held: line')
  return JSON.parse(line.slice('held: '.length)) as Held
}

/** What every control shows, in the form the `held:` line uses (option labels, ISO days). */
function shownInBrowser(page: Page): Promise<Held> {
  return page.evaluate(({ colours, sizes, plans }) => {
    const field = (type: string, label: string) => {
      const el = document.querySelector(`[data-testid="${type}"][data-label="${label}"]`)
      if (!el) throw new Error(`no ${type} "${label}" on the page`)
      return el
    }
    const input = (type: string, label: string) => field(type, label).querySelector<HTMLInputElement>('input, textarea')!
    const select = (label: string, options: readonly string[]) => {
      const v = field('selectbox', label).querySelector('select')!.value
      return v === '' ? null : options[Number(v)]
    }
    return {
      name: input('textInput', 'Name').value,
      qty: Number(input('numberInput', 'Qty').value),
      level: Number(input('slider', 'Level').value),
      colour: select('Colour', colours),
      tags: [...field('multiselect', 'Tags').querySelectorAll('.svc-chip > span')].map((s) => s.textContent),
      agree: input('checkbox', 'Agree').checked,
      dark: input('toggle', 'Dark').checked,
      size: sizes[[...field('radio', 'Size').querySelectorAll('input')].findIndex((i) => (i as HTMLInputElement).checked)] ?? null,
      day: input('dateInput', 'Day').value,
      notes: input('textArea', 'Notes').value,
      email: input('textInput', 'Email').value,
      plan: select('Plan', plans),
      items: [...document.querySelectorAll('[data-testid="dataEditor"] tbody tr')].map((tr) => `${tr.getAttribute('data-row')}:${tr.querySelector('td[data-col="qty"]')!.textContent}`),
    }
  }, { colours: COLOURS, sizes: SIZES, plans: PLANS }) as Promise<Held>
}

/** What the AppTest handle's session holds after its last run, in the same form. */
function shownIn(at: UiTestHandle): Held {
  const day = at.dateInput('day').value
  const editor = at.get('dataEditor')[0]!
  const qtyAt = editor.props.columns.findIndex((c) => c.name === 'qty')
  return {
    name: at.textInput('name').value as string,
    qty: at.numberInput('qty').value as number,
    level: at.slider('level').value as number,
    colour: at.selectbox('colour').value as string,
    tags: at.multiselect('tags').value as string[],
    agree: at.checkbox('agree').value as boolean,
    dark: at.toggle('dark').value as boolean,
    size: at.radio('size').value as string,
    day: day instanceof Date ? day.toISOString().slice(0, 10) : String(day),
    notes: at.textArea('notes').value as string,
    email: at.textInput('email').value as string,
    plan: at.selectbox('plan').value as string,
    items: editor.props.rows.map((row, i) => `${editor.props.rowIds[i]}:${String(row[qtyAt])}`),
  }
}
