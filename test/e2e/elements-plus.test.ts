import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { collectPageErrors, launchBrowser, screenshot, trackedPage } from '../helpers/e2e-browser.js'
import { startSvcWithBrowser } from '../helpers/e2e-app.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { startMapTileServer, type MapTileServer } from '../helpers/map-tiles.js'
import { signInAtIdp, startAppIdp, type AppIdp, type TestIdp } from '../helpers/auth-idp.js'
import { buildStarRating } from '../helpers/example-component.js'

const APP = 'test/e2e/fixtures/elements-plus-app.ts:app'
/** Files only the new elements load: none of them may be fetched by a page that does not use them. */
/**
 * Deadlines well above what a loaded machine needs to fetch and parse a chunk (Plotly's is 4.7 MB)
 * and draw; they only bound a test that would otherwise hang.
 */
const STEP_MS = 60_000
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: STEP_MS, interval: 100 })
const LAZY_FILES = /\/(chunks|assets)\/(map|maplibre-gl|maplibre-gl-worker|plotly|plotly\.min|html|iframe|effects|highlight)-[\w-]+\.(js|css)$/

/**
 * Issue #25 (map, Plotly, HTML, iframes, logo, balloons, snow) and #22.7 (app icon, code
 * highlighting, metrics in a row) against a real `svc run` tree, light and dark, with the map on
 * a local tile server (no network).
 */
