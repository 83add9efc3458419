import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { collectPageErrors, launchBrowser, screenshot } from '../helpers/e2e-browser.js'
import { FakeSidecar } from '../helpers/e2e-fake-sidecar.js'
import { el, NAV, widget } from '../helpers/e2e-showcase.js'
import type { ClientMessage } from '../../src/ui/wire/protocol.js'

type Hello = Extract<ClientMessage, { type: 'hello' }>

/** Connection, session and URL behaviour of the browser client under a root path, against a fake server. */
describe('browser client connection and navigation (root path /tools)', () => {
  const fake = new FakeSidecar('/tools')
  let browser: Browser
  let page: Page
  let errors: string[]
  let sessions = 0
  let lastIssued: string | null = null

  const renderFor = (path: string, query = '') => {
    const known = NAV.find((n) => n.path === path)
    return {
      type: 'render' as const, runId: 1, query, nav: NAV, sidebar: [],
      page: { path: known?.path ?? path, title: known?.title ?? 'Not found', icon: null, layout: 'centered' as const, breadcrumb: null },
      main: known ? [el('m.0', 'title', { text: known.title, anchor: null, help: null }), el('w.q', 'textInput', { ...widget('Query'), value: '', placeholder: '', maxChars: null, inputType: 'default' })] : [],
      ...(known ? {} : { notFound: true }),
    }
  }

  beforeAll(async () => {
    await fake.start()
    fake.onMessage = (m, reply) => {
      // Like the real server: paths arrive as full browser paths, the base path is stripped here.
      const strip = (p: string) => p.replace(/^\/tools(?=\/|$)/, '') || '/'
      if (m.type === 'hello') {
        const sessionId = m.sessionId ?? `s-${++sessions}`
        lastIssued = sessionId
        reply({ type: 'session', sessionId, restored: m.sessionId !== null })
        reply(renderFor(strip(m.path), m.query))
      }
      if (m.type === 'navigate') reply(renderFor(strip(m.path), m.query))
    }
    browser = await launchBrowser()
    page = await browser.newPage({ viewport: { width: 1100, height: 760 } })
    errors = collectPageErrors(page)
  })

  afterAll(async () => {
    await browser?.close()
    await fake.stop()
  })

  it('says hello with the browser path and the query', async () => {
    const from = fake.received.length
    await page.goto(`${fake.url}reports?range=7d`)
    const hello = (await fake.next((m) => m.type === 'hello', 10_000, from)) as Hello
    expect(hello).toEqual({
      v: 1,
      type: 'hello',
      sessionId: null,
      path: '/tools/reports',
      query: 'range=7d',
      // What st.context reads: the browser's own view of the page.
      client: { url: `${fake.url}reports?range=7d`, embedded: false, theme: 'light', locale: expect.any(String), timezone: expect.any(String), timezoneOffset: expect.any(Number) },
    })
    await page.getByRole('heading', { name: 'Reports' }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/tools/reports')
  })

  it('navigates from the sidebar with pushState and a navigate message', async () => {
    const from = fake.received.length
    await page.getByRole('link', { name: /Overview/ }).click()
    expect(await fake.next((m) => m.type === 'navigate', 5_000, from)).toEqual({ v: 1, type: 'navigate', path: '/tools/', query: '', n: expect.any(Number) })
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/tools/')
    expect(await page.locator('.svc-nav-link[aria-current=page]').textContent()).toContain('Overview')
    await page.goBack()
    expect(await fake.next((m) => m.type === 'navigate' && m.path === '/tools/reports', 5_000, from)).toMatchObject({ query: 'range=7d' })
    await page.getByRole('heading', { name: 'Reports' }).waitFor()
  })

  it('updates the URL on query, follows server navigate, shows toasts, errors and the running state', async () => {
    fake.send({ type: 'query', query: 'range=30d&team=core' })
    await expect.poll(() => new URL(page.url()).search).toBe('?range=30d&team=core')
    const from = fake.received.length
    fake.send({ type: 'navigate', path: '/showcase', query: 'tab=2' })
    expect(await fake.next((m) => m.type === 'navigate', 5_000, from)).toEqual({ v: 1, type: 'navigate', path: '/tools/showcase', query: 'tab=2', n: expect.any(Number) })
    await expect.poll(() => page.url()).toMatch(/\/tools\/showcase\?tab=2$/)
    fake.send({ type: 'toast', id: 't1', body: 'Saved!', icon: null })
    await page.getByTestId('toast').getByText('Saved!').waitFor()
    fake.send({ type: 'run_state', runId: 2, running: true })
    await page.locator('.svc-running.is-running').waitFor()
    fake.send({ type: 'run_state', runId: 2, running: false })
    await page.locator('.svc-running.is-running').waitFor({ state: 'detached' })
    fake.send({ type: 'error', message: 'The page raised an error' })
    await page.getByRole('alert').getByText('The page raised an error').waitFor()
    await page.getByRole('button', { name: 'Dismiss error' }).click()
  })

  it('renders a not-found page with links to every page', async () => {
    await page.goto(`${fake.url}nope`)
    const nf = page.getByTestId('not-found')
    await nf.waitFor()
    expect(await nf.getByRole('link').count()).toBe(NAV.length)
    expect(await nf.getByRole('link').first().getAttribute('href')).toBe('/tools/')
    await screenshot(page, 'client-not-found')
  })

  it('keeps the session across a reload, but not into a duplicated tab', async () => {
    await page.goto(`${fake.url}`)
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    const issued = lastIssued
    const from = fake.received.length
    await page.reload()
    const again = (await fake.next((m) => m.type === 'hello', 10_000, from)) as Hello
    expect(again.sessionId).toBe(issued)
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    // A duplicated tab starts with a copy of sessionStorage: the live tab keeps the id out of it.
    expect(await page.evaluate(() => sessionStorage.getItem('svc:session:/tools'))).toBeNull()
  })

  it('shows a reconnect banner, queues widget input, and resumes the same session after a restart', async () => {
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    const hellos = fake.received.filter((m): m is Hello => m.type === 'hello')
    const sessionId = hellos[hellos.length - 1]!.sessionId
    expect(sessionId).not.toBeNull()
    const port = await fake.stop()
    const banner = page.getByTestId('reconnect-banner')
    await banner.waitFor()
    expect(await banner.textContent()).toContain('Reconnecting')
    await screenshot(page, 'client-reconnecting')
    await page.getByLabel('Query').fill('offline edit')
    await page.getByLabel('Query').press('Enter')
    const from = fake.received.length
    await fake.start(port)
    expect(await fake.next((m) => m.type === 'hello', 15_000, from)).toMatchObject({ sessionId, path: '/tools/' })
    expect(await fake.next((m) => m.type === 'widget', 5_000, from)).toMatchObject({ id: 'w.q', value: 'offline edit' })
    await banner.waitFor({ state: 'detached' })
    expect(errors).toEqual([])
  })
})
