import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcPage } from '../helpers/e2e-app.js'

const APP = 'test/e2e/fixtures/reruns-app.ts:app'

/** Sizes of the page-socket frames the browser received, in arrival order. */
function recordFrames(page: Page): { sizes: number[]; texts: string[] } {
  const rec = { sizes: [] as number[], texts: [] as string[] }
  page.on('websocket', (ws) => {
    if (!ws.url().endsWith('/_stcore/stream')) return
    ws.on('framereceived', ({ payload }) => {
      const text = typeof payload === 'string' ? payload : payload.toString('utf8')
      rec.sizes.push(Buffer.byteLength(text))
      rec.texts.push(text)
    })
  })
  return rec
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0)

describe('reruns in the browser: diffs, fragments', () => {
  let svc: SvcRun
  let page: Page
  let errors: string[]
  let frames: { sizes: number[]; texts: string[] }

  useSvcPage(APP, { viewport: { width: 1200, height: 900 } }, (s) => {
    ;({ svc, page, errors } = s)
    frames = recordFrames(page)
  })

  const text = (prefix: string) => page.locator('.svc-text').filter({ hasText: new RegExp(`^${prefix}`) })
  /** Frames from `from` up to the end of the run that the last of them closes. */
  const runFrames = async (from: number): Promise<number[]> => {
    await expect.poll(() => frames.texts.slice(from).some((t) => /"type":"run_state".*"running":false/.test(t))).toBe(true)
    return frames.sizes.slice(from)
  }

  it('moving the slider updates the page and sends a few hundred bytes, not the table again', async () => {
    await page.goto(svc.url)
    await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor()
    await expect.poll(() => text('page runs').textContent()).toBe('page runs: 1')
    const firstRender = Math.max(...frames.sizes)
    expect(firstRender).toBeGreaterThan(1_000)
    await page.getByText('customer-0', { exact: true }).waitFor()

    for (let i = 1; i <= 3; i++) {
      const from = frames.sizes.length
      await page.getByRole('slider', { name: 'Threshold' }).press('ArrowRight')
      await page.getByText(`Threshold is ${10 + i}`).waitFor()
      await expect.poll(() => text('page runs').textContent()).toBe(`page runs: ${1 + i}`)
      const sizes = await runFrames(from)
      expect(Math.max(...sizes), `frames of rerun ${i}: ${sizes.join(', ')}`).toBeLessThan(1_000)
      expect(sum(sizes)).toBeLessThan(2_000)
      expect(frames.texts.slice(from).join('')).not.toContain('customer-')
    }
    // The table is still whole and interactive after the diffed renders.
    await page.getByText('customer-0', { exact: true }).waitFor()
    expect(await page.locator('.svc-el[data-type="dataframe"]').count()).toBe(1)
    await screenshot(page, 'reruns-slider')
  })

  it('a button inside a fragment reruns only the fragment: the page-run counter stays', async () => {
    const before = await text('page runs').textContent()
    const from = frames.sizes.length
    await page.getByRole('button', { name: 'Refresh part' }).click()
    await expect.poll(() => text('part clicks').textContent()).toBe('part clicks: 1')
    await page.getByRole('button', { name: 'Refresh part' }).click()
    await expect.poll(() => text('part clicks').textContent()).toBe('part clicks: 2')
    expect(await text('page runs').textContent()).toBe(before)
    const sizes = await runFrames(from)
    expect(sum(sizes)).toBeLessThan(3_000)
    expect(frames.texts.slice(from).join('')).not.toContain('customer-')
    await screenshot(page, 'reruns-fragment')
  })

  it('a runEvery fragment ticks while the rest of the page stays', async () => {
    await page.goto(new URL('/live', svc.url).href)
    await page.getByRole('heading', { name: 'Live', level: 1 }).waitFor()
    const ticks = page.locator('.svc-el[data-type="metric"]')
    const value = async (): Promise<number> => Number((await ticks.locator('.svc-metric-value').textContent()) ?? 'NaN')
    await expect.poll(value, { timeout: 10_000 }).toBeGreaterThanOrEqual(4)
    expect(await text('page runs').textContent()).toBe('page runs: 1')
    await screenshot(page, 'reruns-live')
    expect(errors).toEqual([])
  })
})
