import { afterEach, describe, expect, it } from 'vitest'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { PageClient } from '../helpers/ui-sidecar.js'
import type { ServerMessage } from '../../src/ui/wire/protocol.js'

/**
 * Real `svc run` / `svc dev` trees with the bundled page server: what a visitor of a failing page
 * sees over the page WebSocket (through the gateway), what the server logs, and the HTTP status of
 * page and non-page paths.
 */
const TARGET = `${REPO}test/fixtures/app-page-errors.ts:app`
const FIXTURE_FILE = 'test/fixtures/app-page-errors.ts'

type Render = Extract<ServerMessage, { type: 'render' }>

async function visit(svc: SvcTree, path: string, requestId: string, root = ''): Promise<Render> {
  const ws = `${svc.url.replace('http:', 'ws:')}${root}/_stcore/stream`
  const client = await new PageClient(ws, { 'x-request-id': requestId }).open()
  try {
    client.send({ type: 'hello', sessionId: null, path: `${root}${path}`, query: '' })
    return await client.render(10_000)
  } finally {
    await client.close()
  }
}

function exceptionOf(render: Render): Record<string, unknown> {
  const node = render.main.find((n) => n.type === 'exception')
  expect(node, JSON.stringify(render.main)).toBeDefined()
  return node!.props
}

/** The sidecar's JSON log line for the page exception of `requestId`. */
async function errorLine(svc: SvcTree, requestId: string): Promise<Record<string, unknown>> {
  const line = await svc.waitForLine('stdout', new RegExp(`"request_id":"${requestId}".*ui page exception|ui page exception.*"request_id":"${requestId}"`))
  return JSON.parse(line) as Record<string, unknown>
}

describe('page errors under svc run and svc dev', () => {
  afterEach(stopAllTrees, 30_000)

  it('svc run: the visitor sees a generic message and the request ID; the log has the stack at error', async () => {
    const svc = await startSvc({ target: TARGET, env: { SVC_UI_COMMAND: undefined, SVC_LOG_FORMAT: 'json' } })
    const render = await visit(svc, '/boom', 'pe-run-1')
    const shown = exceptionOf(render)
    expect(shown).toEqual({ name: 'Error', message: 'This page hit an error.', stack: null, hidden: true, requestId: 'pe-run-1' })
    const wire = JSON.stringify(render)
    for (const leak of ['SECRET-DETAIL', 'TypeError', REPO, FIXTURE_FILE, 'loadOrders', 'node_modules']) expect(wire).not.toContain(leak)

    const logged = await errorLine(svc, 'pe-run-1')
    expect(logged).toMatchObject({ level: 'error', logger: 'svc.ui', page: '/boom', request_id: 'pe-run-1' })
    expect(String(logged.exception)).toContain('SECRET-DETAIL')
    expect(String(logged.exception)).toContain(FIXTURE_FILE)

    // st.exception(err) called by the page follows the same rule, and the page goes on.
    const explicit = await visit(svc, '/shown', 'pe-run-2')
    expect(exceptionOf(explicit)).toMatchObject({ hidden: true, stack: null, requestId: 'pe-run-2' })
    expect(JSON.stringify(explicit)).not.toContain('SECRET-DETAIL')
    expect(explicit.main.some((n) => n.type === 'text' && n.props.text === 'still here')).toBe(true)
    expect((await errorLine(svc, 'pe-run-2')).level).toBe('error')

    // A credential the error quotes is redacted in the log line.
    await visit(svc, '/leak', 'pe-run-3')
    const leaked = await errorLine(svc, 'pe-run-3')
    expect(JSON.stringify(leaked)).not.toContain('hunter2')
    expect(String(leaked.exception)).toContain('connect failed: postgres://orders:<redacted>@db/orders?sslmode=require')
  }, 60_000)

  it('svc dev: message and stack are shown; an unknown page path is 404 under a root path too', async () => {
    const svc = await startSvc({ command: 'dev', target: TARGET, args: ['--root-path', '/tools'], env: { SVC_UI_COMMAND: undefined, SVC_LOG_FORMAT: 'json' } })
    const shown = exceptionOf(await visit(svc, '/boom', 'pe-dev-1', '/tools'))
    expect(shown).toMatchObject({ name: 'TypeError', message: 'orders table is locked (SECRET-DETAIL)', hidden: false, requestId: 'pe-dev-1' })
    expect(String(shown.stack)).toContain(FIXTURE_FILE)
    expect((await errorLine(svc, 'pe-dev-1')).level).toBe('error')
    // Shown details are redacted as the log line is.
    expect(exceptionOf(await visit(svc, '/leak', 'pe-dev-2', '/tools'))).toMatchObject({ message: 'connect failed: postgres://orders:<redacted>@db/orders?sslmode=require' })

    const status = async (path: string) => {
      const res = await fetch(`${svc.url}${path}`)
      const body = await res.text()
      return [res.status, res.headers.get('content-type'), body.includes('id="svc-config"')] as const
    }
    for (const ok of ['/tools', '/tools/', '/tools/boom', '/tools/boom/', '/tools/shown?x=1', '/tools/?page=Boom', '/tools/nope?page=boom']) {
      expect((await status(ok))[0], ok).toBe(200)
    }
    for (const missing of ['/tools/nope', '/tools/boom/extra', '/tools/nope/']) {
      const [code, type, isShell] = await status(missing)
      expect([code, type, isShell], missing).toEqual([404, 'text/html; charset=utf-8', true])
    }
    const head = await fetch(`${svc.url}/tools/nope`, { method: 'HEAD' })
    expect(head.status).toBe(404)
  }, 60_000)

  it('SVC_SHOW_ERROR_DETAILS=1 shows details under svc run; the app option turns them off under svc dev', async () => {
    const run = await startSvc({ target: TARGET, env: { SVC_UI_COMMAND: undefined, SVC_SHOW_ERROR_DETAILS: '1' } })
    expect(exceptionOf(await visit(run, '/boom', 'pe-env-1'))).toMatchObject({ hidden: false, message: 'orders table is locked (SECRET-DETAIL)' })
    const status = await fetch(`${run.url}/nope`)
    expect(status.status).toBe(404)
    await status.text()
    expect((await fetch(`${run.url}/`)).status).toBe(200)

    const dev = await startSvc({ command: 'dev', target: TARGET, env: { SVC_UI_COMMAND: undefined, TEST_SHOW_ERROR_DETAILS: '0' } })
    const hidden = await visit(dev, '/boom', 'pe-opt-1')
    expect(exceptionOf(hidden)).toMatchObject({ hidden: true, stack: null })
    expect(JSON.stringify(hidden)).not.toContain('SECRET-DETAIL')
  }, 60_000)
})
