import { expect } from 'vitest'
import type { Browser, BrowserContext, Page, WebSocketRoute } from 'playwright-core'
import type { UiTestHandle } from 'svc/ui'
import type { ClientMessage, WireServerMessage } from '../../src/ui/wire/protocol.js'
import { COLOURS, PLANS, SIZES, type Held } from '../e2e/fixtures/agreement-app.js'
import { collectPageErrors } from './e2e-browser.js'

/**
 * Driving the agreement fixture (test/e2e/fixtures/agreement-app.ts) in chromium: a proxy in
 * front of the page socket records what the browser sends (to replay into an AppTest handle) and
 * lets `settle()` wait, on events, until the server has handled all of it and the browser drew
 * the result; readers give what the browser shows, what the page says it holds, and what an
 * AppTest handle holds, all in one form.
 */

export const PROBE = 'df-probe'
/** How long one step may take to settle before the test fails naming it. */
export const SETTLE_MS = 15_000

/** A small, seedable PRNG (mulberry32): the same seed gives the same actions. */
export function prng(seed: number) {
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
export type Rng = ReturnType<typeof prng>

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

export interface AgreementPage {
  page: Page
  context: BrowserContext
  /** Uncaught page errors and CSP refusals. */
  errors: string[]
  /** What the browser sent since the last call (without the probes), in order. */
  takeFrames(): ClientMessage[]
  settle(): Promise<void>
  /** Sort the probe table and wait for the server's answer: a message that causes no run. */
  probe(): Promise<void>
  /** Run `act` (a reload, a lost socket) and wait for the page's next socket. */
  newConnection: (act: () => Promise<unknown>) => Promise<void>
  /** Close the page socket from both ends (as a proxy or a network would); the client reconnects. */
  dropSocket(): void
  field: (type: string, label: string) => ReturnType<Page['locator']>
  button: (name: string) => ReturnType<Page['getByRole']>
  close(): Promise<void>
}

/** A new browser context and page on the agreement fixture at `url`, its socket behind the recording proxy. */
export async function openAgreementPage(browser: Browser, url: string, what: string): Promise<AgreementPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1700 } })
  const page = await context.newPage()
  page.setDefaultTimeout(SETTLE_MS)
  const errors = collectPageErrors(page)
  let frames: ClientMessage[] = []
  let conn: Conn | null = null
  const waiters = new Set<() => void>()
  const changed = () => waiters.forEach((w) => w())
  const until = (event: string, ok: () => boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (!ok()) return
        clearTimeout(timer)
        waiters.delete(check)
        resolve()
      }
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`${what}: ${event} did not happen within ${SETTLE_MS} ms`))
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

  /** Sort the probe table; resolves with the server's answer (the browser may not have drawn it yet). */
  const probe = async (): Promise<Conn['answers'][number]> => {
    const c = conn!
    const n = c.answers.length
    await page.evaluate((id) => document.querySelector<HTMLButtonElement>(`[data-id="${id}"] .svc-sort`)!.click(), PROBE)
    await until('the answer to a probe', () => c.answers.length > n)
    return c.answers[n]!
  }
  /**
   * Wait until the server has handled everything the browser sent and finished the runs it
   * caused, and the browser has drawn their results. The probe (sorting a small table) is
   * answered at once, in order with the page's other messages: one answer proves every earlier
   * message was handled; a second one, sent after the first came back, proves a run those
   * messages scheduled has started (it says so before the answer). Probing goes on while a run
   * is under way. The browser has drawn an answer when the table shows its rows.
   */
  const settle = async (): Promise<void> => {
    await until('a page session with a finished run', () => conn !== null && conn.session && conn.running === false)
    await page.locator('.svc-banner').waitFor({ state: 'detached' })
    await page.locator(`[data-id="${PROBE}"] .svc-sort`).waitFor()
    for (let probes = 1; ; probes++) {
      const answer = await probe()
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
  return {
    page,
    context,
    errors,
    takeFrames: () => {
      const out = frames
      frames = []
      return out
    },
    settle,
    probe: async () => void (await probe()),
    newConnection,
    dropSocket: () => {
      // Both ends close on their own time; the caller waits for the page's next socket.
      void conn!.route.close({ code: 1006 })
      void conn!.server.close()
    },
    field: (type, label) => page.locator(`[data-testid="${type}"][data-label="${label}"]`),
    button: (name) => page.getByRole('button', { name, exact: true }),
    close: () => context.close(),
  }
}

/** Replays what the browser sent into the AppTest handle, in order, one message at a time. */
export async function replay(at: UiTestHandle, frames: ClientMessage[]): Promise<void> {
  for (const m of frames) await at.send(m)
}

/**
 * The three views agree: the AppTest handle's page says it holds what the server's page says,
 * and the browser shows that (plus form edits it has not submitted, which no server holds).
 */
export async function expectAgreement(page: Page, at: UiTestHandle, where: string, unsubmitted: Partial<Held> = {}): Promise<void> {
  const held = await heldInBrowser(page)
  const shown = await shownInBrowser(page)
  expect(heldIn(at), `${where}the AppTest handle's page holds what the server's page holds`).toEqual(held)
  expect(shown, `${where}the browser shows what the server holds`).toEqual({ ...held, ...unsubmitted })
  expect(shown, `${where}the browser shows what the AppTest handle holds`).toEqual({ ...shownIn(at), ...unsubmitted })
}

/** The page's own `held:` line and its fragment's `code held:` line, as text. */
function heldFrom(lines: string[]): Held {
  const line = (prefix: string) => {
    const found = lines.find((l) => l.startsWith(prefix))
    if (found === undefined) throw new Error(`no "${prefix}" line on the page`)
    return JSON.parse(found.slice(prefix.length)) as unknown
  }
  return { ...(line('held: ') as Held), code: line('code held: ') as string }
}

export async function heldInBrowser(page: Page): Promise<Held> {
  return heldFrom(await page.locator('.svc-text').allTextContents())
}

export function heldIn(at: UiTestHandle): Held {
  return heldFrom(at.text.map((t) => String(t.value)))
}

/** What every control shows, in the form the `held:` line uses (option labels, ISO days). */
export function shownInBrowser(page: Page): Promise<Held> {
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
      code: input('textInput', 'Code').value,
      email: input('textInput', 'Email').value,
      plan: select('Plan', plans),
      items: [...document.querySelectorAll('[data-testid="dataEditor"] tbody tr')].map((tr) => `${tr.getAttribute('data-row')}:${tr.querySelector('td[data-col="qty"]')!.textContent}`),
    }
  }, { colours: COLOURS, sizes: SIZES, plans: PLANS }) as Promise<Held>
}

/** What the AppTest handle's session holds after its last run, in the same form. */
export function shownIn(at: UiTestHandle): Held {
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
    code: at.textInput('code').value as string,
    email: at.textInput('email').value as string,
    plan: at.selectbox('plan').value as string,
    items: editor.props.rows.map((row, i) => `${editor.props.rowIds[i]}:${String(row[qtyAt])}`),
  }
}
