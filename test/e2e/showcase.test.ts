import { describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { collectPageErrors, screenshot } from '../helpers/e2e-browser.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { useSvcWithBrowser } from '../helpers/e2e-app.js'

/** Every element kind as the real page runtime emits it: rendered, no unknown types, no page errors. */
describe('showcase page through svc run', () => {
  let svc: SvcRun
  let browser: Browser

  useSvcWithBrowser('test/e2e/fixtures/showcase-app.ts:app', [], (s) => void ({ svc, browser } = s))

  it('renders the server-produced elements on a wide and a phone screen', async () => {
    for (const [name, viewport] of [['showcase-desktop', { width: 1280, height: 900 }], ['showcase-phone', { width: 390, height: 844 }]] as const) {
      const page = await browser.newPage({ viewport })
      const errors = collectPageErrors(page)
      await page.goto(svc.url)
      await page.getByRole('heading', { name: 'Operations overview' }).waitFor()
      await page.getByText('Inside an empty placeholder.').waitFor()
      expect(await page.locator('.svc-unknown').count()).toBe(0)
      for (const testId of ['lineChart', 'dataframe', 'metric', 'form', 'fileUploader', 'slider']) {
        expect(await page.getByTestId(testId).count(), testId).toBeGreaterThan(0)
      }
      expect(await page.getByTestId('dataframe').locator('tbody tr').count()).toBe(10)
      await screenshot(page, name)
      expect(errors).toEqual([])
      await page.close()
    }
  })

  it('submits a form once and shows the toast', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(svc.url)
    await page.getByLabel('Email').fill('grace@example.com')
    await page.getByLabel('Role').selectOption({ label: 'Admin' })
    await page.getByRole('button', { name: 'Send invite' }).click()
    await page.getByTestId('toast').getByText('Invited grace@example.com as Admin').waitFor()
    await page.close()
  })
})
