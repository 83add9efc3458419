import { describe, expect, it, onTestFinished } from 'vitest'
import Fastify, { type FastifyBaseLogger, type FastifyServerOptions } from 'fastify'
import { createApiRequestLogController } from '../../../src/logging/api-request-log.js'
import { requestChildLoggerFactory } from '../../../src/logging/logger.js'
import { captureLogger } from '../../helpers/observability-log-sink.js'

function apiWithLogs(enable: boolean) {
  const { sink, logger } = captureLogger('svc.api', { log_level: 'debug', url_session_query_param: 'sess' })
  const api = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: createApiRequestLogController({ enable_request_logging: enable }),
    childLoggerFactory: requestChildLoggerFactory as unknown as FastifyServerOptions['childLoggerFactory'],
    genReqId: () => 'rid-42',
  })
  api.get('/users', async () => [{ name: 'Ada' }])
  api.get('/boom', async () => {
    throw new Error('kaput')
  })
  api.get('/teapot', async (_req, reply) => reply.code(418).send({ no: 'coffee' }))
  onTestFinished(() => api.close())
  return { api, sink }
}

describe('ApiRequestLogController', () => {
  it('logs one INFO line "<METHOD> <path> -> <status>" per request on svc.api, request_id once', async () => {
    const { api, sink } = apiWithLogs(true)
    await api.inject({ method: 'GET', url: '/users?svc_sid=SECRET-A&page=2' })
    const lines = sink.records()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({
      level: 'info',
      logger: 'svc.api',
      message: 'GET /users -> 200',
      request_id: 'rid-42',
      http_method: 'GET',
      path: '/users',
      status: 200,
      duration_ms: expect.any(Number),
    })
    expect(sink.raw[0]!.match(/"request_id"/g)).toHaveLength(1)
    expect(sink.text()).not.toContain('SECRET-A')
  })

  it('logs nothing for a successful request when request logging is off', async () => {
    const { api, sink } = apiWithLogs(false)
    await api.inject({ method: 'GET', url: '/users' })
    await api.inject({ method: 'GET', url: '/teapot' })
    expect(sink.raw).toEqual([])
  })

  it('logs a 5xx with its exception even when request logging is off', async () => {
    const { api, sink } = apiWithLogs(false)
    const res = await api.inject({ method: 'GET', url: '/boom?auth_code=SECRET-B', headers: { authorization: 'Bearer SECRET-C' } })
    expect(res.statusCode).toBe(500)
    const lines = sink.records()
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ level: 'error', path: '/boom', status: 500, request_id: 'rid-42', message: 'kaput' })
    expect(lines[0]!.exception).toEqual(expect.stringContaining('Error: kaput'))
    expect(sink.text()).not.toMatch(/SECRET-[BC]/)
  })

  it('an unknown route gives a completion line with 404 and a DEBUG not-found line without the query', async () => {
    const { api, sink } = apiWithLogs(true)
    await api.inject({ method: 'GET', url: '/nope?sess=SECRET-D' })
    const lines = sink.records()
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['debug', 'Route GET:/nope not found'],
      ['info', 'GET /nope -> 404'],
    ])
    expect(sink.text()).not.toContain('SECRET-D')
  })
})
