import { describe, expect, it } from 'vitest'
import type { Browser, Page, Response } from 'playwright-core'
import { collectPageErrors, screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcPage } from '../helpers/e2e-app.js'

const APP = 'test/e2e/fixtures/charts-app.ts:app'
const ROOT = '/tools'
const CHART_CHUNK = /\/_stcore\/static\/chunks\/render-[\w-]+\.js$/

/** Charts on Vega-Lite through `svc run` under a sub-path: marks, tooltips, the lazy chunk, theme changes. */
describe('charts in the browser', () => {
  let svc: SvcRun
  let browser: Browser
  let page: Page
  let errors: string[]
  const requests: string[] = []
  const chunkResponses: Response[] = []

  useSvcPage(APP, { args: ['--root-path', ROOT], viewport: { width: 1280, height: 900 } }, (s) => {
    ;({ svc, browser, page, errors } = s)
    page.on('request', (r) => requests.push(r.url()))
    page.on('response', (r) => {
      if (CHART_CHUNK.test(new URL(r.url()).pathname)) chunkResponses.push(r)
    })
  })

  it('a page without charts does not request the chart chunk', async () => {
    expect(svc.url).toMatch(/\/tools\/$/)
    await page.goto(svc.url)
    await page.getByText('No charts here.').waitFor()
    const paths = requests.map((u) => new URL(u).pathname)
    expect(paths.some((p) => /^\/tools\/_stcore\/static\/app-\w+\.js$/.test(p))).toBe(true)
    expect(paths.filter((p) => CHART_CHUNK.test(p))).toEqual([])
    expect(errors).toEqual([])
  })

  it('renders every chart kind and a custom spec as SVG marks, loading the chunk under the sub-path', async () => {
    await page.getByRole('link', { name: /Charts/ }).click()
    await page.getByRole('heading', { name: 'Charts', level: 1 }).waitFor()
    const marks: [string, string][] = [
      ['lineChart', 'g.mark-line path'],
      ['barChart', 'g.mark-rect path'],
      ['areaChart', 'g.mark-area path'],
      ['scatterChart', 'g.mark-symbol path'],
      ['vegaLiteChart', 'g.mark-arc path'],
    ]
    for (const [testId, selector] of marks) {
      const chart = page.getByTestId(testId).first()
      await chart.locator('svg.marks').waitFor()
      expect(await chart.locator(selector).count(), testId).toBeGreaterThan(0)
    }
    // Two series: a legend; dates: a time axis with month labels, not raw ISO strings.
    const line = page.getByTestId('lineChart')
    expect(await line.locator('g.role-legend text').allTextContents()).toEqual(expect.arrayContaining(['api', 'ui']))
    const xLabels = await line.locator('g.role-axis[aria-label^="X-axis"] text').allTextContents()
    expect(xLabels.join(' ')).toMatch(/Jan|January/)
    expect(xLabels.join(' ')).not.toMatch(/2026-01-/)
    // The dotted column name is a literal field name, not a path.
    expect(await page.getByTestId('scatterChart').locator('g.mark-symbol path').count()).toBe(40)

    expect(chunkResponses.length).toBe(1)
    const chunk = chunkResponses[0]!
    expect(new URL(chunk.url()).pathname.startsWith(`${ROOT}/_stcore/static/chunks/`)).toBe(true)
    expect(chunk.status()).toBe(200)
    expect(chunk.headers()['content-type']).toMatch(/^text\/javascript/)
    expect(chunk.headers()['cache-control']).toMatch(/immutable/)
    await screenshot(page, 'charts-page')
    expect(errors).toEqual([])
  })

  it('shows a tooltip on hover over a line chart and over a bar', async () => {
    const tip = page.locator('#vg-tooltip-element.visible')
    const plot = (await page.getByTestId('lineChart').locator('svg.marks').boundingBox())!
    await page.mouse.move(plot.x + plot.width / 2, plot.y + plot.height / 2)
    await page.mouse.move(plot.x + plot.width / 2 + 4, plot.y + plot.height / 2)
    await tip.waitFor()
    const text = await tip.textContent()
    expect(text).toMatch(/api/)
    expect(text).toMatch(/ui/)
    expect(text).toMatch(/Jan \d+, 2026/)
    await screenshot(page, 'charts-tooltip-line')

    const bar = (await page.getByTestId('barChart').locator('g.mark-rect path').first().boundingBox())!
    await page.mouse.move(bar.x + bar.width / 2, bar.y + bar.height / 2)
    await expect.poll(() => tip.textContent()).toMatch(/Free/)
    await screenshot(page, 'charts-tooltip-bar')
    await page.mouse.move(0, 0)
  })

  it('a rerun with the same spec keeps the drawn chart; a changed spec replaces it', async () => {
    const runs = page.locator('.svc-text').filter({ hasText: /^runs: / })
    const svg = page.getByTestId('lineChart').locator('svg.marks')
    await svg.evaluate((el) => el.setAttribute('data-drawn', 'before'))
    const before = await runs.textContent()
    await page.getByRole('button', { name: 'Rerun' }).click()
    await expect.poll(() => runs.textContent()).not.toBe(before)
    expect(await svg.getAttribute('data-drawn')).toBe('before')

    await page.getByLabel('Last week only').check()
    await expect.poll(() => page.getByTestId('lineChart').locator('svg.marks[data-drawn]').count()).toBe(0)
    expect(await svg.count()).toBe(1)
    await page.getByLabel('Last week only').uncheck()
    await expect.poll(() => page.getByTestId('lineChart').locator('g.mark-symbol.role-mark path').count()).toBe(60)
  })

  it('a chart rendered in a hidden tab fills the panel once the tab is shown', async () => {
    await page.getByRole('tab', { name: 'Later' }).click()
    const panel = page.getByRole('tabpanel', { name: 'Later' })
    const chart = panel.getByTestId('barChart')
    await chart.locator('g.mark-rect path').first().waitFor()
    const panelWidth = (await panel.boundingBox())!.width
    await expect.poll(async () => (await chart.locator('svg.marks').boundingBox())!.width).toBeGreaterThan(panelWidth * 0.9)
  })

  it('a bar chart over one day draws a bar of sensible width centred over its day, with each day labelled once', async () => {
    await page.getByRole('link', { name: /One day/ }).click()
    // The previous page's elements stay (stale) until the new page's first render replaces them.
    await page.getByRole('heading', { name: 'One day', level: 1 }).waitFor()
    const chart = page.getByTestId('barChart')
    const bar = chart.locator('g.mark-rect path').first()
    await bar.waitFor()
    const plot = (await chart.locator('svg.marks').boundingBox())!
    const box = (await bar.boundingBox())!
    expect(box.width).toBeGreaterThan(plot.width * 0.05)
    expect(box.width).toBeLessThan(plot.width * 0.2)
    const labels = chart.locator('g.role-axis[aria-label^="X-axis"] g.role-axis-label text')
    const texts = await labels.allTextContents()
    expect(new Set(texts).size).toBe(texts.length)
    const label = (await labels.filter({ hasText: 'Nov 28' }).boundingBox())!
    expect(Math.abs(label.x + label.width / 2 - (box.x + box.width / 2))).toBeLessThan(3)
    await screenshot(page, 'charts-one-day-bar')
    expect(errors).toEqual([])
    await page.getByRole('link', { name: /Charts/ }).click()
    await page.getByRole('heading', { name: 'Charts', level: 1 }).waitFor()
  })

  it('re-renders with the theme colours when data-theme changes on <html>', async () => {
    const fills = () => page.getByTestId('vegaLiteChart').locator('g.mark-arc path').evaluateAll((paths) => paths.map((p) => p.getAttribute('fill')))
    expect(await fills()).not.toContain('rgb(1, 2, 3)')
    await page.evaluate(() => {
      const root = document.documentElement
      root.style.setProperty('--svc-chart-1', 'rgb(1, 2, 3)')
      root.setAttribute('data-theme', 'dark')
    })
    await expect.poll(fills).toContain('rgb(1, 2, 3)')
    await screenshot(page, 'charts-theme-changed')
    await page.evaluate(() => {
      document.documentElement.style.removeProperty('--svc-chart-1')
      document.documentElement.removeAttribute('data-theme')
    })
    expect(errors).toEqual([])
  })

  it("renders under svc's default CSP (script-src 'self', no unsafe-eval or unsafe-inline), tooltips included", async () => {
    const strict = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    try {
      const pageErrors = collectPageErrors(strict)
      await strict.addInitScript(() => {
        const seen: string[] = []
        ;(window as unknown as { cspViolations: string[] }).cspViolations = seen
        document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`))
      })
      const response = (await strict.goto(`${svc.origin}${ROOT}/charts`))!
      const policy = response.headers()['content-security-policy']!
      expect(policy).toContain("script-src 'self';")
      expect(policy).toContain("style-src 'self';")
      expect(policy).not.toMatch(/unsafe-(?:eval|inline)/)
      for (const testId of ['lineChart', 'barChart', 'areaChart', 'scatterChart', 'vegaLiteChart']) {
        await strict.getByTestId(testId).first().locator('svg.marks').waitFor()
      }
      const plot = (await strict.getByTestId('lineChart').locator('svg.marks').boundingBox())!
      await strict.mouse.move(plot.x + plot.width / 3, plot.y + plot.height / 2)
      await strict.mouse.move(plot.x + plot.width / 3 + 4, plot.y + plot.height / 2)
      const tip = strict.locator('#vg-tooltip-element.visible')
      await tip.waitFor()
      // The tooltip's own rules come from charts.css (the library's inline stylesheet is off).
      expect(await tip.evaluate((el) => getComputedStyle(el).position)).toBe('fixed')
      expect(await strict.locator('.svc-vega-error').count()).toBe(0)
      expect(await strict.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([])
      expect(pageErrors).toEqual([])
      // The policy is in force: an inline script is refused, reported, and caught by the collector.
      expect(await strict.evaluate(() => {
        const s = document.createElement('script')
        s.textContent = 'window.inlineRan = true'
        document.head.append(s)
        return (window as unknown as { inlineRan?: boolean }).inlineRan ?? false
      })).toBe(false)
      await expect.poll(() => strict.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations.length)).toBe(1)
      await expect.poll(() => pageErrors.length).toBe(1)
      expect(pageErrors[0]).toMatch(/^CSP: .*script-src/)
    } finally {
      await strict.close()
    }
  }, 60_000)
})
