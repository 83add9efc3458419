import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcPage } from '../helpers/e2e-app.js'

const APP = 'test/e2e/fixtures/markdown-errors-app.ts:app'

/** Server-rendered Markdown (markdown-it) in a real browser under `svc run`. */
describe('markdown in the browser', () => {
  let svc: SvcRun
  let page: Page
  let errors: string[]
  const dialogs: string[] = []

  useSvcPage(APP, { viewport: { width: 1100, height: 900 } }, (s) => {
    ;({ svc, page, errors } = s)
    // Any alert/confirm/prompt means a payload ran.
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
  })

  it('renders CommonMark and tables; a URL with parentheses stays whole; a javascript: link is inert text', async () => {
    await page.goto(svc.url)
    await page.getByRole('heading', { name: 'Release notes' }).waitFor()
    const foo = page.getByRole('link', { name: 'Foo (bar)' })
    expect(await foo.getAttribute('href')).toBe('https://en.wikipedia.org/wiki/Foo_(bar)')
    expect(await foo.getAttribute('rel')).toBe('noopener noreferrer')
    expect(await foo.getAttribute('target')).toBe('_blank')
    expect(await page.getByRole('link', { name: 'orders page' }).getAttribute('target')).toBeNull()
    expect(await page.locator('.svc-markdown strong em').textContent()).toBe('nested italic')
    expect(await page.locator('.svc-markdown td').allTextContents()).toEqual(['North', '1,200', 'South', '950'])
    expect(await page.locator('.svc-markdown td').nth(1).evaluate((td) => getComputedStyle(td).textAlign)).toBe('right')
    expect(await page.locator('.svc-markdown pre code.language-ts').textContent()).toContain('rows.reduce')

    const trap = page.locator('.svc-markdown blockquote')
    expect(await trap.textContent()).toContain('[a trap](javascript:alert(document.domain))')
    expect(await trap.locator('a').count()).toBe(0)
    const before = page.url()
    await trap.getByText('a trap').click()
    expect(page.url()).toBe(before)
    await screenshot(page, 'markdown-page')
    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
  })

  it('the XSS corpus runs nothing: no dialog, no script URL, no event-handler attribute in the DOM', async () => {
    await page.goto(`${svc.url}xss`)
    await page.getByText('corpus done').waitFor()
    const found = await page.evaluate(() => {
      const bad: string[] = []
      for (const el of document.querySelectorAll('main *, [class*="svc-markdown"] *')) {
        for (const attr of el.getAttributeNames()) if (/^on/i.test(attr)) bad.push(`${el.tagName} ${attr}`)
        const url = (el as HTMLAnchorElement).href ?? (el as HTMLImageElement).src
        if (typeof url === 'string' && url !== '' && !/^(https?|mailto):/i.test(url)) bad.push(`${el.tagName} ${url}`)
        if (/^(script|iframe|object|embed|svg|math|style|details)$/i.test(el.tagName)) bad.push(el.tagName)
      }
      return bad
    })
    expect(found).toEqual([])
    // Hover and click every link and image the corpus produced: none may run anything.
    for (const a of await page.locator('.svc-markdown a, .svc-markdown img').all()) await a.hover()
    await screenshot(page, 'markdown-xss-corpus')
    expect(dialogs).toEqual([])
    expect(errors).toEqual([])
  })
})
