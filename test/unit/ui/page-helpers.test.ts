import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { Svc } from '../../../src/app.js'
import {
  Cookie, Depends, Header, InMemorySessionStore, buildPageManifest, createUiTestHandle, ensureUrlSession, hydrateUrlSession,
  parseQueryParams, persistUrlSession, urlSessionEnabled,
} from '../../../src/ui/index.js'

const quiet = () => new Svc({ title: 'Portal', log_level: 'fatal' })

afterEach(() => vi.unstubAllEnvs())

describe('injection', () => {
  it('Depends, Header and Cookie resolve per run; overrides win', async () => {
    const app = quiet()
    let calls = 0
    const db = () => ({ n: ++calls })
    app.page('/', { inject: { db: Depends(db), lang: Header('Accept-Language'), sid: Cookie('sid') } }, (st, _c, deps) => {
      st.json({ n: deps.db.n, lang: deps.lang ?? null, sid: deps.sid ?? null })
    })
    const at = await createUiTestHandle(app, { headers: { 'Accept-Language': 'fr' }, cookies: { sid: 's1' } }).run()
    expect(at.json[0]!.props.value).toEqual({ n: 1, lang: 'fr', sid: 's1' })
    await at.run()
    expect(at.json[0]!.props.value).toMatchObject({ n: 2 })
    const over = await createUiTestHandle(app, { pageOverrides: { db: { n: 99 }, lang: 'de' } }).run()
    expect(over.json[0]!.props.value).toEqual({ n: 99, lang: 'de', sid: null })
    vi.stubEnv('SVC_TEST_PAGE_OVERRIDES', '{"sid":"from-env"}')
    const env = await createUiTestHandle(app).run()
    expect(env.json[0]!.props.value).toMatchObject({ sid: 'from-env' })
    vi.stubEnv('SVC_TEST_PAGE_OVERRIDES', 'not json')
    expect(() => createUiTestHandle(app)).toThrow(/SVC_TEST_PAGE_OVERRIDES is not valid JSON/)
  })

  it('a returned PageMeta sets title, icon, layout, breadcrumb', async () => {
    const app = quiet()
    app.page('/r', { title: 'Static' }, () => ({ pageTitle: 'Dynamic', pageIcon: '🔥', layout: 'wide' as const, breadcrumb: ['Home', 'R'] }))
    const at = await createUiTestHandle(app, { target: '/r' }).run()
    expect(at.page).toEqual({ path: '/r', title: 'Dynamic', icon: '🔥', layout: 'wide', breadcrumb: ['Home', 'R'] })
  })
})

describe('parseQueryParams', () => {
  const schema = z.object({ n: z.coerce.number().int().default(1), tag: z.array(z.string()).or(z.string()).optional() })

  it('parses, shows an error and returns defaults, or throws when strict', async () => {
    const app = quiet()
    app.page('/', (st) => st.json(parseQueryParams(st, schema)))
    app.page('/strict', (st) => st.json(parseQueryParams(st, schema, { strict: true })))
    const ok = await createUiTestHandle(app, { queryParams: { n: '5', tag: ['a', 'b'] } }).run()
    expect(ok.json[0]!.props.value).toEqual({ n: 5, tag: ['a', 'b'] })
    const bad = await createUiTestHandle(app, { queryParams: { n: 'x' } }).run()
    expect(bad.error[0]!.value).toMatch(/Invalid query parameters/)
    expect(bad.json[0]!.props.value).toEqual({ n: 1 })
    const strict = await createUiTestHandle(app, { target: '/strict', queryParams: { n: 'x' } }).run()
    expect(strict.exception[0]!.props).toMatchObject({ name: 'SvcError' })
  })

  it('query param updates go to the browser without a rerun', async () => {
    const app = quiet()
    let runs = 0
    app.page('/', (st) => {
      runs++
      if (st.button('Set', { key: 'set' })) st.queryParams.set('tab', ['a', 'b'])
      st.text(`${st.queryParams.get('tab')}|${st.queryParams.getAll('tab').join(',')}`)
    })
    const at = await createUiTestHandle(app).run()
    await at.button('set').click().run()
    expect(at.messages.filter((m) => m.type === 'query').at(-1)).toMatchObject({ query: 'tab=a&tab=b' })
    expect(at.text[0]!.value).toBe('b|a,b')
    expect(runs).toBe(2)
  })
})

