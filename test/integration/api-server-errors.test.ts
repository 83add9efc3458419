import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'

/**
 * An unexpected API error (5xx) is private under `svc run` and `svc workbench` (a generic message
 * and the request ID; the message and stack in the log at error), shown in full under `svc dev`;
 * `show_error_details` decides over the mode; 4xx answers keep their messages.
 */
const APP = `${REPO}test/fixtures/app-api-errors.ts:app`
const GENERIC = /^The server hit an unexpected error; the request ID identifies it in the server log\.$/

async function call(svc: SvcTree, path: string, init: { method?: 'GET' | 'POST'; body?: unknown } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const rid = `rid-${path.slice(1)}-${Math.random().toString(36).slice(2, 8)}`
  const res = await request(`${svc.url}/api${path}`, {
    method: init.method ?? 'GET',
    headers: { 'x-request-id': rid, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  })
  const body = (await res.body.json()) as Record<string, unknown>
  expect(res.headers['x-request-id']).toBe(rid)
  if (res.statusCode >= 500) expect(body.request_id).toBe(rid)
  return { status: res.statusCode, body }
}

function logRecords(svc: SvcTree): Array<Record<string, unknown>> {
  return svc.stdout.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>)
}

describe('API server errors in a real tree', () => {
  afterEach(stopAllTrees)

  for (const command of ['run', 'workbench'] as const) {
    it(`svc ${command}: 500 with a generic message and the request ID; the log has the message and stack at error`, async () => {
      const svc = await startSvc({ command, target: APP, args: ['--log-format', 'json'] })
      const res = await call(svc, '/secret')
      expect(res.status).toBe(500)
      expect(res.body).toEqual({ error: 'internal', message: expect.stringMatching(GENERIC), request_id: res.body.request_id })
      expect(JSON.stringify(res.body)).not.toContain('hunter2')
      // The message and stack are logged with the credential they quote redacted.
      await svc.waitForLine('stdout', /"message":"api secret: password=<redacted>"/)
      const record = logRecords(svc).find((r) => r.message === 'api secret: password=<redacted>')!
      expect(record).toMatchObject({ level: 'error', logger: 'svc.api', request_id: res.body.request_id, status: 500, path: '/secret' })
      expect(record.exception).toEqual(expect.stringMatching(/^Error: api secret: password=<redacted>\n\s+at /))
      expect(svc.stdout.join('\n')).not.toContain('hunter2')
      // 4xx keep their messages.
      const mine = await call(svc, '/mine')
      expect(mine).toMatchObject({ status: 404, body: { message: 'no order 7' } })
      const invalid = await call(svc, '/validated', { method: 'POST', body: {} })
      expect(invalid.status).toBe(400)
      expect(invalid.body.message).toMatch(/must have required property 'name'/)
    })
  }

  it('svc dev: the 500 answer shows the message and the stack, the credential they quote redacted', async () => {
    const svc = await startSvc({ command: 'dev', target: APP, args: ['--log-format', 'json'] })
    const res = await call(svc, '/secret')
    expect(res.status).toBe(500)
    expect(res.body).toMatchObject({ error: 'internal', message: 'api secret: password=<redacted>' })
    expect(res.body.stack).toEqual(expect.stringMatching(/^Error: api secret: password=<redacted>\n\s+at /))
    expect(JSON.stringify(res.body)).not.toContain('hunter2')
  })

  it('show_error_details wins over the mode: false under svc dev, true under svc run', async () => {
    const dev = await startSvc({ command: 'dev', target: APP, args: ['--log-format', 'json'], env: { SVC_SHOW_ERROR_DETAILS: 'false' } })
    const hidden = await call(dev, '/secret')
    expect(hidden.body.message).toMatch(GENERIC)
    expect(hidden.body.stack).toBeUndefined()
    const run = await startSvc({ command: 'run', target: APP, args: ['--log-format', 'json'], env: { SVC_SHOW_ERROR_DETAILS: 'true' } })
    expect((await call(run, '/secret')).body.message).toBe('api secret: password=<redacted>')
    // Two trees start one after the other (27 s on a 2-core machine at load 11): the wait is start-up.
  }, 60_000)
})
