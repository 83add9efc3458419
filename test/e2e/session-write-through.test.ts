import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { collectPageErrors, launchBrowser, screenshot } from '../helpers/e2e-browser.js'
import { hasRedis, RedisServer } from '../helpers/redis-server.js'
import { REPO, sigkillTree, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { freePort } from '../helpers/ui-sidecar.js'

/**
 * Issue #22.6 in Chromium: with `redis_url`, what the user saw survives. A click's result shows
 * in the browser, the replica is SIGKILLed at once (before the old write-behind second was
 * over), a new replica comes up on the same address with the same Redis, and the browser
 * reconnects to it: the session resumes with the state the user saw, twice in a row.
 */
const TARGET = `${REPO}test/fixtures/app-session-ids.ts:app`

describe.skipIf(!hasRedis)('page sessions are written through to Redis (Chromium, SIGKILL, restart)', () => {
  let redis: RedisServer
  let browser: Browser
  let port: number

  beforeAll(async () => {
    ;[redis, browser, port] = await Promise.all([RedisServer.start(), launchBrowser(), freePort()])
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await stopAllTrees()
    await redis?.stop()
  }, 60_000)

  const replica = (name: string): Promise<SvcTree> =>
    startSvc({ target: TARGET, noPort: true, args: ['--port', String(port)], env: { SVC_UI_COMMAND: undefined, SVC_REDIS_URL: redis.url, REPLICA: name, SVC_UI_SESSION_TTL_S: '60' } })

  async function sigkill(tree: SvcTree): Promise<void> {
    expect(await sigkillTree(tree)).toEqual([])
  }

  async function clickAndKill(page: Page, tree: SvcTree, expected: number): Promise<number> {
    await page.getByRole('button', { name: 'Add one' }).click()
    await page.getByText(`count: ${expected}`, { exact: true }).waitFor()
    const shownAt = performance.now()
    await sigkill(tree)
    return performance.now() - shownAt
  }

  it('a click shown in the browser survives a SIGKILL right after it, on the next replica', async () => {
    let tree = await replica('A')
    const page = await browser.newPage({ viewport: { width: 900, height: 700 } })
    const errors = collectPageErrors(page)
    await page.goto(`http://127.0.0.1:${port}/count`)
    await page.getByText('count: 0', { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Add one' }).click()
    await page.getByText('count: 1', { exact: true }).waitFor()

    const names = ['B', 'C']
    for (const [round, name] of names.entries()) {
      const expected = round + 2
      const killMs = await clickAndKill(page, tree, expected)
      tree = await replica(name)
      // The browser reconnects by itself (back-off) and resumes its session from Redis.
      await page.getByText(`replica: ${name}`, { exact: true }).waitFor({ timeout: 30_000 })
      expect(await page.getByText(`count: ${expected}`, { exact: true }).count(), `after the kill ${killMs.toFixed(0)} ms after the result showed`).toBe(1)
      expect(await page.getByText('Your previous session had expired').count()).toBe(0)
      console.info(`round ${round + 1}: killed ${killMs.toFixed(0)} ms after "count: ${expected}" showed; resumed on replica ${name} with it`)
    }
    await screenshot(page, 'write-through-resumed')
    expect(errors).toEqual([])
  }, 120_000)
})
