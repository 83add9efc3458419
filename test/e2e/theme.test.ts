import { describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { collectPageErrors, screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcWithBrowser } from '../helpers/e2e-app.js'

const APP = 'test/e2e/fixtures/theme-app.ts:app'

/** Relative luminance of a computed `rgb(r, g, b)` colour (0 black … 1 white). */
function luminance(css: string): number {
  const [r, g, b] = (css.match(/\d+(\.\d+)?/g) ?? ['0', '0', '0']).slice(0, 3).map((n) => Number(n) / 255)
  const lin = (c: number) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)
  return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!)
}

const bodyBackground = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor)
const dataTheme = (page: Page) => page.evaluate(() => document.documentElement.getAttribute('data-theme'))

/** Light and dark themes through `svc run` in chromium: default from prefers-color-scheme, the menu switch, the theme block. */
describe('theme in the browser', () => {
  let svc: SvcRun
  let browser: Browser

  useSvcWithBrowser(APP, [], (s) => void ({ svc, browser } = s))

  async function open(colorScheme: 'light' | 'dark', viewport = { width: 1200, height: 900 }) {
    const context = await browser.newContext({ colorScheme, viewport })
    const page = await context.newPage()
    const errors = collectPageErrors(page)
    await page.goto(svc.url)
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    return { page, errors }
  }

  it('follows prefers-color-scheme: dark gives a dark page, light a light one', async () => {
    const dark = await open('dark')
    expect(await dataTheme(dark.page)).toBe('dark')
    expect(luminance(await bodyBackground(dark.page))).toBeLessThan(0.05)
    const cellColor = await dark.page.locator('.svc-table td').first().evaluate((el) => getComputedStyle(el).color)
    expect(luminance(cellColor), 'table text is light on the dark background').toBeGreaterThan(0.5)
    await screenshot(dark.page, 'theme-dark')

    const light = await open('light')
    expect(await dataTheme(light.page)).toBe('light')
    expect(luminance(await bodyBackground(light.page))).toBeGreaterThan(0.9)
    await screenshot(light.page, 'theme-light')
    expect([...dark.errors, ...light.errors]).toEqual([])
  })

  it('sets the theme before the app bundle runs (no light flash)', async () => {
    const context = await browser.newContext({ colorScheme: 'dark' })
    const page = await context.newPage()
    await page.route('**/_stcore/static/app-*.js', (route) => route.abort())
    await page.goto(svc.url, { waitUntil: 'domcontentloaded' })
    expect(await dataTheme(page)).toBe('dark')
    expect(luminance(await bodyBackground(page))).toBeLessThan(0.05)
  })

  it('the menu switch picks light/dark/system and the choice survives a reload', async () => {
    const { page, errors } = await open('light')
    await page.getByRole('button', { name: 'App menu' }).click()
    await page.getByRole('radio', { name: 'Dark' }).click()
    expect(await dataTheme(page)).toBe('dark')
    await screenshot(page, 'theme-menu-dark')
    await page.reload()
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    expect(await dataTheme(page)).toBe('dark')
    expect(luminance(await bodyBackground(page))).toBeLessThan(0.05)
    await page.getByRole('button', { name: 'App menu' }).click()
    expect(await page.getByRole('radio', { name: 'Dark' }).getAttribute('aria-checked')).toBe('true')
    await page.getByRole('radio', { name: 'System' }).click()
    expect(await dataTheme(page)).toBe('light')
    await page.reload()
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor()
    expect(await dataTheme(page)).toBe('light')
    expect(await page.evaluate(() => localStorage.getItem('svc.theme'))).toBe('system')
    expect(errors).toEqual([])
  })

  it('with the System choice, a change of the OS scheme applies at once', async () => {
    const { page } = await open('light')
    expect(await dataTheme(page)).toBe('light')
    await page.emulateMedia({ colorScheme: 'dark' })
    await expect.poll(() => dataTheme(page)).toBe('dark')
    await page.emulateMedia({ colorScheme: 'light' })
    await expect.poll(() => dataTheme(page)).toBe('light')
  })

  it('applies the theme block: primary colour per mode and the radius', async () => {
    const light = await open('light')
    const button = light.page.getByRole('button', { name: 'Primary action' })
    expect(await button.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(15, 118, 110)')
    expect(await light.page.locator('.svc-metric.has-border').first().evaluate((el) => getComputedStyle(el).borderTopLeftRadius)).toBe('12px')
    const dark = await open('dark')
    expect(await dark.page.getByRole('button', { name: 'Primary action' }).evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(45, 212, 191)')
    const css = await (await fetch(`${svc.origin}/_stcore/theme.css`)).text()
    expect(css).toContain('--svc-accent: #0f766e;')
  })

  it('page icons written as :material/name: draw the built-in icon', async () => {
    const { page } = await open('light')
    await expect.poll(() => page.locator('.svc-nav-link svg[data-icon="dashboard"]').count()).toBe(1)
  })
})
