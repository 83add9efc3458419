import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { collectPageErrors, launchBrowser, screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcWithBrowser } from '../helpers/e2e-app.js'
import { FakeSidecar } from '../helpers/e2e-fake-sidecar.js'
import { dataColumn, el } from '../helpers/e2e-showcase.js'

const APP = 'test/e2e/fixtures/safety-app.ts:app'
const HTML_PAYLOAD = `<!doctype html><title>PWNED</title><script>fetch('/api/pwned', { method: 'POST' })</script>`

/**
 * Issue #27.2 in Chromium: media and links are never active content on the app's origin. Each
 * vector is a script that, if it ran on the origin, would call `POST /api/pwned`: opening a media
 * URL must end in a download (or a passive view), and a hostile link must never be followed.
 */
describe('media and links are never active content (svc run)', () => {
  let svc: SvcRun
  let browser: Browser
  useSvcWithBrowser(APP, [], (s) => void ({ svc, browser } = s))

  async function open(path: string): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1000, height: 800 }, acceptDownloads: true })
    const page = await context.newPage()
    const errors = collectPageErrors(page)
    await page.goto(svc.url.replace(/\/$/, '') + path)
    return { context, page, errors }
  }

  /** Open a media URL in a new tab as a visitor would who was sent it: a download, or the script runs. */
  async function visit(context: BrowserContext, src: string): Promise<'download' | 'script ran'> {
    const tab = await context.newPage()
    const outcome = Promise.race([
      tab.waitForEvent('download', { timeout: 15_000 }).then(() => 'download' as const),
      tab.waitForRequest((r) => r.url().endsWith('/api/pwned'), { timeout: 15_000 }).then(() => 'script ran' as const),
    ])
    // A download aborts the navigation itself ("Download is starting"); that is the good outcome.
    await tab.goto(new URL(src, svc.origin).href).catch(() => undefined)
    const result = await outcome
    await tab.close()
    return result
  }

  it('an upload of type text/html played through st.audio(f.bytes, { format: f.type }) is a download when its URL is opened', async () => {
    const { context, page, errors } = await open('/upload')
    await page.locator('input[type=file]').setInputFiles({ name: 'sound.html', mimeType: 'text/html', buffer: Buffer.from(HTML_PAYLOAD) })
    await page.getByText('playing sound.html as text/html').waitFor()
    const src = (await page.locator('audio.svc-audio').getAttribute('src'))!
    expect(src).toMatch(/^\/_stcore\/media\/[0-9a-f]{40}\.bin$/)
    const head = await fetch(new URL(src, svc.origin))
    expect(head.headers.get('content-type')).toBe('application/octet-stream')
    expect(head.headers.get('content-disposition')).toBe('attachment')
    expect(head.headers.get('x-content-type-options')).toBe('nosniff')
    expect(head.headers.get('content-security-policy')).toMatch(/(^|; )sandbox$/)
    expect(await visit(context, src)).toBe('download')
    expect(errors).toEqual([])
    await context.close()
  })

  it('SVG bytes typed image/SVG+xml: the image shows from a data: URL; as "audio" it is a download', async () => {
    const { context, page, errors } = await open('/svg')
    const img = page.locator('figure.svc-image img')
    await img.waitFor()
    await expect.poll(() => img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(80)
    expect(await img.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/)
    const audioSrc = (await page.locator('audio.svc-audio').getAttribute('src'))!
    expect(audioSrc).toMatch(/^\/_stcore\/media\//)
    expect(await visit(context, audioSrc)).toBe('download')
    await screenshot(page, 'safety-svg')
    expect(errors).toEqual([])
    await context.close()
  })

  it.each([
    ['java\tscript:', "java\tscript:fetch('/api/pwned',{method:'POST'})", /the scheme javascript: is not allowed here/],
    ['\\x01javascript:', "\x01javascript:fetch('/api/pwned',{method:'POST'})", /the scheme javascript: is not allowed here/],
    ['/\\evil.example', '/\\evil.example/login', /browsers read it as another site \(evil\.example\)/],
  ])('st.link with %s is refused at the call: the page says why and draws no link', async (name, href, reason) => {
    const { context, page, errors } = await open(`/link?href=${encodeURIComponent(href)}`)
    const requests: string[] = []
    context.on('request', (r) => requests.push(r.url()))
    await page.locator('.svc-exception').waitFor()
    expect(await page.locator('.svc-exception').textContent()).toMatch(reason)
    await screenshot(page, `safety-link-${name.replace(/\W+/g, '')}`)
    expect(await page.locator('a.svc-link').count()).toBe(0)
    expect(requests.filter((u) => u.includes('evil.example') || u.endsWith('/api/pwned'))).toEqual([])
    expect(errors).toEqual([])
    await context.close()
  })

  it('st.image with //evil.example or /\\evil.example is refused at the call', async () => {
    for (const src of ['//evil.example/pixel.png', '/\\evil.example/pixel.png']) {
      const { context, page } = await open(`/image?src=${encodeURIComponent(src)}`)
      await page.locator('.svc-exception').waitFor()
      expect(await page.locator('.svc-exception').textContent()).toMatch(/another site \(evil\.example\)/)
      expect(await page.locator('figure.svc-image').count()).toBe(0)
      await context.close()
    }
  })

  it('a download named отчёт.csv arrives as отчёт.csv; a name with control characters downloads too', async () => {
    for (const [name, expected] of [
      ['отчёт.csv', 'отчёт.csv'],
      ['a\x01b "q".csv', /^a.b .q.\.csv$/],
    ] as const) {
      const { context, page, errors } = await open(`/download?name=${encodeURIComponent(name)}`)
      const button = page.getByRole('link', { name: 'Download the report' }).or(page.getByRole('button', { name: 'Download the report' }))
      const download = page.waitForEvent('download')
      await button.click()
      const file = await download
      if (typeof expected === 'string') expect(file.suggestedFilename()).toBe(expected)
      else expect(file.suggestedFilename()).toMatch(expected)
      expect(await (await fetch(svc.origin + '/_stcore/health')).text()).toBe('ok')
      expect(errors).toEqual([])
      await context.close()
    }
  })
})

