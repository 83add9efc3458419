import { describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { JSON_LOG_BASE_FIELDS } from '../../../src/logging/fields.js'
import { JsonLogFormatter, bindRequestId, formatException } from '../../../src/logging/json-formatter.js'
import { runWithRequestId } from '../../../src/logging/context.js'
import { LogSink, captureLogger } from '../../helpers/observability-log-sink.js'

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

describe('JsonLogFormatter', () => {
  it('writes one object per line with the base fields, level by name and ISO time', () => {
    const { sink, logger } = captureLogger('svc.test')
    logger.info('hello')
    logger.warn('second')
    expect(sink.raw).toHaveLength(2)
    const [a, b] = sink.records()
    expect(Object.keys(a!)).toEqual(expect.arrayContaining([...JSON_LOG_BASE_FIELDS]))
    expect(a).toEqual({ level: 'info', time: expect.stringMatching(ISO), logger: 'svc.test', message: 'hello' })
    expect(b!.level).toBe('warn')
  })

  it('adds request_id from the request context, and every extra field', () => {
    const { sink, logger } = captureLogger('svc.api')
    runWithRequestId('rid-1', () => logger.info({ svc_dispatch: 'api', path: '/api/x', n: 3, ok: true }, 'with extras'))
    logger.info('outside')
    const [inside, outside] = sink.records()
    expect(inside).toMatchObject({ request_id: 'rid-1', svc_dispatch: 'api', path: '/api/x', n: 3, ok: true, message: 'with extras' })
    expect(outside).not.toHaveProperty('request_id')
  })

  it('an explicit request_id field wins over the context, and appears once', () => {
    const { sink, logger } = captureLogger()
    runWithRequestId('ctx', () => logger.info({ request_id: 'explicit' }, 'm'))
    expect(sink.raw[0]!.match(/"request_id"/g)).toHaveLength(1)
    expect(sink.records()[0]!.request_id).toBe('explicit')
  })

  it('a logger bound with bindRequestId carries its id once, even inside another context', () => {
    const { sink, logger } = captureLogger()
    const bound = bindRequestId(logger, 'bound-1')
    runWithRequestId('other', () => bound.info('m'))
    bound.child({ x: 1 }).info('grandchild')
    for (const line of sink.raw) expect(line.match(/"request_id"/g)).toHaveLength(1)
    expect(sink.records().map((r) => r.request_id)).toEqual(['bound-1', 'bound-1'])
  })

  it("Fastify's plain per-request child ({ request_id }) carries its id once inside the request context", () => {
    const { sink, logger } = captureLogger()
    const requestLog = logger.child({ request_id: 'req-7' })
    runWithRequestId('req-7', () => {
      requestLog.info('from request.log')
      requestLog.child({ step: 2 }).info('from a child of it')
      logger.info('from the app logger')
    })
    for (const line of sink.raw) expect(line.match(/"request_id"/g)).toHaveLength(1)
    expect(sink.records().map((r) => r.request_id)).toEqual(['req-7', 'req-7', 'req-7'])
  })

  it('logs errors as an exception field holding the stack and causes', () => {
    const { sink, logger } = captureLogger()
    const err = new Error('outer', { cause: new TypeError('inner') })
    logger.error({ err }, 'failed')
    logger.error(new RangeError('direct'))
    const [a, b] = sink.records()
    expect(a).not.toHaveProperty('err')
    expect(a!.exception).toEqual(expect.stringContaining('Error: outer'))
    expect(a!.exception).toEqual(expect.stringContaining('Caused by: TypeError: inner'))
    expect(a!.exception).toEqual(expect.stringContaining('json-formatter.test.ts'))
    expect(b).toMatchObject({ message: 'direct', exception: expect.stringContaining('RangeError: direct') })
  })

  it('redacts credentials quoted in an exception message and stack', () => {
    const { sink, logger } = captureLogger()
    const err = new Error('connect failed: postgres://user:hunter2@db/x', { cause: new Error('sent Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig and api_key=k-123') })
    logger.error({ err }, 'failed')
    const line = sink.raw[0]!
    for (const secret of ['hunter2', 'eyJhbGciOiJIUzI1NiJ9', 'k-123']) expect(line).not.toContain(secret)
    expect(sink.records()[0]!.exception).toEqual(expect.stringContaining('connect failed: postgres://user:<redacted>@db/x'))
    expect(sink.records()[0]!.exception).toEqual(expect.stringContaining('Caused by: Error: sent Bearer <redacted> and api_key=<redacted>'))
  })

  it('keeps non-ASCII text as is', () => {
    const { sink, logger } = captureLogger()
    logger.info({ city: 'Zürich' }, 'héllo ✓')
    expect(sink.raw[0]).toContain('héllo ✓')
    expect(sink.records()[0]!.city).toBe('Zürich')
  })

  it('honours the level threshold', () => {
    const sink = new LogSink()
    const logger = pino(new JsonLogFormatter({ level: 'warn' }).options, sink)
    logger.info('dropped')
    logger.error('kept')
    expect(sink.records().map((r) => r.message)).toEqual(['kept'])
  })
})

describe('secrets never reach a line', () => {
  const SECRETS = ['tok-SECRET-1', 'cookie-SECRET-2', 'sid-SECRET-3', 'code-SECRET-4', 'sess-SECRET-5', 'pw-SECRET-6']

  it('censors credential headers, token keys and query secrets wherever svc logs them', () => {
    const { sink, logger } = captureLogger('svc.api', { url_session_query_param: 'sess' })
    logger.info({ headers: { authorization: `Bearer ${SECRETS[0]}`, cookie: SECRETS[1], accept: 'x' } }, 'headers map')
    logger.info({ req: { method: 'GET', url: `/api/x?svc_sid=${SECRETS[2]}&auth_code=${SECRETS[3]}&sess=${SECRETS[4]}`, headers: { authorization: `Bearer ${SECRETS[0]}` } } }, 'req')
    logger.info({ res: { statusCode: 200, headers: { 'set-cookie': SECRETS[1] } } }, 'res')
    logger.info({ authorization: `Bearer ${SECRETS[0]}`, cookie: SECRETS[1], password: SECRETS[5], svc_sid: SECRETS[2], auth_code: SECRETS[3] }, 'top-level')
    logger.info({ upstream: { headers: { authorization: `Bearer ${SECRETS[0]}` } } }, 'nested')
    const text = sink.text()
    for (const s of SECRETS) expect(text).not.toContain(s)
    const [headers, req, , top] = sink.records()
    expect(headers!.headers).toEqual({ authorization: 'Bearer <redacted>', cookie: '<redacted>', accept: 'x' })
    expect(req!.req).toEqual({ method: 'GET', url: '/api/x?svc_sid=<redacted>&auth_code=<redacted>&sess=<redacted>' })
    expect(top!.authorization).toBe('Bearer <redacted>')
  })
})

describe('formatException', () => {
  it('formats non-errors as strings', () => {
    expect(formatException('boom')).toBe('boom')
  })
})

describe('JsonLogFormatter URL redaction', () => {
  it('redacts the query of url and upstream_url fields and of URLs quoted in the message', () => {
    const { sink, logger } = captureLogger('svc.gateway', { redact_query_params: ['otp'] })
    const url = 'http://127.0.0.1:8501/cb?code=abc&state=xyz&otp=9&page=2'
    logger.warn({ err: new Error('x'), upstream_url: url, url: '/x?access_token=t' }, `gateway upstream HTTP error for ${url}: ECONNREFUSED`)
    logger.info('plain? message')
    const [a, b] = sink.records()
    const redacted = 'http://127.0.0.1:8501/cb?code=<redacted>&state=<redacted>&otp=<redacted>&page=2'
    expect(a).toMatchObject({ upstream_url: redacted, url: '/x?access_token=<redacted>', message: `gateway upstream HTTP error for ${redacted}: ECONNREFUSED` })
    expect(b!.message).toBe('plain? message')
    expect(sink.raw.join('')).not.toMatch(/abc|xyz|otp=9|=t"/)
  })

  it('redacts credentials a message quotes, as the exception that carries the same text', () => {
    const { sink, logger } = captureLogger('svc.api')
    const err = new Error('connect failed: postgres://app:hunter2@db/orders, api_key=k9')
    logger.error({ err }, err.message)
    logger.info('3 rows = ok, sent to a@b basically')
    const [a, b] = sink.records()
    expect(a!.message).toBe('connect failed: postgres://app:<redacted>@db/orders, api_key=<redacted>')
    expect(a!.exception).toMatch(/^Error: connect failed: postgres:\/\/app:<redacted>@db\/orders, api_key=<redacted>\n/)
    expect(sink.raw.join('')).not.toMatch(/hunter2|k9/)
    expect(b!.message).toBe('3 rows = ok, sent to a@b basically')
  })

  it('redacts a message logged without a merge object, and the url_session_query_param key', () => {
    const { sink, logger } = captureLogger('svc.ui', { url_session_query_param: 'sess' })
    logger.info('opened /p?sess=S1&svc_sid=S2')
    expect(sink.records()[0]!.message).toBe('opened /p?sess=<redacted>&svc_sid=<redacted>')
  })
})
