import { afterAll, beforeAll } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { collectPageErrors, launchBrowser } from './e2e-browser.js'
import { startSvc, type SvcRun } from './e2e-svc.js'

export interface SvcWithBrowser {
  svc: SvcRun
  browser: Browser
}

export interface SvcWithPage extends SvcWithBrowser {
  page: Page
  /** Uncaught page errors, for the test to assert empty. */
  errors: string[]
}

export interface PageOptions {
  /** `svc run` flags after the target (`--port 0 --host 127.0.0.1` are set already). */
  args?: string[]
  viewport: { width: number; height: number }
  /** Playwright's per-step timeout: a step that hangs fails naming its locator, before the test's timeout. */
  stepTimeoutMs?: number
}

/**
 * For the enclosing `describe`: before all its tests, `svc run target …args` and chromium start
 * together and `ready` gets them; after all, the browser closes (with every context the tests
 * opened) and the process tree stops.
 */
export function useSvcWithBrowser(target: string, args: string[], ready: (started: SvcWithBrowser) => void | Promise<void>): void {
  let started: SvcWithBrowser | undefined
  beforeAll(async () => {
    started = await startSvcWithBrowser(target, args)
    await ready(started)
  }, 60_000)
  afterAll(async () => {
    await started?.browser.close()
    await started?.svc.stop()
  })
}

/**
 * `svc run target …args` (with `env`) and chromium, started together. When one fails to start,
 * the other is stopped before the error is thrown, so a failed start leaves nothing running.
 */
export async function startSvcWithBrowser(target: string, args: string[], env: Record<string, string> = {}): Promise<SvcWithBrowser> {
  const [svc, browser] = await Promise.allSettled([startSvc(target, args, env), launchBrowser()])
  if (svc.status === 'fulfilled' && browser.status === 'fulfilled') return { svc: svc.value, browser: browser.value }
  if (browser.status === 'fulfilled') await browser.value.close()
  if (svc.status === 'fulfilled') await svc.value.stop()
  throw svc.status === 'rejected' ? svc.reason : (browser as PromiseRejectedResult).reason
}

/** `useSvcWithBrowser` plus one page of `viewport` whose uncaught errors are collected. */
export function useSvcPage(target: string, opts: PageOptions, ready: (started: SvcWithPage) => void | Promise<void>): void {
  useSvcWithBrowser(target, opts.args ?? [], async ({ svc, browser }) => {
    const page = await browser.newPage({ viewport: opts.viewport })
    if (opts.stepTimeoutMs !== undefined) page.setDefaultTimeout(opts.stepTimeoutMs)
    const errors = collectPageErrors(page)
    await ready({ svc, browser, page, errors })
  })
}