describe('url-session helpers', () => {
  it('ensure, persist and hydrate through the store', async () => {
    vi.stubEnv('SVC_TESTS', '')
    const store = new InMemorySessionStore()
    const app = quiet()
    app.page('/', async (st) => {
      const id = await ensureUrlSession(st, store, { initial: { theme: 'dark' } })
      await hydrateUrlSession(st, store)
      st.sessionState.visits = (st.sessionState.visits ?? 0) + 1
      st.sessionState.__private = 'x'
      await persistUrlSession(st, store)
      st.text(id ?? 'none')
    })
    const at = await createUiTestHandle(app).run()
    const id = at.text[0]!.value as string
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(at.queryParams.get('svc_sid')).toBe(id)
    expect(store.get(id)).toEqual({ theme: 'dark', visits: 1 })
    const reloaded = await createUiTestHandle(app, { queryParams: { svc_sid: id } }).run()
    expect(reloaded.sessionState.visits).toBe(2)
  })

  /** A page that keeps a secret of the visitor's in its URL session (the state an attacker wants). */
  function notesApp(store: InMemorySessionStore) {
    const app = quiet()
    app.page('/', async (st) => {
      const id = await ensureUrlSession(st, store)
      await hydrateUrlSession(st, store)
      const note = st.textInput('Note', { key: 'note' })
      await persistUrlSession(st, store)
      st.text(`${id}|${note}`)
    })
    return app
  }

  it('an id the server never issued is replaced, and nothing is ever stored under it', async () => {
    vi.stubEnv('SVC_TESTS', '')
    const store = new InMemorySessionStore()
    const chosen = 'A'.repeat(43)
    const victim = await createUiTestHandle(notesApp(store), { queryParams: { svc_sid: chosen } }).run()
    await victim.textInput('note').setValue('my secret').run()
    const id = victim.queryParams.get('svc_sid')!
    expect(id).not.toBe(chosen)
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(store.get(chosen)).toBeUndefined()
    expect(store.get(id)).toEqual({ note: 'my secret' })
  })

  it('an id issued to another session carries its state over to a fresh id; the victim never writes under it', async () => {
    vi.stubEnv('SVC_TESTS', '')
    const store = new InMemorySessionStore()
    const app = notesApp(store)
    const attacker = await createUiTestHandle(app).run()
    await attacker.textInput('note').setValue('planted').run()
    const planted = attacker.queryParams.get('svc_sid')!
    const victim = await createUiTestHandle(app, { queryParams: { svc_sid: planted } }).run()
    const id = victim.queryParams.get('svc_sid')!
    expect(id).not.toBe(planted)
    expect(store.get(id)).toEqual({ note: 'planted' })
    await victim.textInput('note').setValue('my secret').run()
    expect(victim.queryParams.get('svc_sid')).toBe(id)
    expect(store.get(planted)).toEqual({ note: 'planted' })
    expect(store.get(id)).toEqual({ note: 'my secret' })
  })

  it('hydrate and persist ignore an id this session was not given', async () => {
    vi.stubEnv('SVC_TESTS', '')
    const store = new InMemorySessionStore()
    const chosen = 'B'.repeat(43)
    store.set(chosen, { note: 'planted' })
    const app = quiet()
    app.page('/', async (st) => {
      const read = await hydrateUrlSession(st, store)
      st.sessionState.note = 'mine'
      const written = await persistUrlSession(st, store)
      st.text(`${read}|${written}|${String(st.sessionState.note)}`)
    })
    const at = await createUiTestHandle(app, { queryParams: { svc_sid: chosen } }).run()
    expect(at.text[0]!.value).toBe('null|null|mine')
    expect(store.get(chosen)).toEqual({ note: 'planted' })
  })

  it('switches: SVC_TESTS disables unless forced; SVC_DISABLE_URL_SESSION always disables', () => {
    expect(urlSessionEnabled({})).toBe(true)
    expect(urlSessionEnabled({ SVC_TESTS: '1' })).toBe(false)
    expect(urlSessionEnabled({ SVC_TESTS: '1', SVC_FORCE_URL_SESSION_IN_TESTS: '1' })).toBe(true)
    expect(urlSessionEnabled({ SVC_DISABLE_URL_SESSION: 'true', SVC_FORCE_URL_SESSION_IN_TESTS: '1' })).toBe(false)
  })

  it('InMemorySessionStore expires lazily and evicts the oldest insertion', () => {
    let now = 0
    const store = new InMemorySessionStore({ maxEntries: 2, defaultTtlSeconds: 10, now: () => now })
    store.set('a', { v: 1 })
    store.set('b', { v: 2 }, 0)
    store.set('c', { v: 3 })
    expect(store.get('a')).toBeUndefined()
    now = 11_000
    expect(store.get('c')).toBeUndefined()
    expect(store.get('b')).toEqual({ v: 2 })
  })
})

describe('pages manifest', () => {
  it('lists pages in nav order with parameters and dependencies', () => {
    const app = quiet()
    function loadUsers() { return [] }
    app.page('/', function overview(st) { st.title('x') })
    app.page('/users', { title: 'Users', icon: '👥', tags: ['admin'], description: 'All users', order: -1, inject: { users: Depends(loadUsers), lang: Header('accept-language') } }, () => {})
    const m = buildPageManifest(app)
    expect(m).toMatchObject({ manifest_version: 1, manifest_stability: 'stable', title: 'Portal' })
    expect(m.pages.map((p) => [p.path, p.title])).toEqual([['/users', 'Users'], ['/', 'Overview']])
    expect(m.pages[0]).toEqual({
      path: '/users', title: 'Users', tags: ['admin'], description: 'All users', icon: '👥', section: null,
      parameters: [
        { name: 'st', annotation: 'St' }, { name: 'client', annotation: 'ApiClient' },
        { name: 'users', annotation: 'Depends(loadUsers)' }, { name: 'lang', annotation: 'Header("accept-language")' },
      ],
      dependencies: ['loadUsers'],
    })
  })

  it('duplicate paths and slug collisions are rejected at registration', () => {
    const app = quiet()
    app.page('/a', () => {})
    expect(() => app.page('/a', () => {})).toThrow(/duplicate page path/)
    expect(() => app.page('/a/', () => {})).toThrow(/slug/)
  })
})

