import { once } from 'node:events'
import { describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { collectPageErrors, screenshot } from '../helpers/e2e-browser.js'
import { useSvcWithBrowser } from '../helpers/e2e-app.js'
import type { SvcRun } from '../helpers/e2e-svc.js'
import { PageClient, textOf } from '../helpers/ui-sidecar.js'
import { SESSION_TAKEN_OVER_CLOSE_CODE } from '../../src/ui/wire/close-codes.js'

/**
 * A page socket that presents the id of a session still attached to another socket takes the
 * session over: a browser reload whose new socket reaches the page server before the old one's
 * close (seen under load as a page that came back with its defaults), or a reconnect after a
 * half-open connection. The socket it replaces is closed with SESSION_TAKEN_OVER_CLOSE_CODE, and
 * a browser told so starts a session of its own instead of taking the session back.
 */
const APP = `${import.meta.dirname}/../fixtures/app-session-ids.ts:app`

describe('a session taken over by a newer socket (svc run, bundled page server)', () => {
  let svc: SvcRun
  let browser: Browser
  useSvcWithBrowser(APP, [], (s) => void ({ svc, browser } = s))

  const stream = (): string => `${svc.url.replace('http:', 'ws:')}_stcore/stream`

  /** The button's id, from the first render of a socket that just said hello. */
  const buttons = new Map<PageClient, string>()
  async function count(client: PageClient): Promise<string> {
    if (!buttons.has(client)) buttons.set(client, (await client.render(10_000)).main.find((n) => n.type === 'button')!.id)
    client.send({ type: 'widget', id: buttons.get(client)!, value: true, trigger: true })
    return textOf(await client.settled(10_000))
  }

  it('the newer socket resumes the session with its state; the older one is closed with the take-over code and no longer holds it', async () => {
    const first = await new PageClient(stream()).open()
    first.send({ type: 'hello', sessionId: null, path: '/count', query: '' })
    const { sessionId } = await first.next('session', 10_000)
    expect(await count(first)).toContain('count: 1')
    const firstClosed = once(first.ws, 'close') as Promise<[number, Buffer]>

    const second = await new PageClient(stream()).open()
    try {
      second.send({ type: 'hello', sessionId, path: '/count', query: '' })
      expect(await second.next('session', 10_000)).toMatchObject({ sessionId, restored: true })
      const [code] = await firstClosed
      expect(code).toBe(SESSION_TAKEN_OVER_CLOSE_CODE)
      // The older socket's close did not detach the session from the newer one: it still runs there.
      expect(await count(second)).toContain('count: 2')
      expect(await count(second)).toContain('count: 3')
    } finally {
      await second.close()
    }
  })

  it('a browser whose session was taken over says so and starts its own, without taking it back', async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 600 } })
    const errors = collectPageErrors(page)
    const ids: string[] = []
    page.on('websocket', (ws) =>
      ws.on('framereceived', ({ payload }) => {
        const m = JSON.parse(String(payload)) as { type?: string; sessionId?: string }
        if (m.type === 'session' && m.sessionId) ids.push(m.sessionId)
      }),
    )
    await page.goto(`${svc.url}count`)
    await page.getByRole('button', { name: 'Add one' }).click()
    await page.getByText('count: 1').waitFor()
    const taken = ids.at(-1)!

    const other = await new PageClient(stream()).open()
    try {
      other.send({ type: 'hello', sessionId: taken, path: '/count', query: '' })
      expect(await other.next('session', 10_000)).toMatchObject({ sessionId: taken, restored: true })
      await page.getByText('This page was opened again elsewhere').waitFor()
      await page.getByText('count: 0').waitFor()
      expect(ids.at(-1)).not.toBe(taken)
      await screenshot(page, 'session-taken-over')
      // The other socket keeps the session: the browser did not take it back.
      expect(await count(other)).toContain('count: 2')
      expect(errors).toEqual([])
    } finally {
      await other.close()
      await page.close()
    }
  })
})
