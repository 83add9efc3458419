import { describe, expect, it } from 'vitest'
import { Svc, z } from '../../../src/index.js'
import { isSvcError } from '../../../src/errors.js'
import { createUiTestHandle } from '../../../src/testing/app-test.js'
import type { St } from '../../../src/ui/st-types.js'
import { CookieKeys } from '../../../src/ui/storage/cookie-keys.js'
import { MemoryUserStore } from '../../../src/ui/storage/user-store.js'
import type { ServerMessage } from '../../../src/ui/wire/protocol.js'

const SECRET = 'cookie-secret-0123456789abcdef-0123456789'

function app(options: { cookie_secret?: string; ui_user_storage_max_keys?: number; ui_user_storage_max_value_bytes?: number } = {}): Svc {
  return new Svc({ title: 'T', log_level: 'fatal', ...options })
}

/** What `fn` threw, as its code (or the error). */
function codeOf(fn: () => unknown): unknown {
  try {
    fn()
  } catch (err) {
    return isSvcError(err) ? err.code : err
  }
  return 'no error'
}

const tickets = (messages: readonly ServerMessage[]): string[] => messages.flatMap((m) => (m.type === 'cookie' ? [m.ticket] : []))

describe('st.cookies', () => {
  it('writes cookies as a sealed ticket of Set-Cookie lines (HttpOnly, SameSite, path, max age); reads see the writes', async () => {
    const a = app({ cookie_secret: SECRET })
    a.page('/', (st) => {
      st.cookies.set('seen', 'yes', { maxAge: '30d' })
      st.cookies.set('prefs', { theme: 'dark' }, { httpOnly: false, sameSite: 'strict', path: '/reports' })
      st.cookies.set('who', 'ada', { signed: true })
      st.cookies.delete('old')
      st.text(`${st.cookies.get('seen')} ${st.cookies.get('prefs', { schema: z.object({ theme: z.enum(['light', 'dark']) }) })?.theme} ${st.cookies.get('who', { signed: true })} ${st.cookies.get('old') ?? '-'}`)
    })
    const at = await createUiTestHandle(a, { cookies: { old: 'x' }, headers: { 'x-forwarded-proto': 'https' } }).run()
    expect(at.text[0]!.value).toBe('yes dark ada -')
    const sealed = tickets(at.messages)
    expect(sealed).toHaveLength(1)
    // The app's key opens it (the page server's endpoint does this); its lines are what the browser gets.
    const keys = new CookieKeys(SECRET, '')
    const ticket = keys.open(sealed[0]!)!
    expect(ticket.cookies[0]).toBe('seen=yes; Path=/; SameSite=Lax; HttpOnly; Secure; Max-Age=2592000')
    expect(ticket.cookies[1]).toBe('prefs=%7B%22theme%22%3A%22dark%22%7D; Path=/reports; SameSite=Strict; Secure')
    expect(ticket.cookies[2]).toMatch(/^who=ada\.[A-Za-z0-9_-]{43}; Path=\/; SameSite=Lax; HttpOnly; Secure$/)
    expect(ticket.cookies[3]).toBe('old=; Path=/; SameSite=Lax; HttpOnly; Secure; Max-Age=0')
    expect(ticket.expires).toBeGreaterThan(Date.now())
    // A changed ticket does not open.
    expect(keys.open(sealed[0]!.slice(0, -2) + (sealed[0]!.endsWith('A') ? 'BB' : 'AA'))).toBeNull()
  })

  it('what the browser sends back is checked: a forged signature or a value the schema refuses reads as absent', async () => {
    const keys = new CookieKeys(SECRET, '')
    const a = app({ cookie_secret: SECRET })
    a.page('/', (st) => {
      const n = z.number().int()
      st.text([st.cookies.get('good', { signed: true }), st.cookies.get('forged', { signed: true }), st.cookies.get('moved', { signed: true }), st.cookies.get('count', { schema: n }), st.cookies.get('bad', { schema: n })].map(String).join(' '))
    })
    const cookies = { good: keys.sign('good', 'ok'), forged: 'admin.AAAA', moved: keys.sign('good', 'ok'), count: '7', bad: 'seven' }
    const at = await createUiTestHandle(a, { cookies }).run()
    expect(at.text[0]!.value).toBe('ok undefined undefined 7 undefined')
  })

  it('refuses what a browser would not keep, with the fix in the message', async () => {
    const a = app()
    const codes: unknown[] = []
    a.page('/', (st) => {
      codes.push(
        codeOf(() => st.cookies.set('bad name', 'x')),
        codeOf(() => st.cookies.set('big', 'x'.repeat(5000))),
        codeOf(() => st.cookies.set('s', 'x', { signed: true })),
        codeOf(() => st.cookies.set('n', 'x', { sameSite: 'none', secure: false })),
        codeOf(() => st.cookies.set('__Host-x', 'x', { path: '/a' })),
        codeOf(() => st.cookies.set('ok', 'x', { maxAge: -1 })),
      )
    })
    await createUiTestHandle(a).run()
    expect(codes).toEqual(['SVC_ERR_UI_BAD_CALL', 'SVC_ERR_UI_STORAGE', 'SVC_ERR_UI_BAD_CALL', 'SVC_ERR_UI_BAD_CALL', 'SVC_ERR_UI_BAD_CALL', 'SVC_ERR_UI_BAD_CALL'])
  })
})

