import type { FastifyReply, FastifyRequest, LogController } from 'fastify'
import { createRequire } from 'node:module'
import { noteUnhandledError } from '../api/error-reply.js'

export interface ApiRequestLogSettings {
  /** One INFO line per API request (debug mode turns it on). */
  enable_request_logging: boolean
}

/** The path without query or fragment: credentials travel in both (`?code=`, `#access_token=`). */
function pathOf(url: string): string {
  const cut = url.search(/[?#]/)
  return cut === -1 ? url : url.slice(0, cut)
}

const require = createRequire(import.meta.url)

/** A class extending Fastify's, made when the first API is built: importing this module loads no Fastify (src/api-instance.ts). */
let Controller: (new (settings: ApiRequestLogSettings) => LogController) | undefined

/**
 * Fastify's request logging for `app.api`, in svc's shape: one INFO line per request on logger
 * `svc.api`, `<METHOD> <path> -> <status>`, with fields `http_method`, `path`, `status` and
 * `duration_ms` (the path never carries the query or a fragment). Fastify's `incoming request` line is dropped
 * and its `Route … not found` line moves to DEBUG (the completion line already says 404).
 * Server errors (5xx) are logged with their exception even when request logging is off: an
 * unhandled route error must not pass silently.
 */
export function createApiRequestLogController(settings: ApiRequestLogSettings): LogController {
  Controller ??= defineApiRequestLogController((require('fastify') as typeof import('fastify')).LogController)
  return new Controller(settings)
}

/** The controller class on Fastify's `LogController` (svc/logging exports it as `ApiRequestLogController`). */
export function defineApiRequestLogController(Base: typeof LogController): new (settings: ApiRequestLogSettings) => LogController {
  return class ApiRequestLogController extends Base {
    constructor(settings: ApiRequestLogSettings) {
      super({ disableRequestLogging: !settings.enable_request_logging, requestIdLogLabel: 'request_id' })
    }

    override incomingRequest(): void {}

    override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
      if (this.isLogDisabled(request)) return
      const path = pathOf(request.url)
      const fields = {
        http_method: request.method,
        path,
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 1000) / 1000,
      }
      const message = `${request.method} ${path} -> ${reply.statusCode}`
      if (error) reply.log.error({ ...fields, err: error }, message)
      else reply.log.info(fields, message)
    }

    /** Fastify calls this from its default error handler only: no error handler of the app answered the error. */
    override defaultErrorLog(error: Error, request: FastifyRequest, reply: FastifyReply): void {
      noteUnhandledError(reply, error)
      if (reply.statusCode >= 500) {
        reply.log.error({ http_method: request.method, path: pathOf(request.url), status: reply.statusCode, err: error }, error?.message)
      } else if (!this.isLogDisabled(request)) {
        reply.log.info({ status: reply.statusCode, err: error }, error?.message)
      }
    }

    override routeNotFound(request: FastifyRequest): void {
      if (this.isLogDisabled(request)) return
      request.log.debug({ http_method: request.method, path: pathOf(request.url) }, `Route ${request.method}:${pathOf(request.url)} not found`)
    }
  }
}
