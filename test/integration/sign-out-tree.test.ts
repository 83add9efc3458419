import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startAppIdp, type AppIdp } from '../helpers/auth-idp.js'
import { TestBrowser } from '../helpers/auth-browser.js'
import { runSvcCli } from '../helpers/cli-run.js'
import { REPO, startSvc, stopAllTrees } from '../helpers/svc-process.js'
import { PageClient } from '../helpers/ui-sidecar.js'

/**
 * Issue #34.2 without Redis, on one real `svc run` tree (supervisor, gateway worker, page server
 * with page threads) and a real IdP: the sign-out the gateway serves reaches the page server
 * through the supervisor (an open page of that sign-in reruns signed out at once), and the
 * supervisor hands the list to the processes a full reload starts, so a copy of the cookie
 * stays refused after it.
 */
const TARGET = `${REPO}test/e2e/fixtures/user-app.ts:app`
const SECRET = 'sign-out-tree-bff-secret-0123456789abcdef'

describe('sign-out in one svc run tree, without Redis', () => {
  let app: AppIdp
  const dir = mkdtempSync(join(tmpdir(), 'svc-sign-out-'))
  afterAll(async () => {
    await stopAllTrees()
    await app?.idp.close()
    rmSync(dir, { recursive: true, force: true })
  }, 30_000)

  async function page(cookie: string): Promise<PageClient> {
    const c = await new PageClient(`ws://127.0.0.1:${app.port}/_stcore/stream`, { cookie: `svc_user=${cookie}` }).open()
    c.send({ type: 'hello', sessionId: null, path: '/', query: '' })
    return c
  }
  const shown = async (c: PageClient): Promise<string> => JSON.stringify((await c.render(20_000)).main)

  it('an open page signs out at once; a copy of the cookie is refused, also by the processes a full reload starts', async () => {
    app = await startAppIdp({ envPrefix: 'IDP', bffSecret: SECRET })
    const pidfile = join(dir, 'svc.pid')
    await startSvc({ target: TARGET, noPort: true, args: ['--port', String(app.port)], pidfile, env: { SVC_UI_COMMAND: undefined, ...app.env }, timeoutMs: 45_000 })

    const browser = new TestBrowser()
    const form = await browser.follow(`${app.base}/api/auth/login`)
    const back = await browser.submitLogin(form, 'frank', (url) => url.startsWith(`${app.base}/?`))
    expect(back.status).toBe(302)
    const cookie = browser.cookies(app.base).get('svc_user')!
    const open = await page(cookie)
    try {
      expect(await shown(open)).toContain('frank@idp.test')
      expect((await browser.fetch(`${app.base}/api/auth/logout`)).status).toBe(302)
      // Nobody touched the open page: it reran, signed out (gateway → supervisor → page server → its thread).
      expect(await shown(open)).toContain('You are not signed in.')
    } finally {
      await open.close()
    }

    const reload = await runSvcCli(['reload', '--scope', 'full', '--pidfile', pidfile], { cwd: dir, timeoutMs: 60_000 })
    expect(reload.code, reload.stderr).toBe(0)
    const copy = await page(cookie)
    try {
      expect(await shown(copy)).toContain('You are not signed in.')
    } finally {
      await copy.close()
    }
  }, 120_000)
})
