import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SvcTree } from '../helpers/observability-tree.js'

/** `svc run --debug`: the [svc-debug] line, the split line, and the redacted debug snapshot. */
let tree: SvcTree

beforeAll(async () => {
  tree = new SvcTree(['--debug'], { SVC_JWT_HS256_SECRET: 'SECRET-DEBUG-HS256' })
  await tree.started()
}, 40_000)

afterAll(() => tree?.stop(), 20_000)

describe('debug mode over a real svc run tree', () => {
  it('prints the [svc-debug] line and logs access at INFO with a DEBUG split line', async () => {
    expect(tree.output).toMatch(/\[svc-debug\] internal_api_base=http:\/\/127\.0\.0\.1:\d+\/api api_mount_path=\/api/)
    const id = 'obs-debug-1'
    await fetch(`${tree.base}/api/hello`, { headers: { 'x-request-id': id } })
    await tree.waitFor('the access line', () => (tree.linesFor(id, 'svc.gateway').some((l) => l.level === 'info') ? true : undefined))
    const gateway = tree.linesFor(id, 'svc.gateway')
    expect(gateway.map((l) => l.level)).toEqual(['debug', 'info'])
    expect(gateway[0]!.message).toMatch(/^svc debug split path_in=\/api\/hello mount=\/api api_path=\/hello ui_path=-$/)
  })

  it('serves the snapshot with secrets redacted and the recent dispatches', async () => {
    await fetch(`${tree.base}/page-x`, { headers: { 'x-request-id': 'obs-debug-2' } })
    const res = await fetch(`${tree.base}/__svc/debug`)
    expect(res.status).toBe(200)
    const text = await res.text()
    expect(text).not.toContain('SECRET-DEBUG-HS256')
    const body = JSON.parse(text)
    expect(body).toMatchObject({ svc_debug: true, gateway: { api_mount_path: '/api', root_path: '' }, ui_upstream: 'set' })
    expect(body.settings.jwt_hs256_secret).toBe('[REDACTED]')
    expect(body.recent_dispatches).toContainEqual({ request_id: 'obs-debug-2', dispatch: 'ui', path: '/page-x' })
    expect(tree.output).not.toContain('SECRET-DEBUG-HS256')
  })
})
