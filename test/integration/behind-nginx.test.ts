import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChildProcess } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { on, once } from 'node:events'
import { randomUUID } from 'node:crypto'
import { request } from 'undici'
import { WebSocket } from 'ws'
import { startSvc, stopAllTrees, REPO, type SvcTree } from '../helpers/svc-process.js'
import { freePort } from '../helpers/ui-sidecar.js'
import { NGINX, runNginx, stopNginx } from '../helpers/nginx.js'

/**
 * A real nginx in front, serving the app under /tools with X-Forwarded-* headers (a path-proxy
 * deployment): API, docs redirect, the page shell, its assets and the page WebSocket all work.
 */

describe.skipIf(!existsSync(NGINX))('behind nginx under a sub-path', () => {
  let svc: SvcTree
  let nginx: ChildProcess
  let base: string
  const dir = `${REPO}test/.tmp/nginx-${randomUUID()}`

  beforeAll(async () => {
    svc = await startSvc({
      target: `${REPO}examples/hello/app.ts:app`,
      args: ['--root-path', '/tools', '--proxy-headers'],
      env: { SVC_UI_COMMAND: '', SVC_ENABLE_SECURITY_HEADERS: '1' },
    })
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    nginx = await runNginx(
      dir,
      `map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  server {
    listen 127.0.0.1:${port};
    location /tools/ {
      proxy_pass http://127.0.0.1:${svc.port};
      proxy_http_version 1.1;
      proxy_set_header Host $host:$server_port;
      proxy_set_header X-Forwarded-Proto https;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Prefix /tools;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_buffering off;
    }
  }`,
      `${base}/tools/api/healthz`,
    )
  })

  afterAll(async () => {
    await stopNginx(nginx)
    rmSync(dir, { recursive: true, force: true })
    await stopAllTrees()
  })

  it('serves the API, readiness and docs under the sub-path', async () => {
    const ready = await request(`${base}/tools/api/readyz`)
    expect(ready.statusCode).toBe(200)
    expect(await ready.body.json()).toEqual({ status: 'ready', ui: 'ok' })
    const doc = await request(`${base}/tools/api/openapi.json`)
    expect(((await doc.body.json()) as { servers: unknown }).servers).toEqual([{ url: '/tools/api' }])
    const docs = await request(`${base}/tools/docs`)
    await docs.body.dump()
    expect(docs.statusCode).toBe(307)
    expect(docs.headers.location).toBe('/tools/api/docs')
  })

  it('trusts the proxy: HSTS because the edge said https', async () => {
    const res = await request(`${base}/tools/api/healthz`)
    await res.body.dump()
    expect(res.headers['strict-transport-security']).toMatch(/max-age=/)
    expect(res.headers['x-content-type-options']).toBe('nosniff')
  })

  it('serves the page shell and its assets with the base path', async () => {
    const html = await request(`${base}/tools/`)
    const text = await html.body.text()
    expect(html.statusCode).toBe(200)
    expect(text).toContain('"basePath":"/tools"')
    const js = await request(`${base}/tools/_stcore/static/app.js`)
    await js.body.dump()
    expect(js.statusCode).toBe(200)
  })

  it('carries the page WebSocket through nginx and the gateway', async () => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/tools/_stcore/stream`)
    await once(ws, 'open')
    ws.send(JSON.stringify({ v: 1, type: 'hello', sessionId: null, path: '/tools/', query: '' }))
    const types: string[] = []
    for await (const [data] of on(ws, 'message')) {
      const msg = JSON.parse(String(data)) as { type: string; partial?: boolean }
      types.push(msg.type)
      if (msg.type === 'render' && !msg.partial) break
    }
    expect(types).toContain('session')
    ws.close()
  })
})
