import { describe, expectTypeOf, it } from 'vitest'
import { Svc, z, type AnySvc } from '../../src/index.js'
import { SvcTestClient, loadApp } from '../../src/testing/index.js'
import { createUiTestHandle } from '../../src/ui/index.js'

/**
 * Issue #33.3: every testing helper takes any app (with or without secrets, navigation, typed
 * routes) and keeps its types. Checked by `vitest` (typecheck) and `npm run typecheck`.
 */
const withSecrets = new Svc({ title: 'secrets', secrets: z.object({ k: z.string(), port: z.coerce.number() }) })
const hello = withSecrets.route({
  method: 'GET',
  url: '/hello',
  schema: { querystring: z.object({ name: z.string() }), response: { 200: z.object({ message: z.string() }) } },
  handler: async (req) => ({ message: `Hello, ${req.query.name}` }),
})
withSecrets.navigation((nav) => nav.pages)
withSecrets.page('/', (st) => st.title('Home'))

describe('SvcTestClient over any app', () => {
  it('takes an app that declares secrets, and keeps its type', () => {
    const client = new SvcTestClient(withSecrets)
    expectTypeOf(client.app).toEqualTypeOf<typeof withSecrets>()
    expectTypeOf(client.app.secrets.k).toEqualTypeOf<string>()
    expectTypeOf(client.app.secrets.port).toEqualTypeOf<number>()
    expectTypeOf(client.withRootPath('/tools').app).toEqualTypeOf<typeof withSecrets>()
  })

  it("keeps the routes' types on call()", async () => {
    const client = new SvcTestClient(withSecrets)
    expectTypeOf(await client.call(hello, { query: { name: 'Ada' } })).toEqualTypeOf<{ message: string }>()
    // @ts-expect-error the route's query parameter is `name`
    await client.call(hello, { query: { who: 'Ada' } })
  })

  it('takes an app without secrets, and any app', () => {
    const plain = new Svc({ title: 'plain' })
    expectTypeOf(new SvcTestClient(plain).app).toEqualTypeOf<Svc>()
    const any: AnySvc = withSecrets
    expectTypeOf(new SvcTestClient(any).app).toEqualTypeOf<AnySvc>()
  })

  it('refuses what is not an app', () => {
    // @ts-expect-error not an Svc
    new SvcTestClient({ title: 'x' })
  })
})

describe('the other helpers', () => {
  it('createUiTestHandle and client.ui() take an app with secrets', () => {
    createUiTestHandle(withSecrets, { target: '/' })
    new SvcTestClient(withSecrets).ui({ target: '/' })
  })

  it('loadApp gives an app SvcTestClient takes', async () => {
    const loaded = await loadApp('app.ts:app')
    expectTypeOf(new SvcTestClient(loaded).app).toEqualTypeOf<AnySvc>()
  })
})
