import { describe, expect, it } from 'vitest'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { createAccessLogWriter } from '../../../gateway/observability/access-log.js'
import { jsonLogOptions } from '../../../src/logging/logger.js'
import { GATEWAY_ACCESS_LOG_FIELDS } from '../../../src/logging/index.js'

function capture() {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean))
      cb()
    },
  })
  return { lines, logger: pino(jsonLogOptions('info'), stream) }
}

describe('hand-written access-log line', () => {
  it('is one JSON object with the base fields, every access-log field, status and duration', () => {
    const { lines, logger } = capture()
    const write = createAccessLogWriter(logger.child({ logger: 'svc.gateway' }), 'info')
    write({ requestId: 'rid-1', dispatch: 'ui', methodKind: 'GET', methodOrType: 'GET', path: '/a"b\\c', query: 'x="1"' }, 'x="1"', 200, 1.5, undefined)
    const rec = JSON.parse(lines[0]!)
    expect(Object.keys(rec).slice(0, 3)).toEqual(['level', 'time', 'logger'])
    expect(rec).toMatchObject({ level: 'info', logger: 'svc.gateway', status: 200, duration_ms: 1.5 })
    for (const f of GATEWAY_ACCESS_LOG_FIELDS) expect(rec).toHaveProperty(f)
    expect(rec.path).toBe('/a"b\\c')
    expect(rec.query).toBe('x="1"')
    expect(rec.message).toBe('gateway GET /a"b\\c request_id=rid-1')
    expect(new Date(rec.time).toISOString()).toBe(rec.time)
  })

  it('matches what pino itself would write for the same record', () => {
    const { lines, logger } = capture()
    const gw = logger.child({ logger: 'svc.gateway' })
    createAccessLogWriter(gw, 'info')({ requestId: 'r2', dispatch: 'api', methodKind: 'WEBSOCKET', methodOrType: 'websocket', path: '/ws', query: '' }, '', 101, 3, 'ECONNRESET')
    gw.info(
      { request_id: 'r2', svc_dispatch: 'api', http_method_or_type: 'websocket', path: '/ws', query: '', status: 101, duration_ms: 3, error: 'ECONNRESET' },
      'gateway websocket /ws request_id=r2',
    )
    const [mine, theirs] = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    delete mine!.time
    delete theirs!.time
    expect(mine).toEqual(theirs)
  })
})
