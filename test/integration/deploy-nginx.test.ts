import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFile, type ChildProcess } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { on, once } from 'node:events'
import { randomUUID } from 'node:crypto'
import { request } from 'undici'
import { WebSocket } from 'ws'
import { startSvc, stopAllTrees, REPO, type SvcTree } from '../helpers/svc-process.js'
import { freePort } from '../helpers/ui-sidecar.js'
import { cleanEnv } from '../helpers/cli-run.js'
import { NGINX, startNginx, stopNginx } from '../helpers/nginx.js'

/**
 * deploy/nginx/*.conf run for real: nginx (Debian) with the shipped configs, templated only to
 * loopback ports, in front of real svc trees. Root hosting with two replicas (sticky cookie hash,
 * failover, forwarded headers, the page WebSocket) and sub-path hosting under /tools.
 */
const APP = `${REPO}test/fixtures/app-replica.ts:app`

interface Whoami {
  replica: string
  ip: string
  host: string
  protocol: string
}

async function whoami(url: string, cookie: string, headers: Record<string, string> = {}): Promise<Whoami> {
  const res = await request(url, { headers: { cookie: `svc_route=${cookie}`, ...headers } })
  expect(res.statusCode).toBe(200)
  return (await res.body.json()) as Whoami
}

/** Open the page WebSocket, say hello, return the text of the first full render. */
async function renderPage(url: string, path: string, cookie: string): Promise<string> {
  const ws = new WebSocket(url, { headers: { cookie: `svc_route=${cookie}` } })
  await once(ws, 'open')
  ws.send(JSON.stringify({ v: 1, type: 'hello', sessionId: null, path, query: '' }))
  let text = ''
  for await (const [data] of on(ws, 'message')) {
    const msg = JSON.parse(String(data)) as { type: string; partial?: boolean }
    if (msg.type === 'render' && !msg.partial) {
      text = String(data)
      break
    }
  }
  ws.close()
  return text
}

function healthcheck(env: Record<string, string>): Promise<number | null> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [`${REPO}deploy/healthcheck.mjs`], { env: cleanEnv(env) })
    child.once('exit', (code) => resolve(code))
  })
}

describe.skipIf(!existsSync(NGINX))('deploy/nginx/svc-root.conf: two replicas at the root', () => {
  const dir = `${REPO}test/.tmp/deploy-nginx-${randomUUID()}`
  let a: SvcTree
  let b: SvcTree
  let nginx: ChildProcess | undefined
  let base: string

  beforeAll(async () => {
    const replica = (name: string): Promise<SvcTree> => startSvc({ target: APP, args: ['--proxy-headers'], env: { SVC_UI_COMMAND: '', REPLICA: name } })
    ;[a, b] = await Promise.all([replica('A'), replica('B')])
    ;({ proc: nginx, base } = await startNginx(dir, 'svc-root.conf', [a.port, b.port]))
  })

  afterAll(async () => {
    await stopNginx(nginx)
    rmSync(dir, { recursive: true, force: true })
    await stopAllTrees()
  })

  it('a new browser gets the svc_route cookie and stays on one replica with it', async () => {
    const res = await request(`${base}/`)
    expect(res.statusCode).toBe(200)
    expect(await res.body.text()).toContain('"basePath":""')
    const set = String(res.headers['set-cookie'])
    const m = /^svc_route=([0-9a-f]{32}); Path=\/; HttpOnly; SameSite=Lax$/.exec(set)
    expect(m, set).not.toBeNull()
    const seen = new Set<string>()
    for (let i = 0; i < 6; i++) seen.add((await whoami(`${base}/api/whoami`, m![1]!)).replica)
    expect(seen.size).toBe(1)
    const again = await request(`${base}/`, { headers: { cookie: `svc_route=${m![1]}` } })
    await again.body.dump()
    expect(again.headers['set-cookie']).toBeUndefined()
  })

  it('different browsers spread over both replicas', async () => {
    const seen = new Set<string>()
    for (let i = 0; i < 24 && seen.size < 2; i++) seen.add((await whoami(`${base}/api/whoami`, randomUUID())).replica)
    expect([...seen].sort()).toEqual(['A', 'B'])
  })

  it('forwards X-Forwarded-For/Host/Proto, which svc trusts with --proxy-headers', async () => {
    const me = await whoami(`${base}/api/whoami`, 'fwd', { 'x-forwarded-for': '203.0.113.9' })
    expect(me.ip).toBe('203.0.113.9')
    expect(me.host).toBe(new URL(base).host)
    expect(me.protocol).toBe('http')
  })

  it('carries the page WebSocket to the replica the cookie names', async () => {
    const cookie = randomUUID()
    const { replica } = await whoami(`${base}/api/whoami`, cookie)
    const render = await renderPage(`${base.replace('http', 'ws')}/_stcore/stream`, '/', cookie)
    expect(render).toContain(`Replica ${replica}`)
  })

  it('the container healthcheck script passes on a replica, fails on a closed port', async () => {
    expect(await healthcheck({ SVC_GATEWAY_PORT: String(a.port) })).toBe(0)
    expect(await healthcheck({ SVC_GATEWAY_PORT: String(await freePort()) })).toBe(1)
  })

  it('a replica that goes away: its browsers fail over to the other one', async () => {
    let cookie = ''
    for (let i = 0; i < 40 && cookie === ''; i++) {
      const c = randomUUID()
      if ((await whoami(`${base}/api/whoami`, c)).replica === 'A') cookie = c
    }
    expect(cookie).not.toBe('')
    await a.stop()
    for (let i = 0; i < 3; i++) expect((await whoami(`${base}/api/whoami`, cookie)).replica).toBe('B')
  })
})