describe('st.localStorage and st.tabStorage', () => {
  it('reads what the browser sent, checked by a schema; writes go to the browser and are seen at once', async () => {
    const a = app()
    const Prefs = z.object({ theme: z.enum(['light', 'dark']), rows: z.number().int().max(500) })
    a.page('/', (st) => {
      const prefs = st.localStorage.get('prefs', Prefs)
      st.text(`prefs ${prefs ? `${prefs.theme}/${prefs.rows}` : 'none'}; hacked ${String(st.localStorage.get('hacked', Prefs))}`)
      if (st.button('Dark', { key: 'dark' })) st.localStorage.set('prefs', { theme: 'dark', rows: 50 })
      st.tabStorage.set('visits', (Number(st.tabStorage.get('visits', z.number())) || 0) + 1)
    })
    const at = await createUiTestHandle(a, { localStorage: { prefs: { theme: 'light', rows: 20 }, hacked: { theme: 'pink', rows: 1e9 } } }).run()
    expect(at.text[0]!.value).toBe('prefs light/20; hacked undefined')
    await at.button('dark').click().run()
    expect(at.localStorage.prefs).toBe('{"theme":"dark","rows":50}')
    expect(at.tabStorage.visits).toBe('2')
  })

  it('an area holds at most 16 KiB', async () => {
    const a = app()
    let code: unknown
    a.page('/', (st) => {
      code = codeOf(() => st.localStorage.set('big', 'x'.repeat(17 * 1024)))
    })
    await createUiTestHandle(a).run()
    expect(code).toBe('SVC_ERR_UI_STORAGE')
  })
})

describe('st.userStorage', () => {
  const page = (st: St): Promise<void> =>
    (async () => {
      const Prefs = z.object({ rows: z.number().int() })
      if (st.button('Save', { key: 'save' })) await st.userStorage.set('prefs', { rows: 100 })
      const prefs = await st.userStorage.get('prefs', Prefs)
      st.text(`rows ${prefs?.rows ?? 'default'}; keys ${(await st.userStorage.keys()).join(',')}`)
    })()

  it('keeps values per signed-in user across sessions; another user sees their own', async () => {
    const a = app()
    a.page('/', page)
    const store = new MemoryUserStore()
    const first = await createUiTestHandle(a, { user: { sub: 'ada' }, userStore: store }).run()
    await first.button('save').click().run()
    const again = await createUiTestHandle(a, { user: { sub: 'ada' }, userStore: store }).run()
    expect(again.text[0]!.value).toBe('rows 100; keys prefs')
    const other = await createUiTestHandle(a, { user: { sub: 'bob' }, userStore: store }).run()
    expect(other.text[0]!.value).toBe('rows default; keys ')
  })

  it('needs a signed-in user, and keeps to its limits', async () => {
    const a = app({ ui_user_storage_max_keys: 1, ui_user_storage_max_value_bytes: 64 })
    const codes: unknown[] = []
    a.page('/', async (st) => {
      for (const call of [() => st.userStorage.set('a', 1), () => st.userStorage.set('b', 2), () => st.userStorage.set('a', 'x'.repeat(100))]) {
        await call().then(() => codes.push('ok'), (err: unknown) => codes.push(isSvcError(err) ? err.code : err))
      }
    })
    await createUiTestHandle(a).run()
    expect(codes).toEqual(['SVC_ERR_UI_STORAGE', 'SVC_ERR_UI_STORAGE', 'SVC_ERR_UI_STORAGE'])
    codes.length = 0
    await createUiTestHandle(a, { user: { sub: 'ada' } }).run()
    expect(codes).toEqual(['ok', 'SVC_ERR_UI_STORAGE', 'SVC_ERR_UI_STORAGE'])
  })
})

describe('st.context', () => {
  it('has the visitor facts the test handle was given, and null where nothing was said', async () => {
    const a = app()
    let seen: unknown
    a.page('/', (st) => {
      const { ipAddress, locale, timezone, timezoneOffset, url, theme, isEmbedded } = st.context
      seen = { ipAddress, locale, timezone, timezoneOffset, url, theme, isEmbedded }
    })
    await createUiTestHandle(a, { context: { ipAddress: '203.0.113.9', locale: 'de-DE', timezone: 'Europe/Berlin', theme: 'dark' } }).run()
    expect(seen).toEqual({ ipAddress: '203.0.113.9', locale: 'de-DE', timezone: 'Europe/Berlin', timezoneOffset: null, url: null, theme: 'dark', isEmbedded: false })
  })
})
