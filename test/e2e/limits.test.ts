import { createHash, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcPage } from '../helpers/e2e-app.js'

const APP = 'test/e2e/fixtures/limits-app.ts:app'

/**
 * In Chromium against `svc run`: a file larger than the page-socket message limit (1 MiB)
 * uploads over its own request and reaches the page intact; a page that never yields is stopped
 * after `ui_run_timeout_s` and the visitor is told, with a way to run it again.
 */
describe('page server limits in the browser', () => {
  let svc: SvcRun
  let page: Page
  let errors: string[]
  const sent: number[] = []

  useSvcPage(APP, { viewport: { width: 1100, height: 800 } }, (s) => {
    ;({ svc, page, errors } = s)
    page.on('websocket', (ws) => ws.on('framesent', ({ payload }) => sent.push(typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length)))
  })

  it('uploads a 3 MiB file (three times the message limit): the page gets its bytes, no socket message carries them', async () => {
    await page.goto(svc.url)
    await page.getByText('no file').waitFor()
    const bytes = randomBytes(3 * 1024 * 1024)
    await page.locator('input[type=file]').setInputFiles({ name: 'big.bin', mimeType: 'application/octet-stream', buffer: bytes })
    const sha = createHash('sha256').update(bytes).digest('hex')
    await page.getByText(`file big.bin ${bytes.byteLength} ${sha}`).waitFor({ timeout: 30_000 })
    await page.getByRole('listitem').filter({ hasText: 'big.bin' }).waitFor()
    expect(Math.max(...sent)).toBeLessThan(4096)
    await screenshot(page, 'limits-upload-3mib')
    expect(errors).toEqual([])
  }, 60_000)

  it('a page that never yields is stopped after 2 s: the visitor sees why, Rerun runs it again with its state, no reconnect', async () => {
    await page.goto(`${svc.url}spin`)
    await page.getByText('count=0').waitFor()
    await page.getByRole('button', { name: 'Add' }).click()
    await page.getByText('count=1').waitFor()
    await page.getByRole('button', { name: 'Spin' }).click()
    const banner = page.getByTestId('run-stopped')
    await banner.getByText('This page took longer than 2 s and was stopped.').waitFor({ timeout: 30_000 })
    await screenshot(page, 'limits-run-stopped')
    expect(await page.getByTestId('reconnect-banner').count()).toBe(0)
    await banner.getByRole('button', { name: 'Rerun' }).click()
    await banner.waitFor({ state: 'detached' })
    await page.getByText('count=1').waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('reconnect-banner').count()).toBe(0)
    expect(errors).toEqual([])
  }, 90_000)
})
