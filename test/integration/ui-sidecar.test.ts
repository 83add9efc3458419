import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fork } from 'node:child_process'
import { optionsLayer, resolveSettings } from '../../src/settings/resolve.js'
import { once } from 'node:events'
import { join } from 'node:path'
import { PageClient, SIDECAR_MAIN, freePort, startSidecar, textOf, type Sidecar } from '../helpers/ui-sidecar.js'
import { SESSION_TAKEN_OVER_CLOSE_CODE } from '../../src/ui/wire/close-codes.js'

describe('ui sidecar (real process, ws client)', () => {
  let sc: Sidecar
  const clients: PageClient[] = []
  const connect = async (headers: Record<string, string> = {}): Promise<PageClient> => {
    const c = await new PageClient(`ws://127.0.0.1:${sc.port}/tools/_stcore/stream`, headers).open()
    clients.push(c)
    return c
  }

  beforeAll(async () => {
    sc = await startSidecar('test/fixtures/ui-app.ts', { SVC_ROOT_PATH: '/tools', SVC_UI_SESSION_TTL_S: '30' })
  })
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
    await sc?.stop()
  })

  it('serves health, the shell under the base path, the bundle, and 200 at /', async () => {
    expect(await (await fetch(`${sc.url}/tools/_stcore/health`)).text()).toBe('ok')
    expect((await fetch(`${sc.url}/`)).status).toBe(200)
    const shell = await (await fetch(`${sc.url}/tools/some/deep/link?x=1`)).text()
    expect(shell).toContain('<script type="application/json" id="svc-config">{"basePath":"/tools","title":"UI fixture"}</script>')
    expect(shell).toMatch(/src="\/tools\/_stcore\/static\/app-\w+\.js"/)
    expect((await fetch(`${sc.url}/elsewhere`)).status).toBe(404)
    expect((await fetch(`${sc.url}/tools/_stcore/static/..%2f..%2f..%2fpackage.json`)).status).toBe(404)
  })

  it('hello → session + render; widget → rerun; headers reach Header() injection', async () => {
    const c = await connect({ 'accept-language': 'de-CH', 'x-request-id': 'itest-1' })
    c.send({ type: 'hello', sessionId: null, path: '/tools/', query: '' })
    const session = await c.next('session')
    expect(session.restored).toBe(false)
    expect(session.sessionId).toMatch(/^[A-Za-z0-9_-]{32,}$/)
    const first = await c.render()
    expect(first.page.title).toBe('Home')
    expect(first.nav.map((n) => n.path)).toEqual(['/', '/second'])
    expect(textOf(first)).toBe('count=0 name= hello=hi lang=de-CH')
    const add = first.main.find((n) => n.type === 'button')!
    c.send({ type: 'widget', id: add.id, value: true, trigger: true })
    expect(textOf(await c.render())).toContain('count=1')
  })

  it('a reconnect with the session id keeps the state; two sessions are isolated', async () => {
    const a = await connect()
    a.send({ type: 'hello', sessionId: null, path: '/', query: '' })
    const { sessionId } = await a.next('session')
    const r = await a.render()
    const input = r.main.find((n) => n.type === 'textInput')!
    a.send({ type: 'widget', id: input.id, value: 'Ada' })
    expect(textOf(await a.render())).toContain('name=Ada')

    const b = await connect()
    b.send({ type: 'hello', sessionId: null, path: '/', query: '' })
    const other = await b.next('session')
    expect(other.sessionId).not.toBe(sessionId)
    expect(textOf(await b.render())).toContain('name= ')

    // A newer socket with the id takes the session over (a reload that beat the old socket's
    // close); the older socket is closed with the take-over code (test/e2e/session-takeover.test.ts).
    const aClosed = once(a.ws, 'close')
    const newer = await connect()
    newer.send({ type: 'hello', sessionId, path: '/', query: '' })
    expect(await newer.next('session')).toMatchObject({ sessionId, restored: true })
    expect((await aClosed)[0]).toBe(SESSION_TAKEN_OVER_CLOSE_CODE)

    await newer.close()
    const again = await connect()
    again.send({ type: 'hello', sessionId, path: '/', query: '' })
    const resumed = await again.next('session')
    expect(resumed).toMatchObject({ sessionId, restored: true })
    expect(textOf(await again.render())).toContain('name=Ada')
  })

  it('navigates between pages, and unknown paths render not-found', async () => {
    const c = await connect()
    c.send({ type: 'hello', sessionId: null, path: '/tools/second', query: 'a=1&a=2' })
    const r = await c.render()
    expect(r.page.path).toBe('/second')
    expect(r.main[0]!.props.text).toBe('query a=2')
    c.send({ type: 'navigate', path: '/tools/missing', query: '' })
    const nf = await c.render()
    expect(nf.notFound).toBe(true)
    expect(nf.main.filter((n) => n.type === 'link').map((n) => n.props.page)).toEqual(['/', '/second'])
  })

  it('exits 0 on SIGTERM', async () => {
    const other = await startSidecar('test/fixtures/ui-app.ts')
    const exit = new Promise<number | null>((resolve) => other.proc.once('exit', (code) => resolve(code)))
    other.proc.kill('SIGTERM')
    expect(await exit).toBe(0)
  })

  it('exits 1 and reports why over IPC (once, for the supervisor to print) when the app cannot load', async () => {
    const proc = fork(SIDECAR_MAIN, [], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, SVC_APP: 'test/fixtures/no-such-app.ts', SVC_UI_PORT: String(await freePort()) },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    })
    // The app went away between the probe and the page server (ui_page_threads 0: it loads the app itself).
    const settings = resolveSettings([optionsLayer({ target: 'test/fixtures/no-such-app.ts', ui_page_threads: 0 })])
    proc.send({ svc: 1, type: 'configure', profile: { settings, pages: [], file: 'no-such-app.ts', exportName: 'app', components: { folders: [], frameOrigins: [] } } })
    let stderr = ''
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    const exited = once(proc, 'exit')
    const [message] = (await once(proc, 'message')) as [{ type: string; code: string; message: string }]
    const [code] = (await exited) as [number]
    expect(message).toMatchObject({ type: 'fatal', code: 'SVC_ERR_TARGET_NOT_FOUND' })
    expect(message.message).toMatch(/cannot find the app module/)
    expect(code).toBe(1)
    expect(stderr).toBe('')
  })
})
