import { describe, expect, it } from 'vitest'
import type { PageApp } from '../../../src/ui/page-app.js'
import type { SessionHost } from '../../../src/ui/server/local-sessions.js'
import { captureLogger } from '../../helpers/observability-log-sink.js'
import { startUiServer } from '../../helpers/page-server-parts.js'

/**
 * Issue #27.1: a page-server handler that throws answers 500 JSON and the server goes on. The
 * bug is simulated by an app whose title cannot be read (the HTML shell needs it).
 */
describe('page server request handler', () => {
  it('a throw answers 500 JSON with the request ID; health and the next page keep answering', async () => {
    const { sink, logger } = captureLogger('svc.ui')
    let broken = true
    const settings = {
      get title(): string {
        if (broken) throw new Error('secret detail of a bug')
        return 'Fixed'
      },
      debug: false,
      theme: {},
    } as unknown as PageApp['settings']
    const sessions: SessionHost = { size: 0, open: () => Promise.reject(new Error('no sessions here')), upload: () => Promise.reject(new Error('no uploads here')), close: async () => {}, destroy: async () => {} }
    const { base } = await startUiServer(settings, sessions, logger)

    const failed = await fetch(`${base}/reports?svc_sid=secret-id`, { headers: { 'x-request-id': 'ui-fail-1', accept: 'text/html' } })
    expect(failed.status).toBe(500)
    expect(failed.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(failed.headers.get('x-request-id')).toBe('ui-fail-1')
    expect(await failed.json()).toEqual({ error: 'internal', message: 'the page server failed on this request; its log has the details under this request ID', request_id: 'ui-fail-1' })
    const logged = sink.records().filter((r) => r.message === 'ui request failed')
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatchObject({ level: 'error', request_id: 'ui-fail-1', path: '/reports' })
    expect(JSON.stringify(logged)).not.toContain('secret-id')

    expect(await (await fetch(`${base}/_stcore/health`)).text()).toBe('ok')
    broken = false
    expect((await fetch(`${base}/`)).status).toBe(200)
  })
})
