import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { RESULTS_DIR } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcPage } from '../helpers/e2e-app.js'

const APP = 'examples/chat/app.ts:app'
/** The last words of the example's streamed answer. */
const ANSWER_END = 'survives reruns.'

/** The viewport as the user sees it (a full-page shot would move the docked chat input). */
async function shot(page: Page, name: string): Promise<void> {
  await mkdir(RESULTS_DIR, { recursive: true })
  await page.screenshot({ path: join(RESULTS_DIR, `chat-${name}.png`) })
}

/** examples/chat through `svc run`, in chromium: chat with a streamed answer, dialog, popover, status. */
describe('chat and overlays in the browser', () => {
  let svc: SvcRun
  let page: Page
  let errors: string[]
  useSvcPage(APP, { viewport: { width: 1200, height: 800 } }, (s) => void ({ svc, page, errors } = s))

  const input = () => page.getByRole('textbox', { name: 'Ask anything' })
  const messages = () => page.locator('[data-testid="chatMessage"]')

  it('docks the chat input at the bottom of the main area, beside the sidebar', async () => {
    await page.goto(svc.url)
    await page.getByRole('heading', { name: 'Chat', level: 1 }).waitFor()
    await input().waitFor()
    const box = (await page.locator('.svc-chat-input-box').boundingBox())!
    const sidebar = (await page.locator('#svc-sidebar').boundingBox())!
    expect(box.y + box.height).toBeGreaterThan(800 - 60)
    expect(box.y + box.height).toBeLessThanOrEqual(800)
    expect(box.x).toBeGreaterThanOrEqual(sidebar.x + sidebar.width)
  })

  it('submits a question: the user message shows, the answer is visible word by word before the stream ends', async () => {
    await input().fill('What is svc?')
    await input().press('Enter')
    await expect.poll(() => input().inputValue()).toBe('')
    await page.locator('[data-testid="chatMessage"][data-role="user"]').first().getByText('What is svc?').waitFor()
    const answer = page.locator('[data-testid="chatMessage"][data-role="assistant"]').first()
    await answer.getByText(/You asked/).waitFor({ timeout: 10_000 })
    const early = await answer.innerText()
    expect(early).not.toContain(ANSWER_END)
    await shot(page, 'streaming')
    // Still streaming: more words arrive in later renders of the same element.
    await expect.poll(async () => (await answer.innerText()).length, { timeout: 10_000 }).toBeGreaterThan(early.length)
    await answer.getByText(ANSWER_END, { exact: false }).waitFor({ timeout: 15_000 })
    expect(await answer.locator('strong').first().innerText()).toBe('GET /api/chat/stream')
  })

  it('keeps the history in session state across questions and a reload', async () => {
    await input().fill('And streaming?')
    await input().press('Enter')
    const second = page.locator('[data-testid="chatMessage"][data-role="assistant"]').nth(1)
    await second.getByText(ANSWER_END, { exact: false }).waitFor({ timeout: 15_000 })
    await expect.poll(() => messages().count()).toBe(4)
    expect(await messages().nth(0).innerText()).toContain('What is svc?')
    expect(await messages().nth(2).innerText()).toContain('And streaming?')
    await shot(page, 'conversation')
    await page.reload()
    await expect.poll(() => messages().count(), { timeout: 10_000 }).toBe(4)
    expect(await page.locator('[data-testid="chatMessage"][data-role="assistant"] .svc-chat-avatar svg').count()).toBe(2)
  })

  it('on a narrow screen the docked input spans the window under the drawer button', async () => {
    await page.setViewportSize({ width: 400, height: 760 })
    try {
      await expect.poll(async () => (await page.locator('.svc-chat-input-box').boundingBox())!.x).toBeLessThan(40)
      const box = (await page.locator('.svc-chat-input-box').boundingBox())!
      expect(box.x + box.width).toBeLessThanOrEqual(400)
      expect(box.y + box.height).toBeGreaterThan(760 - 60)
      // The page follows a growing answer while the reader is at its end.
      await input().fill('Does it scroll?')
      await input().press('Enter')
      const third = page.locator('[data-testid="chatMessage"][data-role="assistant"]').nth(2)
      await third.getByText(ANSWER_END, { exact: false }).waitFor({ timeout: 15_000 })
      await expect
        .poll(() => page.evaluate(() => document.documentElement.scrollHeight - (window.innerHeight + window.scrollY)))
        .toBeLessThan(100)
      expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0)
      await shot(page, 'mobile')
    } finally {
      await page.setViewportSize({ width: 1200, height: 800 })
    }
  })

  it('opens a dialog whose widgets rerun it, saves and closes it; Escape and ✕ close it too', async () => {
    await page.getByRole('link', { name: /Dialogs and status/ }).click()
    await page.getByRole('heading', { name: 'Dialogs, popovers, status', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Rename…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Rename project' })
    await dialog.waitFor()
    const runs = page.getByText(/^Page runs this session: \d+$/)
    const before = await runs.innerText()
    const name = dialog.getByLabel('New name')
    await name.fill('Zephyr')
    await name.press('Enter')
    await dialog.getByText('Preview: Zephyr').waitFor()
    // The widget reran the dialog body alone: the page around it did not run.
    expect(await runs.innerText()).toBe(before)
    // Still a modal after the rerun moved it: the page behind is inert, the dialog is on top.
    expect(await dialog.evaluate((d) => d.matches(':modal'))).toBe(true)
    expect(await page.evaluate(() => document.elementFromPoint(460, 235)?.closest('dialog') !== null)).toBe(true)
    expect(await name.evaluate((el) => el === document.activeElement)).toBe(true)
    await shot(page, 'dialog')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'detached' })
    await page.getByText('Project: Zephyr').waitFor()

    await page.getByRole('button', { name: 'Rename…' }).click()
    await dialog.waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    await page.getByRole('button', { name: 'Rename…' }).click()
    await dialog.waitFor()
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'detached' })
    // Closed for good: a later rerun does not bring it back.
    await page.getByRole('button', { name: 'Filters' }).click()
    await page.getByRole('button', { name: 'Filters' }).click()
    expect(await dialog.count()).toBe(0)
  })

  it('shows a popover on click, keeps it open while its widgets rerun the page, closes on Escape', async () => {
    const button = page.getByRole('button', { name: 'Filters' })
    const panel = page.getByRole('dialog', { name: 'Filters' })
    // The test before toggles it twice: start from closed whatever the last click did.
    await page.keyboard.press('Escape')
    await panel.waitFor({ state: 'hidden' })
    await button.click()
    await panel.waitFor()
    await panel.getByText('North', { exact: true }).click()
    await page.getByText('Showing North regions.').waitFor()
    expect(await panel.isVisible()).toBe(true)
    await shot(page, 'popover')
    await page.keyboard.press('Escape')
    await panel.waitFor({ state: 'hidden' })
    expect(await button.getAttribute('aria-expanded')).toBe('false')
  })

  it('shows status boxes running, then complete; and an error one expanded', async () => {
    await page.getByRole('button', { name: 'Run import' }).click()
    const running = page.locator('[data-testid="status"][data-state="running"]')
    await running.waitFor()
    expect(await running.innerText()).toContain('Importing orders…')
    await shot(page, 'status-running')
    const complete = page.locator('[data-testid="status"][data-state="complete"]')
    await complete.waitFor({ timeout: 10_000 })
    expect(await complete.innerText()).toContain('Import complete')
    await page.getByRole('button', { name: 'Check the archive' }).click()
    const failed = page.locator('[data-testid="status"][data-state="error"]')
    await failed.waitFor({ timeout: 10_000 })
    expect(await failed.getAttribute('open')).not.toBeNull()
    await failed.getByText('The archive is not reachable.').waitFor()
    expect(await failed.innerText()).toContain('Archive check failed')
    await shot(page, 'status')
    expect(errors).toEqual([])
  })
})
