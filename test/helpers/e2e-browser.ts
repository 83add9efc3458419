import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'

export const RESULTS_DIR = join(import.meta.dirname, '..', '..', 'test-results')

/** The system chromium, headless; never a downloaded browser. `extraArgs` are appended to its flags. */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.SVC_E2E_CHROMIUM ?? '/usr/bin/chromium',
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  })
}

/** Saves a full-page screenshot to test-results/<name>.png (kept by CI as an artifact). */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true })
  const path = join(RESULTS_DIR, `${name}.png`)
  // From the top: a scrolled page would draw the sticky sidebar halfway down the full-page image.
  await page.evaluate(() => window.scrollTo(0, 0))
  await page.screenshot({ path, fullPage: true })
  return path
}

/**
 * Fails the test on uncaught page errors and on anything the page's Content-Security-Policy
 * refused (collected, then asserted by the caller): every e2e page runs under svc's default
 * policy, so each element a test shows is checked against it.
 */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(String(e)))
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy/.test(m.text())) errors.push(`CSP: ${m.text()}`)
  })
  return errors
}

/**
 * A new page of `context` whose steps fail after `stepMs`, with its uncaught errors and CSP
 * refusals collected (`collectPageErrors`) and the path of every request it makes.
 */
export async function trackedPage(context: BrowserContext, stepMs: number): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await context.newPage()
  page.setDefaultTimeout(stepMs)
  const errors = collectPageErrors(page)
  const requests: string[] = []
  page.on('request', (r) => requests.push(new URL(r.url()).pathname))
  return { page, errors, requests }
}
