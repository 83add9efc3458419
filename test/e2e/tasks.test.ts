import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { startSvcWithBrowser } from '../helpers/e2e-app.js'
import { collectPageErrors, screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'

/**
 * Issue #35 in Chromium against `svc run`: a task runs past `ui_run_timeout_s` (2 s here) with its
 * progress and partial results shown by a fragment, comes back after a tab reload, stops when
 * cancelled from the page; a task burning CPU does not stall a session on the same page thread.
 * The same tree (no Redis) keeps per-user storage in files.
 */
const RUN_TIMEOUT_S = 2
const BFF_SECRET = 'e2e-tasks-bff-secret-0123456789abcdef-012345'

async function partialRows(page: Page): Promise<number> {
  const text = (await page.getByText(/^partial: \d+$/).textContent()) ?? ''
  return Number(/\d+/.exec(text)![0])
}

describe('tasks in the browser (svc run, ui_run_timeout_s 2, one page thread)', () => {
  let svc: SvcRun
  let browser: Browser
  const dir = mkdtempSync(join(tmpdir(), 'svc-tasks-'))
  const taskLog = join(dir, 'task.log')
  const noted = (): string[] => {
    try {
      return readFileSync(taskLog, 'utf8').split('\n').filter(Boolean)
    } catch {
      return []
    }
  }
  beforeAll(async () => {
    // A short run timeout, and one page thread: two sessions share it.
    ;({ svc, browser } = await startSvcWithBrowser('test/e2e/fixtures/beyond-app.ts:app', [], {
      SVC_UI_RUN_TIMEOUT_S: String(RUN_TIMEOUT_S),
      SVC_UI_PAGE_THREADS: '1',
      TASK_LOG: taskLog,
      SVC_OIDC_BFF_SECRET: BFF_SECRET,
      SVC_UI_USER_STORAGE_DIR: join(dir, 'users'),
    }))
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await svc?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('a task runs past ui_run_timeout_s with its progress shown, survives a reload, and a cancel stops it', async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 700 } })
    const errors = collectPageErrors(page)
    try {
      // 1. Past the run timeout, progress and partial results shown without a page rerun.
      await page.goto(`${svc.url}export?seconds=${RUN_TIMEOUT_S + 2}`)
      await page.getByText('status: idle').waitFor()
      const started = performance.now()
      await page.getByRole('button', { name: 'Start export' }).click()
      await page.getByRole('progressbar').waitFor()
      await expect.poll(() => partialRows(page), { timeout: 10_000 }).toBeGreaterThan(0)
      await screenshot(page, 'task-progress')
      await page.getByText('status: done').waitFor({ timeout: 20_000 })
      expect(performance.now() - started).toBeGreaterThan(RUN_TIMEOUT_S * 1000)
      expect(await page.getByText(`rows: ${(RUN_TIMEOUT_S + 2) * 100}`).count()).toBe(1)
      expect(await page.getByText(/took longer than/).count()).toBe(0)

      // 2. A reload mid-task: the session gets its task back, still running, and it finishes.
      await page.getByRole('button', { name: 'Start export' }).click()
      await expect.poll(() => partialRows(page), { timeout: 10_000 }).toBeGreaterThan(0)
      const before = await partialRows(page)
      await page.reload()
      await page.getByText('status: running').waitFor()
      expect(await partialRows(page)).toBeGreaterThanOrEqual(before)
      await page.getByText('status: done').waitFor({ timeout: 20_000 })

      // 3. Cancel from the page: the status says so at once and the task's function stops.
      expect(noted()).toEqual(['export ended', 'export ended'])
      await page.getByRole('button', { name: 'Start export' }).click()
      await expect.poll(() => partialRows(page), { timeout: 10_000 }).toBeGreaterThan(0)
      await page.getByRole('button', { name: 'Cancel export' }).click()
      await page.getByText('status: cancelled').waitFor()
      await expect.poll(noted, { timeout: 10_000 }).toEqual(['export ended', 'export ended', 'export ended (cancelled)'])
      await screenshot(page, 'task-cancelled')
      expect(errors).toEqual([])
    } finally {
      await page.close()
    }
  }, 90_000)

  it('a task burning CPU does not stall another session on the same page thread; cancelled, its thread is ended', async () => {
    const burner = await browser.newPage({ viewport: { width: 900, height: 600 } })
    const other = await browser.newPage({ viewport: { width: 900, height: 600 } })
    try {
      await burner.goto(`${svc.url}burn?ms=6000`)
      await other.goto(`${svc.url}ping`)
      await other.getByText('pings: 0').waitFor()
      await burner.getByRole('button', { name: 'Burn CPU' }).click()
      await burner.getByText('burn: running').waitFor()
      for (let i = 1; i <= 3; i++) {
        await other.getByRole('button', { name: 'Ping' }).click()
        await other.getByText(`pings: ${i}`).waitFor({ timeout: 5_000 })
      }
      // Every ping was answered while the task still burned.
      expect(await burner.getByText('burn: running').count()).toBe(1)
      await burner.getByText('burn: done').waitFor({ timeout: 20_000 })
      // A task that never yields cannot see its signal: after the grace its thread is terminated.
      const mark = svc.output().length
      await burner.getByRole('button', { name: 'Burn CPU' }).click()
      await burner.getByText('burn: running').waitFor()
      await burner.getByRole('button', { name: 'Cancel burn' }).click()
      await burner.getByText('burn: cancelled').waitFor()
      await svc.waitForOutput(/ui task did not stop after it was cancelled/, 15_000, mark)
    } finally {
      await burner.close()
      await other.close()
    }
  }, 60_000)

  it('per-user storage without Redis: files under ui_user_storage_dir, read back in a new session', async () => {
    const signedIn = async (): Promise<Page> => {
      const ctx = await browser.newContext({ viewport: { width: 900, height: 600 } })
      // A sign-in's cookie carries its session id (sid): one without counts as signed out.
      const token = await new SignJWT({ prv: 'default', sid: 'sid-ada' }).setProtectedHeader({ alg: 'HS256' }).setSubject('ada').setIssuer('svc-bff').setAudience('svc-user').setExpirationTime('1h').sign(new TextEncoder().encode(BFF_SECRET))
      await ctx.addCookies([{ name: 'svc_user', value: token, url: svc.url, httpOnly: true }])
      return ctx.newPage()
    }
    const first = await signedIn()
    await first.goto(`${svc.url}prefs`)
    await first.getByText('saved: null').waitFor()
    await first.getByRole('button', { name: 'Save for me' }).click()
    await first.getByText('saved: {"rows":50,"theme":"dark"}').waitFor()
    await first.context().close()
    const again = await signedIn()
    await again.goto(`${svc.url}prefs`)
    await again.getByText('saved: {"rows":50,"theme":"dark"}').waitFor()
    await again.context().close()
  }, 60_000)
})
