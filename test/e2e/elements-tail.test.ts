import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { launchBrowser, screenshot, trackedPage } from '../helpers/e2e-browser.js'
import { startSvc, type SvcRun } from '../helpers/e2e-svc.js'

const APP = 'test/e2e/fixtures/elements-tail-app.ts:app'
/**
 * Deadlines well above what a loaded machine needs to fetch and compile a chunk (Graphviz's
 * worker is 1.5 MB) and draw; they only bound a test that would otherwise hang.
 */
const STEP_MS = 60_000
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: STEP_MS, interval: 100 })
/** Files only the elements of issue #36 load. */
const LAZY_FILES = /\/(chunks|assets)\/(latex|katex\.min|KaTeX_[\w-]+|graphviz|graphviz-worker|capture|recorder|chat-input|datetime|help)-[\w-]+\.(js|css|woff2)$/

/**
 * Issue #36 (badge, LaTeX, Graphviz, horizontal containers, date-time, audio and camera input,
 * sparklines, column types, cell and column selection, chat attachments, downloads made on
 * click, top navigation, echo, help, exceptions) against one real `svc run` tree and one
 * Chromium, light and dark. The microphone and the camera are Chromium's fake devices (a tone
 * and a test pattern), allowed without a prompt.
 */
describe('the element tail in the browser', { timeout: 4 * STEP_MS }, () => {
  let svc: SvcRun
  let browser: Browser
  const contexts: BrowserContext[] = []

  beforeAll(async () => {
    // Page errors show their details (as under `svc dev`), so the exception's stack is checked.
    const [started, launched] = await Promise.allSettled([startSvc(APP, [], { SVC_SHOW_ERROR_DETAILS: 'true' }), launchBrowser(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'])])
    if (started.status === 'fulfilled') svc = started.value
    if (launched.status === 'fulfilled') browser = launched.value
    if (started.status === 'rejected') throw started.reason
    if (launched.status === 'rejected') throw launched.reason
  }, 2 * STEP_MS)

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined)
    await browser?.close()
    await svc?.stop()
  })

  async function open(path: string, colorScheme: 'light' | 'dark' = 'light') {
    const context = await browser.newContext({ colorScheme, viewport: { width: 1280, height: 900 }, acceptDownloads: true, permissions: ['microphone', 'camera'] })
    contexts.push(context)
    const { page, errors, requests } = await trackedPage(context, STEP_MS)
    await page.goto(`${svc.origin}${path}`)
    return { page, errors, requests }
  }

  /** The page in the other scheme too, each screenshot after `ready` holds. */
  async function bothSchemes(path: string, name: string, ready: (page: Page) => Promise<void>) {
    for (const scheme of ['light', 'dark'] as const) {
      const { page, errors } = await open(path, scheme)
      await ready(page)
      await screenshot(page, `elements-tail-${name}-${scheme}`)
      expect(errors).toEqual([])
    }
  }

  const text = (page: Page, prefix: string) => page.locator('pre.svc-text').filter({ hasText: prefix }).first()

  it('a page that uses none of them loads none of their files; the page links are in a bar along the top', async () => {
    const { page, errors, requests } = await open('/')
    await page.getByText('No new elements here.').waitFor()
    const bar = page.locator('header.svc-topnav')
    // Pages without a section first, then the section as a menu, as Streamlit's top navigation.
    await expect.poll(() => bar.locator('a.svc-nav-link:visible .svc-nav-title').allTextContents()).toEqual(['Plain', 'Layout', 'Data', 'Inputs', 'Chat', 'Download'])
    expect(await page.locator('#svc-sidebar').count()).toBe(0)
    expect(await bar.locator('nav > *').evaluateAll((els) => els.map((e) => e.tagName))).toEqual(['UL', 'DETAILS'])
    const menu = bar.locator('details.svc-nav-menu')
    expect(await menu.locator('summary').textContent()).toBe('Show')
    await menu.locator('summary').click()
    await screenshot(page, 'elements-tail-topnav-light')
    await bar.getByRole('link', { name: 'Graph' }).click()
    await page.getByRole('heading', { name: 'Graphviz' }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/graph')
    // The pick closes the menu, whose name is marked as holding the page shown.
    expect(await menu.getAttribute('open')).toBeNull()
    expect(await menu.locator('summary').getAttribute('class')).toContain('is-active')
    // Escape and a click elsewhere close it too.
    await menu.locator('summary').click()
    await page.keyboard.press('Escape')
    expect(await menu.getAttribute('open')).toBeNull()
    await menu.locator('summary').click()
    await page.getByRole('heading', { name: 'Graphviz' }).click()
    expect(await menu.getAttribute('open')).toBeNull()
    const dark = await open('/', 'dark')
    await dark.page.locator('details.svc-nav-menu summary').click()
    await dark.page.locator('details.svc-nav-menu').getByRole('link', { name: 'Text' }).waitFor()
    await screenshot(dark.page, 'elements-tail-topnav-dark')
    expect(dark.errors).toEqual([])
    expect(requests.filter((p) => LAZY_FILES.test(p) && !p.includes('graphviz'))).toEqual([])
    expect(errors).toEqual([])
  })

  it('badges, LaTeX (KaTeX with its own fonts), echo, help and an exception with its stack and cause', async () => {
    await bothSchemes('/text', 'text', async (page) => {
      await page.locator('.katex-display').first().waitFor()
      await eventually(() => page.evaluate(() => [...document.fonts].some((f) => f.family === 'KaTeX_Main' && f.status === 'loaded'))).toBe(true)
      expect(await page.locator('[data-testid="badge"]').count()).toBe(9)
      expect(await page.locator('.svc-badge.is-violet').textContent()).toBe('violet')
      // An error in the TeX shows KaTeX's message in place of the formula.
      expect(await page.locator('.svc-latex-error').textContent()).toMatch(/KaTeX parse error/)
      const code = page.locator('.svc-code').first()
      expect(await code.textContent()).toContain('const prices = [3, 4, 5]')
      await page.getByText('Total: 12').waitFor()
      await text(page, 'echo returned 3').waitFor()
      const help = page.locator('.svc-help-box')
      await help.waitFor()
      expect(await help.locator('.svc-help-type').textContent()).toBe('Map')
      expect(await help.locator('.svc-help-name').textContent()).toBe("new Map([['a', 1]])")
      const exception = page.locator('[data-testid="exception"]')
      expect(await exception.textContent()).toContain('Could not read the settings')
      // Shown at once, as Streamlit shows a traceback: the page's frames, then the cause.
      const stack = await exception.locator('pre.svc-stacktrace').textContent()
      expect(stack).toContain('elements-tail-app.ts')
      expect(stack).toMatch(/Caused by SyntaxError/)
      expect(stack).not.toMatch(/page-session|node:internal/)
    })
  })

  it('Graphviz lays out DOT in a worker: the graph in the theme colours, links and errors', async () => {
    await bothSchemes('/graph', 'graph', async (page) => {
      const first = page.locator('.svc-graphviz svg').first()
      await first.waitFor()
      expect(await first.locator('g.node title').allTextContents()).toEqual(expect.arrayContaining(['ingest', 'clean', 'train', 'deploy', 'report']))
      // Black became the theme's text colour; the graph's own colours stay.
      expect(await first.locator('g.node polygon, g.node path').first().getAttribute('stroke')).toBe('currentColor')
      expect(await first.locator('g.node text').filter({ hasText: 'deploy' }).getAttribute('fill')).toBe('red')
      const wide = page.locator('.svc-graphviz.is-wide svg')
      await wide.waitFor()
      const [box, column] = await Promise.all([wide.boundingBox(), page.locator('.svc-block-container').boundingBox()])
      expect(box!.width).toBeGreaterThan(column!.width - 100)
      await page.locator('.svc-graphviz-error').waitFor()
      expect(await page.locator('.svc-graphviz-error').textContent()).toMatch(/syntax error/i)
    })
  })

  it('horizontal containers with alignment and metrics with sparklines', async () => {
    await bothSchemes('/layout', 'layout', async (page) => {
      const metrics = page.locator('[data-testid="metric"]')
      await expect.poll(() => metrics.count()).toBe(3)
      const boxes = await Promise.all([0, 1, 2].map((i) => metrics.nth(i).boundingBox()))
      // Side by side, centred on one line.
      expect(new Set(boxes.map((b) => Math.round(b!.y + b!.height / 2))).size).toBe(1)
      expect(boxes[0]!.x).toBeLessThan(boxes[1]!.x)
      expect(boxes[1]!.x).toBeLessThan(boxes[2]!.x)
      expect(await page.locator('.svc-spark.is-line.is-good path').count()).toBe(1)
      expect(await page.locator('.svc-spark.is-area.is-good path').count()).toBe(2)
      expect(await page.locator('.svc-spark.is-bar path').count()).toBe(1)
      // Aligned right: the last button ends at the column's right edge.
      const [save, column] = await Promise.all([page.getByRole('button', { name: 'Save' }).boundingBox(), page.locator('.svc-block-container').boundingBox()])
      expect(column!.x + column!.width - (save!.x + save!.width)).toBeLessThan(40)
    })
  })

  it('a dataframe selects rows, columns and cells; chart, list and time cells; a multiselect and a time edited', async () => {
    const { page, errors } = await open('/data')
    const table = page.locator('[data-testid="dataframe"]')
    await table.waitFor()
    expect(await table.locator('td[data-col="trend"] svg.svc-spark.is-line').count()).toBe(3)
    expect(await table.locator('td[data-col="sales"] svg.svc-spark.is-bar').count()).toBe(3)
    expect(await table.locator('td[data-col="tags"] .svc-cell-chips span').allTextContents()).toEqual(['admin', 'ops', 'dev'])
    expect(await table.locator('td[data-col="start"]').allTextContents()).toEqual(['09:00', '10:30', '08:15'])
    await table.getByLabel('Select row b').check()
    await text(page, 'rows: [1]').waitFor()
    await table.getByLabel('Select column Tags').check()
    await text(page, 'columns: ["tags"]').waitFor()
    await table.locator('tr[data-row="c"] td[data-col="name"]').click()
    await text(page, 'cells: [[2,"name"]]').waitFor()
    await screenshot(page, 'elements-tail-data-light')
    const editor = page.locator('[data-testid="dataEditor"]')
    await editor.locator('tr[data-row="c"] td[data-col="roles"]').click()
    await editor.getByLabel('Edit roles').selectOption(['read', 'admin'])
    await editor.getByLabel('Edit roles').blur()
    await text(page, 'edited: [[["read"],"09:00:00"],[["read","write"],"10:30:00"],[["read","admin"],"08:15:00"]]').waitFor()
    await editor.locator('tr[data-row="a"] td[data-col="start"]').click()
    await editor.getByLabel('Edit start').fill('11:45')
    await editor.getByLabel('Edit start').blur()
    await text(page, 'edited: [[["read"],"11:45"]').waitFor()
    expect(errors).toEqual([])
    const dark = await open('/data', 'dark')
    await dark.page.locator('[data-testid="dataframe"] td[data-col="trend"] svg').first().waitFor()
    await screenshot(dark.page, 'elements-tail-data-dark')
    expect(dark.errors).toEqual([])
  })

  it('date-time, microphone and camera inputs send what they took; the form waits for its submit', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { page, errors } = await open('/inputs', scheme)
      const meeting = page.getByLabel('Meeting')
      await meeting.waitFor()
      expect(await meeting.inputValue()).toBe('2026-03-01T09:30')
      // Off the 15-minute grid: put on it before it goes.
      await meeting.fill('2026-04-02T14:20')
      await meeting.dispatchEvent('change')
      await text(page, 'meeting: 2026-04-02T14:15:00.000Z').waitFor()
      await page.getByRole('button', { name: 'Record: Voice note' }).click()
      await page.getByRole('button', { name: 'Stop recording: Voice note' }).waitFor()
      await eventually(async () => Number((await page.locator('.svc-capture-time').textContent())?.split(':')[1]))
        .toBeGreaterThanOrEqual(1)
      await page.getByRole('button', { name: 'Stop recording: Voice note' }).click()
      await text(page, 'voice: recording.wav audio/wav').waitFor()
      await page.locator('[data-testid="audioInput"] audio').waitFor()
      await page.getByRole('button', { name: 'Start the camera: Badge photo' }).click()
      await page.locator('.svc-capture-video').waitFor()
      await eventually(() => page.locator('.svc-capture-video').evaluate((v: HTMLVideoElement) => v.videoWidth)).toBeGreaterThan(0)
      await page.getByRole('button', { name: 'Take photo: Badge photo' }).click()
      await text(page, 'photo: photo.jpg image/jpeg 255').waitFor()
      await page.locator('[data-testid="cameraInput"] img.svc-capture-photo').waitFor()
      const due = page.getByLabel('Due')
      await due.fill('2026-05-05T08:00')
      await due.dispatchEvent('change')
      await page.getByRole('button', { name: 'Save' }).waitFor()
      expect(await text(page, 'due:').textContent()).toBe('due: none')
      await page.getByRole('button', { name: 'Save' }).click()
      await text(page, 'due: 2026-05-05T08:00:00.000Z').waitFor()
      await screenshot(page, `elements-tail-inputs-${scheme}`)
      expect(errors).toEqual([])
    }
  })

  it('the chat input sends files and a voice message; a file of another type is refused in the browser', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { page, errors } = await open('/chat', scheme)
      const input = page.locator('[data-testid="chatInput"]')
      await input.getByLabel('Attach files').waitFor({ state: 'attached' })
      await input.getByLabel('Attach files').setInputFiles([{ name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from('x') }])
      await input.getByText(/photo\.png: not accepted/).waitFor()
      await input.getByLabel('Attach files').setInputFiles([
        { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello file\n') },
        { name: 'rows.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b\n') },
      ])
      await input.getByRole('button', { name: 'Remove rows.csv' }).waitFor()
      await input.getByLabel('Ask about a file').fill('What is in here?')
      await input.getByRole('button', { name: 'Send' }).click()
      await page.getByText('What is in here? · files: notes.txt (hello file), rows.csv (a,b) · audio: none').waitFor()
      await input.getByRole('button', { name: 'Record a voice message' }).click()
      // A second of the fake microphone's tone.
      await input.getByText('Recording 0:01').waitFor()
      await input.getByRole('button', { name: 'Stop and send the recording' }).click()
      await page.getByText(/\(no text\) · files: none · audio: audio\/wav \d+ B/).waitFor()
      await screenshot(page, `elements-tail-chat-${scheme}`)
      expect(errors).toEqual([])
    }
  })

  it('a download made on click: the file the function made, a rerun unless ignored, and its error', async () => {
    const { page, errors } = await open('/download')
    await text(page, 'runs: 1 made: 0').waitFor()
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()])
    expect(download.suggestedFilename()).toBe('export.csv')
    expect(await readFile((await download.path())!, 'utf8')).toBe('id,made\n1,1\n')
    await text(page, 'runs: 2 made: 1').waitFor()
    const [quiet] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Quiet export' }).click()])
    expect(quiet.suggestedFilename()).toBe('quiet.txt')
    expect(await readFile((await quiet.path())!, 'utf8')).toBe('quiet')
    await page.getByRole('button', { name: 'Broken export' }).click()
    await page.getByRole('alert').filter({ hasText: 'Error: the report service is down' }).waitFor()
    expect(await text(page, 'runs:').textContent()).toBe('runs: 2 made: 1')
    await screenshot(page, 'elements-tail-download-light')
    expect(errors).toEqual([])
    const dark = await open('/download', 'dark')
    await dark.page.getByRole('button', { name: 'Broken export' }).click()
    await dark.page.getByRole('alert').filter({ hasText: 'Error: the report service is down' }).waitFor()
    await screenshot(dark.page, 'elements-tail-download-dark')
    expect(dark.errors).toEqual([])
  })
})
