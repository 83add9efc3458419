import { http } from '../internal/node-http.js'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { ERRORS } from '../errors.js'

/**
 * What an unexpected error of an API route answers. Fastify's default error handler would send
 * the error's own message (`{"statusCode":500,"message":"api secret: password=…"}`); svc answers
 * a server error (5xx) with its documented shape `{error, message, request_id}` and a generic
 * message, unless `show_error_details` is on (under `svc dev` by default): then the message and
 * stack, with credentials and secret values redacted as a page's shown details are. They are
 * logged at `error` either way (`ApiRequestLogController.defaultErrorLog`). Client errors (4xx:
 * validation, auth, the app's own `reply.code(4xx)`) keep Fastify's answer and message, and an
 * error handler the app sets itself answers as it likes.
 */
export const GENERIC_SERVER_ERROR_MESSAGE = 'The server hit an unexpected error; the request ID identifies it in the server log.'

/** Replies whose error reached Fastify's default error handler: no handler of the app answered it. */
const unhandled = new WeakMap<FastifyReply, Error>()

/** Called by the log controller's `defaultErrorLog`, which Fastify calls only from its default error handler. */
export function noteUnhandledError(reply: FastifyReply, error: Error): void {
  if (reply.statusCode >= 500) unhandled.set(reply, error)
}

/**
 * Rewrite the default handler's 5xx answers; `details()` says whether to show the error itself,
 * and `shown` redacts what is shown (the app passes `scrubShownText`: credentials, secret values).
 */
export function answerServerErrorsPrivately(api: FastifyInstance, details: () => boolean, shown: (text: string) => string): void {
  api.addHook('onSend', (request, reply, payload, done) => {
    const error = reply.statusCode >= 500 ? unhandled.get(reply) : undefined
    if (error === undefined) {
      done(null, payload)
      return
    }
    unhandled.delete(reply)
    const status = reply.statusCode
    const body = {
      error: status === 500 ? ERRORS.SVC_ERR_API_INTERNAL.error : snakeCase(http.STATUS_CODES[status] ?? 'server error'),
      message: details() ? shown(error.message) : GENERIC_SERVER_ERROR_MESSAGE,
      request_id: request.id,
      ...(details() && error.stack ? { stack: shown(error.stack) } : {}),
    }
    reply.header('content-type', 'application/json; charset=utf-8')
    done(null, JSON.stringify(body))
  })
}

function snakeCase(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '_')
}
