import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { startSvc, stopAllTrees, REPO } from '../helpers/svc-process.js'
import { freePort } from '../helpers/ui-sidecar.js'

/** Settings given only in `new Svc({...})` reach the supervisor through the probe, before it binds. */
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

  it('binds once per start: with a svc.config.json port under the app\'s options, one bind, one sidecar, one fork per worker', async () => {
    const dir = `${REPO}test/.tmp/bind-once-${process.pid}`
    mkdirSync(dir, { recursive: true })
    const port = await freePort()
    // The config file's port wins over the app's option (config > options); a reading of the app
    // after binding (the old start) would have rebound and respawned here.
    writeFileSync(`${dir}/svc.config.json`, JSON.stringify({ gateway_port: port }))
    try {
      const svc = await startSvc({ target: `${REPO}test/fixtures/app-options.ts:app`, cwd: dir, noPort: true, args: ['--log-level', 'debug'], env: { SVC_UI_COMMAND: undefined, TEST_APP_PORT: String(port + 1), TEST_APP_WORKERS: '2' } })
      expect(svc.port).toBe(port)
      const lines = svc.stdout.filter((l) => l.includes('"svc.supervisor"')).map((l) => (JSON.parse(l) as { message: string }).message)
      expect(lines.filter((m) => m.startsWith('bound '))).toEqual([`bound 127.0.0.1:${port}`])
      expect(lines.filter((m) => m.startsWith('started the ui sidecar'))).toHaveLength(1)
      expect(lines.filter((m) => m.startsWith('forked gateway worker'))).toHaveLength(2)
      const res = await request(`${svc.url}/opt/api/ping`)
      expect(await res.body.json()).toEqual({ pong: true })
    } finally {
      await stopAllTrees()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('exits 2 when an app option is invalid, naming it', async () => {
    const svc = await startSvc({ target: `${REPO}test/fixtures/app-options.ts:app`, env: { SVC_UI_COMMAND: undefined, TEST_APP_WORKERS: '0' }, noWait: true })
    expect(await svc.exited).toBe(2)
    expect(svc.stderr.join('\n')).toMatch(/new Svc\(\{ workers \}\): 0 is not valid for workers/)
  })
})
