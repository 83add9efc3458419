/**
 * Child-process fixture: logs the same secrets the way svc's code paths do, through
 * `createRootLogger` writing to stdout in the format given as argv[2] (`json` or `pretty`).
 */
import { createRootLogger, childLogger } from '../../src/logging/logger.js'
import { runWithRequestId } from '../../src/logging/context.js'

const format = process.argv[2] === 'pretty' ? 'pretty' : 'json'
const root = createRootLogger({ log_level: 'debug', log_format: format, url_session_query_param: 'sess' })
const api = childLogger(root, 'svc.api')
runWithRequestId('fixture-rid', () => {
  api.info({ headers: { authorization: 'Bearer SECRET-TOKEN', cookie: 'svc_sid=SECRET-COOKIE' } }, 'headers')
  api.info({ req: { method: 'GET', url: '/api/x?svc_sid=SECRET-SID&auth_code=SECRET-CODE&sess=SECRET-SESS' } }, 'request')
  api.warn({ authorization: 'Bearer SECRET-TOKEN', access_token: 'SECRET-TOKEN' }, 'top-level')
  api.error({ err: new Error('boom') }, 'failure')
})
