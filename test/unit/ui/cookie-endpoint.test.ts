import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { handleCookieTicket } from '../../../src/ui/server/cookie-endpoint.js'
import { sessionRef } from '../../../src/ui/session-ref.js'
import { CookieKeys } from '../../../src/ui/storage/cookie-keys.js'

const SECRET = 'cookie-endpoint-secret-0123456789abcdef-0123'
const SESSION = 'S'.repeat(32)

describe('POST {root}/_stcore/cookie', () => {
  const keys = new CookieKeys(SECRET, '')
  let server: Server
  let url: string
  beforeAll(async () => {
    server = createServer((req, res) => void handleCookieTicket(req, res, keys))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/_stcore/cookie`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const post = (body: string, session = SESSION): Promise<Response> => fetch(url, { method: 'POST', body, headers: { 'x-svc-session': session } })
  const ticket = (over: Partial<{ session: string; expires: number; cookies: string[] }> = {}, with_: CookieKeys = keys): string =>
    with_.seal({ session: sessionRef(SESSION), expires: Date.now() + 60_000, cookies: ['a=1; Path=/; SameSite=Lax; HttpOnly', 'b=2; Path=/; SameSite=Lax'], ...over })

  it('answers 204 with the Set-Cookie lines of a ticket this page server sealed for this session', async () => {
    const res = await post(ticket())
    expect(res.status).toBe(204)
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/; SameSite=Lax; HttpOnly', 'b=2; Path=/; SameSite=Lax'])
  })

  it('refuses a ticket of another key, another session, an expired one, a changed one, and a GET', async () => {
    const other = new CookieKeys('another-secret-0123456789abcdef-0123456789', '')
    const sealed = ticket()
    for (const [res, why] of [
      [await post(ticket({}, other)), /not made by this page server/],
      [await post(ticket(), 'T'.repeat(32)), /another page session/],
      [await post(ticket({ expires: Date.now() - 1 })), /expired/],
      [await post(sealed.slice(0, 20) + (sealed[20] === 'A' ? 'B' : 'A') + sealed.slice(21)), /not made by this page server/],
    ] as const) {
      expect(res.status).toBe(400)
      expect(res.headers.getSetCookie()).toEqual([])
      const body = (await res.json()) as { error: string; message: string }
      expect(body.error).toBe('bad_request')
      expect(body.message).toMatch(why)
    }
    expect((await fetch(url)).status).toBe(405)
  })
})