describe('maps, Plotly, HTML, iframes, logo, effects, code and layout in the browser', { timeout: 4 * STEP_MS }, () => {
  let tiles: MapTileServer
  let svc: SvcRun
  let browser: Browser
  const contexts: BrowserContext[] = []

  beforeAll(async () => {
    tiles = await startMapTileServer()
    const env = { SVC_UI_MAP_STYLE_URL: tiles.styleUrl('light'), SVC_UI_MAP_STYLE_URL_DARK: tiles.styleUrl('dark') }
    ;({ svc, browser } = await startSvcWithBrowser(APP, [], env))
  }, 2 * STEP_MS)

  afterAll(async () => {
    await browser?.close()
    await svc?.stop()
    await tiles?.close()
  })

  async function open(path: string, colorScheme: 'light' | 'dark' = 'light', options: { width?: number; reducedMotion?: 'reduce' | 'no-preference'; watchCsp?: boolean; browser?: Browser } = {}) {
    const context = await (options.browser ?? browser).newContext({ colorScheme, viewport: { width: options.width ?? 1280, height: 900 }, reducedMotion: options.reducedMotion ?? 'no-preference' })
    contexts.push(context)
    const { page, errors, requests } = await trackedPage(context, STEP_MS)
    const dialogs: string[] = []
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    if (options.watchCsp) {
      await page.addInitScript(() => {
        const seen: string[] = []
        ;(window as unknown as { cspViolations: string[] }).cspViolations = seen
        document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`))
      })
    }
    const response = await page.goto(`${svc.origin}${path}`)
    return { page, errors, requests, dialogs, response }
  }

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined)
  })

  it('a page that uses none of them loads none of their files; the shell links the app icon, served at /favicon.ico', async () => {
    const { page, errors, requests } = await open('/')
    await page.getByText('No new elements here.').waitFor()
    expect(requests.filter((p) => LAZY_FILES.test(p))).toEqual([])
    const icon = page.locator('link[rel="icon"]')
    expect(await icon.getAttribute('href')).toBe('/favicon.ico')
    expect(await icon.getAttribute('type')).toBe('image/svg+xml')
    for (const url of [`${svc.origin}/favicon.ico`]) {
      const res = await fetch(url)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('image/svg+xml')
      expect(await res.text()).toContain('🧭')
    }
    expect(errors).toEqual([])
  })

  it('st.map draws its points on the configured basemap and follows light/dark', async () => {
    const before = { ...tiles.tiles }
    const { page, errors, requests } = await open('/map')
    const first = page.getByTestId('map').first()
    await eventually(() => page.locator('[data-testid="map"].is-ready').count()).toBe(2)
    // What the server sent: 5 cities; 2 rows found by their column names (latitude, LONGITUDE).
    expect(await first.locator('.svc-map').getAttribute('data-points')).toBe('5')
    expect(await page.getByTestId('map').nth(1).locator('.svc-map').getAttribute('data-points')).toBe('2')
    expect(await first.locator('canvas.maplibregl-canvas').count()).toBe(1)
    expect(await page.locator('.svc-lazy-error').count()).toBe(0)
    await eventually(() => tiles.tiles.light).toBeGreaterThan(before.light)
    expect(requests.some((p) => /\/assets\/maplibre-gl-worker-[\w-]+\.js$/.test(p))).toBe(true)
    // The attribution of the basemap is shown.
    expect(await first.locator('.maplibregl-ctrl-attrib').textContent()).toContain('svc test tiles (light)')
    await screenshot(page, 'elements-plus-map-light')

    // A rerun with other sizes redraws without an error.
    await page.getByLabel('Bigger circles').check()
    await eventually(() => page.locator('.svc-lazy-error').count()).toBe(0)

    const dark = tiles.tiles.dark
    await page.emulateMedia({ colorScheme: 'dark' })
    await eventually(() => tiles.tiles.dark).toBeGreaterThan(dark)
    await eventually(() => first.locator('.maplibregl-ctrl-attrib').textContent()).toContain('svc test tiles (dark)')
    await screenshot(page, 'elements-plus-map-dark')
    expect(errors).toEqual([])
  })

  it('st.map says so in its place when the browser has no WebGL', async () => {
    const noGl = await launchBrowser(['--disable-webgl', '--disable-3d-apis'])
    try {
      const { page, errors } = await open('/map', 'light', { browser: noGl })
      const error = page.locator('[data-testid="map"] .svc-lazy-error').first()
      await error.waitFor()
      expect(await error.textContent()).toMatch(/^Map error: .*WebGL/i)
      expect(await error.getAttribute('role')).toBe('alert')
      await screenshot(page, 'elements-plus-map-no-webgl')
      expect(errors).toEqual([])
    } finally {
      await noGl.close()
    }
  })

  it('st.plotlyChart: a box selection and a click come back as the widget value; a reset from the server clears the chart', async () => {
    const { page, errors } = await open('/plotly')
    const chart = page.getByTestId('plotlyChart').first()
    await page.locator('[data-testid="plotlyChart"].is-ready').first().waitFor()
    const selected = page.locator('.svc-text').filter({ hasText: /^selected: / })
    expect(await selected.textContent()).toBe('selected: []')
    await screenshot(page, 'elements-plus-plotly-light')

    // A box over the left half of the plot: the page gets the points Plotly shows as selected.
    const area = (await chart.locator('.nsewdrag').first().boundingBox())!
    await page.mouse.move(area.x + 5, area.y + 5)
    await page.mouse.down()
    await page.mouse.move(area.x + area.width * 0.45, area.y + area.height * 0.6, { steps: 8 })
    await page.mouse.move(area.x + area.width * 0.45, area.y + area.height - 5, { steps: 4 })
    await page.mouse.up()
    await eventually(() => selected.textContent()).not.toBe('selected: []')
    const fromServer = JSON.parse((await selected.textContent())!.slice('selected: '.length)) as [number, number, number, number, string | null][]
    // Every point in the left part of the x range (weeks 1-3), from both traces, with the figure's own values.
    expect(fromServer.length).toBeGreaterThan(0)
    for (const [curve, index, x, y, custom] of fromServer) {
      expect(x).toBe(index + 1)
      expect(x).toBeLessThanOrEqual(3)
      expect(y).toBe([[3, 1, 4, 1, 5, 9], [2, 7, 1, 8, 2, 8]][curve]![index])
      expect(custom).toBe(curve === 0 ? 'abcdef'[index] : null)
    }
    expect(await page.locator('.svc-text').filter({ hasText: /^boxes: / }).textContent()).toBe('boxes: 1 lassos: 0')
    // What Plotly draws as selected is what the server holds.
    const drawnSelected = await chart.locator('g.trace.scatter').evaluateAll((traces) =>
      traces.flatMap((t, curve) => [...t.querySelectorAll('path.point')].map((p, i) => [curve, i, Number(getComputedStyle(p).opacity)] as const)).filter(([, , o]) => o === 1).map(([c, i]) => [c, i]),
    )
    expect(drawnSelected).toEqual(fromServer.map(([c, i]) => [c, i]))
    await screenshot(page, 'elements-plus-plotly-box')

    // A click on one point (week 5 of the first trace) selects just that point.
    const point = (await chart.locator('g.trace.scatter').first().locator('path.point').nth(4).boundingBox())!
    await page.mouse.click(point.x + point.width / 2, point.y + point.height / 2)
    await eventually(() => selected.textContent()).toBe('selected: [[0,4,5,5,"e"]]')
    expect(await page.locator('.svc-text').filter({ hasText: /^boxes: / }).textContent()).toBe('boxes: 0 lassos: 0')

    // The server clears the selection (a callback sets st.sessionState before the chart is drawn).
    await page.getByRole('button', { name: 'Clear selection' }).click()
    await eventually(() => selected.textContent()).toBe('selected: []')
    await eventually(() => chart.locator('path.point').evaluateAll((points) => points.every((p) => Number(getComputedStyle(p).opacity) === 1))).toBe(true)

    // The theme's text colour, light then dark, reaches Plotly's title.
    const titleFill = () => chart.locator('.gtitle').evaluate((t) => getComputedStyle(t).fill)
    const lightFill = await titleFill()
    await page.emulateMedia({ colorScheme: 'dark' })
    await eventually(titleFill).not.toBe(lightFill)
    await screenshot(page, 'elements-plus-plotly-dark')
    expect(errors).toEqual([])
  })

  it('st.html keeps harmless markup and sanitizes the rest; st.iframe runs its scripts sandboxed, away from the page', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { page, errors } = await open('/html', scheme)
      await page.getByText('html done').waitFor()
      const html = page.getByTestId('html')
      await page.locator('[data-testid="html"].is-ready').waitFor()
      expect(await html.locator('h4 em').textContent()).toBe('2.0')
      expect(await html.locator('h4').evaluate((h) => getComputedStyle(h).color)).toBe('rgb(220, 38, 38)')
      expect(await html.locator('a').getAttribute('rel')).toBe('noopener noreferrer')
      const frames = page.getByTestId('iframe')
      expect(await frames.first().locator('iframe').getAttribute('sandbox')).not.toMatch(/allow-same-origin/)
      // A framed URL runs its script, in an opaque origin that cannot reach the page.
      const api = page.frameLocator('iframe[title="Embed from the API"]')
      await eventually(() => api.locator('#api').textContent()).toBe('API frame script ran')
      expect(await api.locator('body').getAttribute('data-blocked')).toBe('yes')
      expect(await page.title()).not.toBe('escaped')
      // A srcdoc frame inherits the page's policy: under svc's, its inline script does not run.
      const framed = page.frameLocator('iframe[title="Framed widget"]')
      expect(await framed.locator('#inside').textContent()).toBe('framed text')
      await screenshot(page, `elements-plus-html-${scheme}`)
      expect(errors.filter((e) => !/^CSP: Executing inline script violates/.test(e))).toEqual([])
    }
  })

  it('the XSS corpus in st.html and st.iframe runs nothing in the page: no dialog, handler, script URL or script element', async () => {
    const { page, errors, dialogs } = await open('/xss', 'light', { watchCsp: true })
    await page.getByText('corpus done').waitFor()
    await eventually(() => page.locator('[data-testid="html"]:not(.is-ready)').count()).toBe(0)
    const found = await page.evaluate(() => {
      const bad: string[] = []
      for (const el of document.querySelectorAll('[data-testid="html"] *')) {
        for (const attr of el.getAttributeNames()) {
          if (/^on/i.test(attr)) bad.push(`${el.tagName} ${attr}`)
          if (/^(href|src|xlink:href|action|formaction|data|srcset)$/i.test(attr) && /^\s*(javascript|vbscript|data:text)/i.test(el.getAttribute(attr) ?? '')) bad.push(`${el.tagName} ${attr}=${el.getAttribute(attr)}`)
        }
        if (/^(script|iframe|object|embed|base|meta|link|form|input|button|template|noscript)$/i.test(el.tagName)) bad.push(el.tagName)
      }
      return bad
    })
    expect(found).toEqual([])
    // Pointer and focus events on every link and image the corpus left: none may run anything.
    for (const el of await page.locator('[data-testid="html"] a, [data-testid="html"] img, [data-testid="html"] svg *').all()) {
      for (const type of ['mouseover', 'click', 'focus']) await el.dispatchEvent(type)
    }
    for (const frame of await page.locator('[data-testid="iframe"] iframe').all()) {
      expect(await frame.getAttribute('sandbox')).toBe('allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox allow-downloads')
    }
    expect(await page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss)).toBeUndefined()
    expect(new URL(page.url()).pathname).toBe('/xss')
    await screenshot(page, 'elements-plus-xss-corpus')
    // Chromium reports the handler and style attributes of the hostile markup while DOMPurify parses
    // it (under the page's policy, at parse time); nothing else was refused, and nothing ran.
    const refused = await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)
    for (const v of refused) expect(v).toMatch(/^(script-src-attr|style-src-attr) inline$/)
    // Frames cannot open dialogs (no allow-modals); the corpus's scripts inside srcdoc frames were
    // refused by the policy those frames inherit, or stopped at the opaque origin's boundary.
    expect(dialogs).toEqual([])
    expect(errors.length).toBeGreaterThan(0)
    for (const e of errors) expect(e).toMatch(/^CSP: .* violates the following Content Security Policy directive|Blocked a frame with origin "null" from accessing a cross-origin frame/)
  })

  it('every element renders under svc’s own Content-Security-Policy, which allows the map’s tile server from its setting', async () => {
    for (const path of ['/map', '/plotly', '/html', '/layout', '/effects']) {
      const { page, errors, response } = await open(path, 'light', { watchCsp: true })
      const csp = response!.headers()['content-security-policy']!
      expect(csp).toContain("style-src 'self';")
      expect(csp).not.toContain('unsafe-inline')
      expect(csp).toContain(`connect-src 'self' ${tiles.origin}`)
      expect(csp).toMatch(new RegExp(`img-src [^;]*${tiles.origin.replace(/[.:/]/g, '\\$&')}`))
      await page.locator('h1').first().waitFor()
      await eventually(() => page.locator('.svc-lazy:not(.is-ready), .svc-lazy-error').count()).toBe(0)
      if (path === '/layout') await page.locator('code.is-highlighted').first().waitFor()
      if (path === '/effects') {
        await page.getByRole('button', { name: 'Balloons' }).click()
        await page.locator('.svc-effect-balloons').waitFor()
      }
      if (path === '/plotly') {
        // Plotly's own rules arrived (through the CSSOM): its SVG layers are stacked, not in a column.
        const layers = await page.locator('[data-testid="plotlyChart"] .main-svg').evaluateAll((svgs) => svgs.map((s) => getComputedStyle(s).position))
        expect(layers.length).toBeGreaterThan(1)
        expect(new Set(layers)).toEqual(new Set(['absolute']))
      }
      if (path === '/html') expect(await page.locator('[data-testid="html"] h4').evaluate((h) => getComputedStyle(h).color)).toBe('rgb(220, 38, 38)')
      const violations = await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)
      expect(violations, path).toEqual([])
      // On /html, the srcdoc frame's inline script is refused by the policy it inherits (tested above).
      expect(errors.filter((e) => path !== '/html' || !/^CSP: Executing inline script violates/.test(e)), path).toEqual([])
    }
  })

  it('st.logo sits in the sidebar, and at the top left of a narrow screen where the sidebar is a drawer', async () => {
    const { page, errors } = await open('/effects')
    await page.getByText('effects ready').waitFor()
    const logo = page.getByTestId('logo')
    expect(await logo.locator('img').getAttribute('alt')).toBe('E2E elements plus')
    expect(await logo.locator('a').getAttribute('href')).toBe('https://example.com/')
    expect(await page.getByTestId('logo-corner').isVisible()).toBe(false)
    const narrow = await open('/effects', 'dark', { width: 600 })
    await narrow.page.getByText('effects ready').waitFor()
    const corner = narrow.page.getByTestId('logo-corner')
    await corner.waitFor()
    const box = (await corner.boundingBox())!
    const menu = (await narrow.page.getByRole('button', { name: 'Open sidebar' }).boundingBox())!
    expect(box.x).toBeGreaterThanOrEqual(menu.x + menu.width)
    expect(box.y).toBeLessThan(60)
    await screenshot(narrow.page, 'elements-plus-logo-narrow-dark')
    expect([...errors, ...narrow.errors]).toEqual([])
  })

  it('st.balloons and st.snow play once per run that calls them and clean up; nothing moves under reduced motion', async () => {
    const { page, errors } = await open('/effects')
    await page.getByText('effects ready').waitFor()
    await page.getByRole('button', { name: 'Balloons' }).click()
    const balloons = page.locator('.svc-effect-balloons')
    await balloons.waitFor()
    expect(await balloons.locator('.svc-effect-piece').count()).toBeGreaterThan(10)
    expect(await balloons.evaluate((el) => getComputedStyle(el).pointerEvents)).toBe('none')
    // Rising: some balloon is in the upper half of the window.
    await page.waitForFunction(() => [...document.querySelectorAll('.svc-effect-balloons .svc-effect-piece')].some((p) => p.getBoundingClientRect().top < innerHeight / 2))
    await screenshot(page, 'elements-plus-balloons-light')
    await balloons.waitFor({ state: 'detached', timeout: STEP_MS })

    await page.emulateMedia({ colorScheme: 'dark' })
    await page.getByRole('button', { name: 'Snow' }).click()
    await page.locator('.svc-effect-snow').waitFor()
    await page.waitForFunction(() => [...document.querySelectorAll('.svc-effect-snow .svc-effect-piece')].some((p) => p.getBoundingClientRect().top > innerHeight / 3))
    await screenshot(page, 'elements-plus-snow-dark')
    await page.locator('.svc-effect-snow').waitFor({ state: 'detached', timeout: STEP_MS })

    const calm = await open('/effects', 'light', { reducedMotion: 'reduce' })
    await calm.page.getByText('effects ready').waitFor()
    await calm.page.getByRole('button', { name: 'Balloons' }).click()
    // The run finished (the button is false again on the next run) and no overlay appeared.
    await calm.page.getByRole('button', { name: 'Snow' }).click()
    await calm.page.waitForFunction(() => performance.getEntriesByType('resource').some((r) => /\/chunks\/effects-/.test(r.name)))
    expect(await calm.page.locator('.svc-effect').count()).toBe(0)
    expect([...errors, ...calm.errors]).toEqual([])
  })

  it('four metrics in a row of the centered layout do not overlap; st.code is highlighted in both themes', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const { page, errors, requests } = await open('/layout', scheme)
      await page.getByText('layout done').waitFor()
      const boxes = await page.getByTestId('metric').evaluateAll((metrics) =>
        metrics.map((m) => {
          const value = m.querySelector('.svc-metric-value')!.getBoundingClientRect()
          const column = m.closest('.svc-column')!.getBoundingClientRect()
          return { left: value.left, right: value.right, top: value.top, bottom: value.bottom, columnRight: column.right, scroll: m.querySelector('.svc-metric-value')!.scrollWidth, client: m.querySelector('.svc-metric-value')!.clientWidth }
        }),
      )
      expect(boxes).toHaveLength(4)
      for (const [i, b] of boxes.entries()) {
        expect(b.right, `metric ${i} stays in its column`).toBeLessThanOrEqual(b.columnRight + 0.5)
        expect(b.scroll, `metric ${i} value is not clipped`).toBeLessThanOrEqual(b.client + 1)
        const next = boxes[i + 1]
        if (next) expect(b.right, `metric ${i} ends before metric ${i + 1} starts`).toBeLessThanOrEqual(next.left)
      }
      // One line each: shrunk to fit, not wrapped.
      for (const b of boxes) expect(b.bottom - b.top).toBeLessThan(40)

      const ts = page.locator('.svc-code[data-language="ts"] code.is-highlighted')
      await ts.waitFor()
      expect(await ts.locator('.hljs-keyword').first().textContent()).toBe('const')
      expect(await ts.locator('.hljs-comment').textContent()).toBe('// sum')
      expect(await ts.locator('.svc-code-ln').allTextContents()).toEqual(['1', '2'])
      const keyword = await ts.locator('.hljs-keyword').first().evaluate((k) => getComputedStyle(k).color)
      const plain = await ts.evaluate((c) => getComputedStyle(c).color)
      expect(keyword).not.toBe(plain)
      expect(await page.locator('.svc-code[data-language="sql"] .hljs-keyword').first().textContent()).toBe('SELECT')
      expect(await page.locator('.svc-code:not([data-language]) code').getAttribute('class')).toBeNull()
      expect(requests.filter((p) => /\/chunks\/highlight-[\w-]+\.js$/.test(p))).toHaveLength(1)
      await screenshot(page, `elements-plus-layout-${scheme}`)
      expect(errors).toEqual([])
    }
  })
})

/**
 * Clicks a star of the example rating. On a loaded machine Chromium may not have composited the
 * sandboxed (out-of-process) frame yet and the click goes to the page under it: click again until
 * the component itself shows it got the click, then the page's answer is awaited by the caller.
 */
async function rateInFrame(page: Page, stars: number): Promise<void> {
  const rating = page.frameLocator('iframe[title="star-rating"]')
  const landed = async () => {
    await rating.getByRole('button', { name: `${stars} stars` }).click({ timeout: 5_000 })
    return rating.getByText(`Thanks! You gave ${stars} of 5.`).waitFor({ timeout: 5_000 }).then(() => true, () => false)
  }
  await expect.poll(landed, { timeout: STEP_MS, interval: 0 }).toBe(true)
}

/**
 * examples/showcase-plus as a user runs it: the chart's selection drives the map, the table and
 * the star rating's args; the rating comes back; sign-in against a real IdP shows st.user.
 */
describe('examples/showcase-plus in the browser', { timeout: 4 * STEP_MS }, () => {
  // Tall enough for the whole page: Chromium paints an out-of-process frame (the sandboxed star
  // rating) only inside the viewport, so a full-page screenshot would show it blank below the fold.
  const SHOWCASE_VIEWPORT = { width: 1280, height: 2000 }
  let tiles: MapTileServer
  let idp: TestIdp
  let svc: SvcRun
  let browser: Browser

  beforeAll(async () => {
    let app: AppIdp
    ;[tiles, app] = await Promise.all([startMapTileServer(), startAppIdp({ envPrefix: 'OIDC', bffSecret: 'e2e-showcase-bff-secret-0123456789abcdef-0123' }), buildStarRating()])
    idp = app.idp
    const env = { SVC_UI_MAP_STYLE_URL: tiles.styleUrl('light'), SVC_UI_MAP_STYLE_URL_DARK: tiles.styleUrl('dark'), ...app.env }
    ;({ svc, browser } = await startSvcWithBrowser('examples/showcase-plus/app.ts:app', ['--port', String(app.port)], env))
  }, 2 * STEP_MS)

  afterAll(async () => {
    await browser?.close()
    await svc?.stop()
    await tiles?.close()
    await idp?.close()
  })

  /** The showcase in a new page of `context`, once its map and chart have drawn. */
  async function openShowcase(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
    const page = await context.newPage()
    page.setDefaultTimeout(STEP_MS)
    const errors = collectPageErrors(page)
    await page.goto(svc.url)
    await eventually(() => page.locator('[data-testid="map"].is-ready, [data-testid="plotlyChart"].is-ready').count()).toBe(2)
    return { page, errors }
  }

  it('a box in the chart narrows the metrics, the table and the map; light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ colorScheme, viewport: SHOWCASE_VIEWPORT })
      try {
        const { page, errors } = await openShowcase(context)
        // The account area fills the sidebar, so the logo sits at its top.
        await page.locator('.svc-sidebar').getByTestId('logo').waitFor()
        expect(await page.getByTestId('metric').nth(2).textContent()).toContain('12 of 12')
        const area = (await page.locator('.nsewdrag').first().boundingBox())!
        await page.mouse.move(area.x + 4, area.y + 4)
        await page.mouse.down()
        await page.mouse.move(area.x + area.width * 0.5, area.y + area.height - 4, { steps: 10 })
        await page.mouse.up()
        await eventually(() => page.getByTestId('metric').nth(2).textContent()).not.toContain('12 of 12')
        const shown = Number(/(\d+) of 12/.exec((await page.getByTestId('metric').nth(2).textContent())!)![1])
        expect(shown).toBeGreaterThan(0)
        await eventually(() => page.locator('[data-testid="dataframe"] tbody tr').count()).toBe(shown)
        // The map fills its box next to Plotly, whose bundle brings MapLibre rules of its own.
        expect((await page.locator('canvas.maplibregl-canvas').boundingBox())!.height).toBeGreaterThan(400)
        // The star rating (a Vite-built custom component) rates the selection; its value comes back.
        const what = `the ${shown} selected store${shown === 1 ? '' : 's'}`
        await page.frameLocator('iframe[title="star-rating"]').getByText(`Rate ${what}`).waitFor()
        await rateInFrame(page, 4)
        await page.getByText(`You rated ${what} 4 of 5.`).waitFor()
        await screenshot(page, `elements-plus-showcase-${colorScheme}`)
        expect(errors).toEqual([])
      } finally {
        await context.close()
      }
    }
  })

  it('the report page (issue #36 elements) from the bar along the top; light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ colorScheme, viewport: SHOWCASE_VIEWPORT })
      try {
        const { page, errors } = await openShowcase(context)
        await page.locator('header.svc-topnav').getByText('Report').click()
        await page.locator('.katex-display').waitFor()
        await page.locator('.svc-graphviz svg g.node').first().waitFor()
        expect(await page.locator('[data-testid="metric"] svg.svc-spark').count()).toBe(4)
        expect(await page.locator('td[data-col="trend"] svg.svc-spark').count()).toBe(12)
        await page.getByRole('button', { name: 'Start the camera: Shelf photo' }).waitFor()
        await screenshot(page, `elements-tail-showcase-report-${colorScheme}`)
        expect(errors).toEqual([])
      } finally {
        await context.close()
      }
    }
  })

  it('signs in at the IdP from the sidebar and back: st.user names the visitor, who signs out again', async () => {
    const context = await browser.newContext({ viewport: SHOWCASE_VIEWPORT })
    try {
      const { page, errors } = await openShowcase(context)
      // Signed out, the sidebar offers the login the app attached (OIDC_* are set).
      await page.frameLocator('iframe[title="star-rating"]').getByText('Rate the store network').waitFor()
      await page.locator('.svc-sidebar').getByRole('button', { name: 'Sign in' }).click()
      await signInAtIdp(page, idp, 'grace')
      await page.getByText('Signed in as Grace').waitFor()
      await page.getByText('grace@idp.test').waitFor()
      await rateInFrame(page, 5)
      await page.getByText('Grace rated the store network 5 of 5.').waitFor()
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme })
        await page.waitForFunction((s) => document.documentElement.dataset.theme === s, scheme)
        await screenshot(page, `elements-plus-showcase-signed-in-${scheme}`)
      }
      await page.getByRole('button', { name: 'Sign out' }).click()
      await page.locator('.svc-sidebar').getByRole('button', { name: 'Sign in' }).waitFor()
      expect(await page.getByText('Signed in as Grace').count()).toBe(0)
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })
})
