import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { startSvc, stopAllTrees, REPO } from '../helpers/svc-process.js'
import { freePort } from '../helpers/ui-sidecar.js'

/** Settings given only in `new Svc({...})` reach the supervisor through the first worker. */
describe('settings from the app object', () => {
  afterEach(stopAllTrees)

  it('binds the port, starts the sidecar command and uses the root path the app asks for', async () => {
    const port = await freePort()
    const svc = await startSvc({
      target: `${REPO}test/fixtures/app-options.ts:app`,
      noPort: true,
      env: { SVC_UI_COMMAND: undefined, TEST_APP_PORT: String(port) },
    })
    expect(svc.port).toBe(port)
    const api = await request(`http://127.0.0.1:${port}/opt/api/ping`)
    expect(await api.body.json()).toEqual({ pong: true })
    const ui = await request(`http://127.0.0.1:${port}/opt/page`)
    const seen = (await ui.body.json()) as { url: string; headers: Record<string, string> }
    expect(seen.url).toBe('/opt/page')
    expect(seen.headers['x-forwarded-prefix']).toBe('/opt')
  })

  it('lets a flag override the app option', async () => {
    const svc = await startSvc({ target: `${REPO}test/fixtures/app-options.ts:app`, env: { SVC_UI_COMMAND: undefined } })
    const res = await request(`${svc.url}/opt/api/ping`)
    expect(res.statusCode).toBe(200)
    await res.body.dump()
  })

  it('exits 2 when an app option is invalid, naming it', async () => {
    const svc = await startSvc({ target: `${REPO}test/fixtures/app-options.ts:app`, env: { SVC_UI_COMMAND: undefined, TEST_APP_WORKERS: '0' }, noWait: true })
    expect(await svc.exited).toBe(2)
    expect(svc.stderr.join('\n')).toMatch(/new Svc\(\{ workers \}\): 0 is not valid for workers/)
  })
})
