import { randomUUID } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { request } from 'undici'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { collectPageErrors, launchBrowser, screenshot } from '../helpers/e2e-browser.js'

/**
 * `svc dev --reload` with the bundled page server: a save that does not load shows in every open
 * tab (and in a tab opened meanwhile) as an overlay with the place and a code frame, the API and
 * the pages keep the last good code, the terminal prints one readable line, and the next good
 * save clears the overlay everywhere by itself.
 */
const good = (version: number) => `import { Svc } from 'svc'
export const app = new Svc({ title: 'Overlay' })
app.api.get('/version', async () => ({ version: ${version} }))
app.page('/', async (st) => {
  st.title('Version ${version}')
})
`
// Line 5, column 24: the stray ")" after the call.
const syntaxError = good(2).replace("st.title('Version 2')", "st.title('Version 2'))")
// Line 2: a package that is not installed.
const missingPackage = good(3).replace("import { Svc } from 'svc'\n", "import { Svc } from 'svc'\nimport 'no-such-package-svc-test'\n")

describe('svc dev --reload: the load error overlay', () => {
  let dir: string
  let file: string
  let browser: Browser
  beforeAll(async () => {
    dir = `${REPO}test/.tmp/overlay-${randomUUID()}`
    mkdirSync(dir, { recursive: true })
    file = `${dir}/app.ts`
    browser = await launchBrowser()
  }, 60_000)
  afterEach(stopAllTrees)
  afterAll(async () => {
    await browser?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const apiVersion = async (svc: SvcTree): Promise<number> => {
    const res = await request(`${svc.url}/api/version`)
    return ((await res.body.json()) as { version: number }).version
  }
  const open = async (svc: SvcTree): Promise<{ page: Page; errors: string[] }> => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 700 } })
    page.setDefaultTimeout(15_000)
    const errors = collectPageErrors(page)
    await page.goto(`${svc.url}/`)
    return { page, errors }
  }
  const errorRecords = (svc: SvcTree, from: number): Array<{ level: string; logger: string; message: string }> =>
    svc.stdout
      .slice(from)
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: string; logger: string; message: string })
      .filter((r) => r.level === 'error')

  it('shows a broken save in every tab, keeps the last good code serving, and clears on the next good save', { timeout: 120_000 }, async () => {
    writeFileSync(file, good(1))
    const svc = await startSvc({ command: 'dev', cwd: dir, target: 'app.ts:app', args: ['--reload', '--log-format', 'json'], env: { SVC_UI_COMMAND: undefined } })
    await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
    const tabs = [await open(svc), await open(svc)]
    for (const { page } of tabs) await page.getByRole('heading', { name: 'Version 1' }).waitFor()

    // 1. A syntax error.
    let logFrom = svc.stdout.length
    writeFileSync(file, syntaxError)
    for (const { page } of tabs) {
      const overlay = page.getByTestId('dev-error')
      await overlay.waitFor()
      expect(await overlay.getByRole('heading').innerText()).toBe('The app did not load')
      expect(await page.getByTestId('dev-error-cause').innerText()).toBe('syntax error: Expected ";" but found ")"')
      expect(await page.getByTestId('dev-error-place').innerText()).toBe('app.ts:5:24')
      const frame = await page.getByTestId('dev-error-frame').innerText()
      expect(frame).toContain("> 5 |   st.title('Version 2'))")
      // The caret under column 24 (the gutter is "  " + line number + " | ").
      expect(frame).toContain(`    | ${' '.repeat(23)}^`)
      expect(await page.getByTestId('dev-error-note').innerText()).toMatch(/keep running the last version that loaded/)
      // The page under the overlay is still the last good one.
      await page.getByRole('heading', { name: 'Version 1' }).waitFor()
    }
    await svc.waitForLine('stdout', /reload failed, the running workers keep serving/, 15_000, logFrom)
    expect(await apiVersion(svc)).toBe(1)
    // A tab opened while the app is broken shows it too, over the last good page.
    const third = await open(svc)
    tabs.push(third)
    await third.page.getByTestId('dev-error').waitFor()
    expect(await third.page.getByTestId('dev-error-place').innerText()).toBe('app.ts:5:24')
    await third.page.getByRole('heading', { name: 'Version 1' }).waitFor()
    await screenshot(third.page, 'dev-error-overlay-syntax')
    // One readable terminal line for the mistake: no second record, no esbuild stack.
    const records = errorRecords(svc, logFrom)
    expect(records, JSON.stringify(records)).toHaveLength(1)
    expect(records[0]!.message).toBe('reload failed, the running workers keep serving: cannot load app.ts: syntax error at app.ts:5:24: Expected ";" but found ")"; fix the code there')
    expect(svc.stdout.slice(logFrom).join('\n')).not.toMatch(/esbuild|\bat failureErrorWithLog\b/)

    // 2. A failed import: the overlay follows the next broken save.
    logFrom = svc.stdout.length
    writeFileSync(file, missingPackage)
    for (const { page } of tabs) {
      await expect.poll(() => page.getByTestId('dev-error-cause').innerText(), { timeout: 15_000 }).toBe('cannot find package "no-such-package-svc-test"')
      expect(await page.getByTestId('dev-error-place').innerText()).toBe('app.ts:2:8')
      expect(await page.getByTestId('dev-error-frame').innerText()).toContain("> 2 | import 'no-such-package-svc-test'")
      expect(await page.locator('.svc-dev-error-fix').innerText()).toBe('Install it (npm install no-such-package-svc-test) or fix the import.')
    }
    await svc.waitForLine('stdout', /reload failed, the running workers keep serving: cannot load app\.ts: cannot find package/, 15_000, logFrom)
    expect(errorRecords(svc, logFrom)).toHaveLength(1)

    // 3. A good save: the overlay goes away in every tab by itself, and the new code runs.
    writeFileSync(file, good(4))
    for (const { page } of tabs) {
      await page.getByRole('heading', { name: 'Version 4' }).waitFor()
      await expect.poll(() => page.getByTestId('dev-error').count(), { timeout: 15_000 }).toBe(0)
    }
    await expect.poll(() => apiVersion(svc), { timeout: 15_000 }).toBe(4)
    for (const { errors } of tabs) expect(errors).toEqual([])
    for (const { page } of tabs) await page.close()
  })
})
