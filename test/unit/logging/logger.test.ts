import { describe, expect, it } from 'vitest'
import { childLogger, requestChildLoggerFactory } from '../../../src/logging/logger.js'
import { runWithRequestId } from '../../../src/logging/context.js'
import { Svc } from '../../../src/app.js'
import { captureLogger } from '../../helpers/observability-log-sink.js'

describe('childLogger', () => {
  it('names a logger of the tree once, even when given a named child as parent', () => {
    const { sink, root, logger } = captureLogger('svc')
    childLogger(logger, 'svc.gateway').info('from a child of svc')
    childLogger(root, 'svc.api', { worker: 2 }).info('from the root')
    for (const line of sink.raw) expect(line.match(/"logger"/g)).toHaveLength(1)
    expect(sink.records().map((r) => [r.logger, r.worker])).toEqual([
      ['svc.gateway', undefined],
      ['svc.api', 2],
    ])
  })
})

describe('requestChildLoggerFactory', () => {
  it('binds the request id once with no options, and keeps a route level and extra bindings', () => {
    const { sink, logger } = captureLogger('svc.api')
    const plain = requestChildLoggerFactory(logger, { request_id: 'r-1' }, {})
    const routed = requestChildLoggerFactory(logger, { request_id: 'r-2', extra: 'x' }, { level: 'debug' })
    runWithRequestId('ctx', () => {
      plain.info('plain')
      plain.debug('below the level')
      routed.debug('route level')
    })
    for (const line of sink.raw) expect(line.match(/"request_id"/g)).toHaveLength(1)
    expect(sink.records().map((r) => [r.message, r.request_id, r.extra])).toEqual([
      ['plain', 'r-1', undefined],
      ['route level', 'r-2', 'x'],
    ])
  })
})

describe('the app API', () => {
  it('answers with its request id in X-Request-ID, once, also without the gateway', async () => {
    const app = new Svc({ title: 't' })
    app.api.get('/x', async (request, reply) => {
      reply.header('x-other', '1')
      return { id: request.id }
    })
    try {
      const res = await app.api.inject({ method: 'GET', url: '/x' })
      expect(res.headers['x-request-id']).toBe(res.json().id)
      expect(res.raw.res.getHeaderNames().filter((n) => n === 'x-request-id')).toHaveLength(1)
    } finally {
      await app.api.close()
    }
  })
})