/**
 * The browser client's own check, against a scripted page server that sends what the real one
 * would refuse: the client must not render the link, image or cell as active.
 */
describe('the browser client refuses hostile URLs itself', () => {
  const fake = new FakeSidecar()
  let browser: Browser
  let page: Page
  const requests: string[] = []

  beforeAll(async () => {
    await fake.start()
    fake.onMessage = (m, reply) => {
      if (m.type !== 'hello') return
      reply({ type: 'session', sessionId: 's-1', restored: false })
      reply({
        type: 'render', runId: 1, query: '', nav: [], page: { path: '/', title: 'Hostile', icon: null, layout: 'wide', breadcrumb: null },
        sidebar: [],
        main: [
          el('m.0', 'link', { label: 'Tab link', href: "java\tscript:document.title='PWNED'", page: null, newTab: false, icon: null }),
          el('m.1', 'link', { label: 'Control link', href: "\x01javascript:document.title='PWNED'", page: null, newTab: false, icon: null }),
          el('m.2', 'link', { label: 'Backslash link', href: '/\\evil.example/login', page: null, newTab: false, icon: null }),
          el('m.3', 'image', { url: '/\\evil.example/pixel.png', caption: 'pixel', width: null, alt: 'pixel' }),
          el('m.4', 'pdf', { url: '//evil.example/doc.pdf', height: 200 }),
          el('m.5', 'dataframe', {
            columns: [dataColumn('site', 'string', 'link'), dataColumn('logo', 'string', 'image')],
            rows: [
              ['/\\evil.example/a', '/\\evil.example/logo.png'],
              ["java\tscript:document.title='PWNED'", 'https://example.invalid/logo.png'],
              ['/reports', '//evil.example/logo.png'],
            ],
            rowIds: [0, 1, 2], totalRows: 3, page: 0, pageSize: 10, sort: null, height: null, hideIndex: true, useContainerWidth: false, selectionMode: null, selection: [], rowsVersion: null,
          }),
        ],
      })
    }
    browser = await launchBrowser()
    page = await browser.newPage({ viewport: { width: 1000, height: 800 } })
    page.on('request', (r) => requests.push(r.url()))
    await page.route('**/*', (route) => (new URL(route.request().url()).hostname === 'evil.example' ? route.fulfill({ status: 204 }) : route.continue()))
    await page.goto(fake.url)
    await page.getByText('Tab link').waitFor()
  })

  afterAll(async () => {
    await browser?.close()
    await fake.stop()
  })

  it('java\\tscript: and \\x01javascript: links get no href, and clicking them runs nothing', async () => {
    for (const label of ['Tab link', 'Control link']) {
      const link = page.locator('a.svc-link', { hasText: label })
      expect(await link.getAttribute('href')).toBeNull()
      await link.click()
    }
    // A javascript: URL runs as part of the click's navigation, before the next task.
    expect(await page.evaluate(() => new Promise((r) => setTimeout(() => r(document.title), 0)))).not.toBe('PWNED')
  })

  it('/\\evil.example is another origin: no link, no image, no frame, no request to it', async () => {
    expect(await page.locator('a.svc-link', { hasText: 'Backslash link' }).getAttribute('href')).toBeNull()
    expect(await page.locator('figure.svc-image img').getAttribute('src')).toBeNull()
    expect(await page.locator('iframe.svc-pdf-frame').getAttribute('src')).toBeNull()
    const cells = page.locator('table.svc-data-table td')
    const links = await cells.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))
    expect(links).toEqual(['/reports'])
    const images = await cells.locator('img').evaluateAll((is) => is.map((i) => i.getAttribute('src')))
    expect(images).toEqual(['https://example.invalid/logo.png'])
    expect(requests.filter((u) => u.includes('evil.example'))).toEqual([])
  })
})
