import { LogController } from 'fastify'
import { defineApiRequestLogController } from './api-request-log.js'

/**
 * svc's request logging for a Fastify instance of your own (`logController: new
 * ApiRequestLogController({ enable_request_logging: true })`); `app.api` has one already. Here,
 * not in api-request-log.ts, because defining it loads Fastify and svc's entry must not.
 */
export const ApiRequestLogController = defineApiRequestLogController(LogController)
