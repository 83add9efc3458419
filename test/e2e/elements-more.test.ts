import { describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { collectPageErrors, screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcWithBrowser } from '../helpers/e2e-app.js'

const APP = 'test/e2e/fixtures/elements-more-app.ts:app'

/** The values line the page prints after every run. */
async function values(page: Page): Promise<Record<string, unknown>> {
  const text = (await page.locator('.svc-text').filter({ hasText: /^values: / }).textContent()) ?? ''
  return JSON.parse(text.replace(/^values: /, '')) as Record<string, unknown>
}

/** audio, video, pdf and the new widgets through `svc run` in chromium, plus the drawer and metric fixes. */
describe('more elements in the browser', () => {
  let svc: SvcRun
  let browser: Browser

  useSvcWithBrowser(APP, [], (s) => void ({ svc, browser } = s))

  async function open(options: { colorScheme?: 'light' | 'dark'; width?: number; noEmojiFont?: boolean } = {}) {
    const context = await browser.newContext({ colorScheme: options.colorScheme ?? 'light', viewport: { width: options.width ?? 1200, height: 900 } })
    const page = await context.newPage()
    if (options.noEmojiFont) {
      // What a browser without an emoji font measures: the probe glyph draws nothing in colour.
      await page.addInitScript(() => {
        CanvasRenderingContext2D.prototype.getImageData = function (_x: number, _y: number, w: number, h: number) {
          return new ImageData(w, h)
        }
      })
    }
    const errors = collectPageErrors(page)
    await page.goto(svc.url)
    await page.getByRole('heading', { name: 'More elements', level: 1 }).waitFor()
    return { page, errors }
  }

  it('renders audio, video and pdf; bytes are served from the media store', async () => {
    const { page, errors } = await open()
    const audioSrc = await page.locator('audio.svc-audio').getAttribute('src')
    expect(audioSrc).toMatch(/^\/_stcore\/media\/[0-9a-f]+\.wav$/)
    const audio = await fetch(svc.origin + audioSrc!)
    expect(audio.headers.get('content-type')).toBe('audio/wav')
    expect(Buffer.from(await audio.arrayBuffer()).subarray(0, 4).toString()).toBe('RIFF')
    expect(await page.locator('video.svc-video').getAttribute('src')).toBe('https://example.invalid/clip.mp4')
    expect(await page.locator('video.svc-video').evaluate((v: HTMLVideoElement) => v.muted)).toBe(true)
    const frame = page.locator('iframe.svc-pdf-frame')
    expect(await frame.evaluate((f) => f.getBoundingClientRect().height)).toBeCloseTo(240, 0)
    const pdf = await fetch(svc.origin + (await frame.getAttribute('src'))!)
    expect(pdf.headers.get('content-type')).toBe('application/pdf')
    expect(errors).toEqual([])
  })

  it("each new widget's value reaches the page", async () => {
    const { page, errors } = await open()
    expect(await values(page)).toMatchObject({ t: '09:30', c: '#1e90ff', size: 'M', span: ['Tue', 'Thu'], tags: [], view: 'Week', thumbs: null, stars: null, faces: null })

    await page.getByLabel('Meeting time').fill('14:45')
    await expect.poll(async () => (await values(page)).t).toBe('14:45')
    await page.getByLabel('Accent colour').fill('#ff8800')
    await expect.poll(async () => (await values(page)).c).toBe('#ff8800')
    await page.getByLabel('Size').focus()
    await page.keyboard.press('ArrowRight')
    await expect.poll(async () => (await values(page)).size).toBe('L')
    await page.getByLabel('Span (to)').focus()
    await page.keyboard.press('ArrowRight')
    await expect.poll(async () => (await values(page)).span).toEqual(['Tue', 'Fri'])
    await page.getByRole('button', { name: 'ui', exact: true }).click()
    await page.getByRole('button', { name: 'docs', exact: true }).click()
    await expect.poll(async () => (await values(page)).tags).toEqual(['ui', 'docs'])
    await page.getByRole('button', { name: 'Month', exact: true }).click()
    await expect.poll(async () => (await values(page)).view).toBe('Month')
    await page.getByRole('button', { name: 'Thumbs up' }).click()
    await expect.poll(async () => (await values(page)).thumbs).toBe(1)
    await page.getByRole('button', { name: '4 stars' }).click()
    await expect.poll(async () => (await values(page)).stars).toBe(3)
    await page.getByRole('button', { name: 'Very happy' }).click()
    await expect.poll(async () => (await values(page)).faces).toBe(4)
    expect(await page.getByRole('button', { name: 'Week', exact: true }).getAttribute('aria-pressed')).toBe('false')
    await screenshot(page, 'elements-light')
    expect(errors).toEqual([])
  })

  it('looks right in the dark theme', async () => {
    const { page } = await open({ colorScheme: 'dark' })
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
    await screenshot(page, 'elements-dark')
  })

  it('metric cards in a row have equal heights when only some have a delta', async () => {
    const { page } = await open()
    const heights = await page.locator('.svc-metric.has-border').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height))
    expect(heights).toHaveLength(3)
    expect(Math.max(...heights) - Math.min(...heights)).toBeLessThan(1)
  })

  it("on a 400 px screen the drawer's close button does not cover the app title", async () => {
    const { page } = await open({ width: 400 })
    await page.getByRole('button', { name: 'Open sidebar' }).click()
    const close = page.getByRole('button', { name: 'Close sidebar' })
    // The drawer slides in: measure once its transition has finished.
    await page.locator('.svc-sidebar').evaluate((el) => Promise.all(el.getAnimations().map((a) => a.finished)))
    const button = (await close.boundingBox())!
    const title = await page.locator('.svc-brand').evaluate((el) => {
      const range = document.createRange()
      range.selectNodeContents(el)
      const r = range.getBoundingClientRect()
      return { x: r.x, y: r.y, width: r.width, height: r.height }
    })
    const overlap = button.x < title.x + title.width && title.x < button.x + button.width && button.y < title.y + title.height && title.y < button.y + button.height
    expect(overlap, `close button ${JSON.stringify(button)} overlaps title text ${JSON.stringify(title)}`).toBe(false)
    await screenshot(page, 'elements-mobile-drawer')
  })

  it('shows built-in icons for :material/…: and for emoji when the browser has no emoji font', async () => {
    const withFont = await open()
    expect(await withFont.page.locator('.svc-button svg[data-icon="rocket_launch"]').count(), ':material/rocket_launch: is always an svg').toBe(1)
    // Its path comes with the icon set, a chunk the first icon outside the shell's few loads.
    await expect.poll(() => withFont.page.locator('.svc-button svg[data-icon="rocket_launch"] path').count()).toBe(1)
    expect(await withFont.page.locator('.svc-nav-link svg').count(), 'emoji stay text where an emoji font exists').toBe(0)
    const noFont = await open({ noEmojiFont: true })
    await expect.poll(() => noFont.page.locator('.svc-nav-link svg[data-icon="bar_chart"]').count()).toBe(1)
    await expect.poll(() => noFont.page.locator('.svc-nav-link svg[data-icon="circle"]').count(), { message: 'an emoji without a built-in match becomes a dot' }).toBe(1)
    expect(await noFont.page.locator('.svc-button svg[data-icon="rocket_launch"]').count()).toBe(2)
    await screenshot(noFont.page, 'elements-no-emoji-font')
    expect(noFont.errors).toEqual([])
  })
})
