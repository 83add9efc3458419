import { randomUUID } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { collectPageErrors, launchBrowser, screenshot } from '../helpers/e2e-browser.js'

/**
 * `svc dev --reload`: a tab opened while the app does not load (a broken save before any page
 * session needed a thread, or an app already broken when `svc dev` starts) shows the overlay
 * alone, without a "Connecting…" banner that never ends, and recovers by itself on the next
 * good save.
 */
const good = (version: number): string => `import { Svc } from 'svc'
export const app = new Svc({ title: 'NewTab', ui_page_threads: 2 })
app.api.get('/version', async () => ({ version: ${version} }))
app.page('/', async (st) => {
  st.title('Version ${version}')
})
`
// Line 5, column 24: the stray ")" after the call.
const broken = good(2).replace("st.title('Version 2')", "st.title('Version 2'))")

describe('svc dev --reload: a tab opened while the app does not load', () => {
  let dir: string
  let browser: Browser
  beforeAll(async () => {
    dir = `${REPO}test/.tmp/newtab-${randomUUID()}`
    mkdirSync(dir, { recursive: true })
    browser = await launchBrowser()
  }, 60_000)
  afterEach(stopAllTrees)
  afterAll(async () => {
    await browser?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const open = async (svc: SvcTree): Promise<{ page: Page; errors: string[] }> => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 700 } })
    page.setDefaultTimeout(15_000)
    const errors = collectPageErrors(page)
    await page.goto(`${svc.url}/`)
    return { page, errors }
  }
  /** The overlay shows, and the page under it says nothing about connecting (it never would). */
  const overlayAlone = async (page: Page): Promise<void> => {
    await page.getByTestId('dev-error').waitFor()
    expect(await page.getByTestId('dev-error-place').innerText()).toBe('app.ts:5:24')
    await expect.poll(() => page.locator('.svc-banner').count(), { timeout: 15_000 }).toBe(0)
    await expect.poll(() => page.getByText('Connecting…').count()).toBe(0)
  }
  const recovers = async (page: Page, version: number): Promise<void> => {
    await page.getByRole('heading', { name: `Version ${version}` }).waitFor()
    await expect.poll(() => page.getByTestId('dev-error').count(), { timeout: 15_000 }).toBe(0)
    expect(await page.locator('.svc-banner').count()).toBe(0)
  }

  const start = async (): Promise<SvcTree> => {
    writeFileSync(`${dir}/app.ts`, good(1))
    const svc = await startSvc({ command: 'dev', cwd: dir, target: 'app.ts:app', args: ['--reload', '--log-format', 'json'], env: { SVC_UI_COMMAND: undefined } })
    await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
    return svc
  }
  const saveBroken = async (svc: SvcTree): Promise<void> => {
    const from = svc.stdout.length
    writeFileSync(`${dir}/app.ts`, broken)
    await svc.waitForLine('stdout', /reload failed, the running workers keep serving/, 20_000, from)
  }

  it('a tab opened after a broken save, while another tab holds the only page thread, shows the last good page under the overlay', { timeout: 120_000 }, async () => {
    const svc = await start()
    const first = await open(svc)
    await first.page.getByRole('heading', { name: 'Version 1' }).waitFor()
    await saveBroken(svc)
    await first.page.getByTestId('dev-error').waitFor()
    // The pool may start a second thread for this tab: that one would load the broken file.
    const second = await open(svc)
    await overlayAlone(second.page)
    await second.page.getByRole('heading', { name: 'Version 1' }).waitFor()
    await screenshot(second.page, 'dev-error-new-tab-second-thread')
    writeFileSync(`${dir}/app.ts`, good(3))
    for (const tab of [first, second]) await recovers(tab.page, 3)
    for (const { errors } of [first, second]) expect(errors).toEqual([])
  })

  it('a tab opened after a broken save when no page thread ran yet shows the overlay alone, and the next good save runs the page', { timeout: 120_000 }, async () => {
    const svc = await start()
    await saveBroken(svc)
    const tab = await open(svc)
    await overlayAlone(tab.page)
    expect(await tab.page.getByTestId('dev-error-note').innerText()).toMatch(/^The API keeps running the last version that loaded; this page opens once a save loads/)
    await screenshot(tab.page, 'dev-error-new-tab-no-thread')
    writeFileSync(`${dir}/app.ts`, good(4))
    await recovers(tab.page, 4)
    expect(tab.errors).toEqual([])
  })
})