describe.skipIf(!existsSync(NGINX))('deploy/nginx/svc-subpath.conf: under /tools', () => {
  const dir = `${REPO}test/.tmp/deploy-nginx-${randomUUID()}`
  let svc: SvcTree
  let nginx: ChildProcess | undefined
  let base: string

  beforeAll(async () => {
    svc = await startSvc({ target: APP, args: ['--root-path', '/tools', '--proxy-headers'], env: { SVC_UI_COMMAND: '', REPLICA: 'T' } })
    ;({ proc: nginx, base } = await startNginx(dir, 'svc-subpath.conf', [svc.port, svc.port]))
  })

  afterAll(async () => {
    await stopNginx(nginx)
    rmSync(dir, { recursive: true, force: true })
    await stopAllTrees()
  })

  it('redirects /tools to /tools/ and serves the shell with the base path and a cookie scoped to it', async () => {
    const bare = await request(`${base}/tools`)
    await bare.body.dump()
    expect(bare.statusCode).toBe(301)
    expect(bare.headers.location).toMatch(/\/tools\/$/)
    const res = await request(`${base}/tools/`)
    expect(res.statusCode).toBe(200)
    expect(await res.body.text()).toContain('"basePath":"/tools"')
    expect(String(res.headers['set-cookie'])).toMatch(/^svc_route=[0-9a-f]{32}; Path=\/tools\/; HttpOnly; SameSite=Lax$/)
  })

  it('serves the API, the docs redirect and readiness under the prefix', async () => {
    expect(await whoami(`${base}/tools/api/whoami`, 'x')).toMatchObject({ replica: 'T', host: new URL(base).host })
    const docs = await request(`${base}/tools/docs`)
    await docs.body.dump()
    expect(docs.statusCode).toBe(307)
    expect(docs.headers.location).toBe('/tools/api/docs')
    const ready = await request(`${base}/tools/api/readyz`)
    expect(ready.statusCode).toBe(200)
    await ready.body.dump()
    const outside = await request(`${base}/api/whoami`)
    await outside.body.dump()
    expect(outside.statusCode).toBe(404)
  })

  it('carries the page WebSocket under the prefix', async () => {
    expect(await renderPage(`${base.replace('http', 'ws')}/tools/_stcore/stream`, '/tools/', 'y')).toContain('Replica T')
  })

  it('the container healthcheck script follows SVC_ROOT_PATH', async () => {
    expect(await healthcheck({ SVC_GATEWAY_PORT: String(svc.port), SVC_ROOT_PATH: '/tools' })).toBe(0)
  })
})
