import { Readable } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, RouteOptions } from 'fastify'
import { ERRORS } from '../errors.js'
import { GENERIC_SERVER_ERROR_MESSAGE } from './error-reply.js'
import { ApiSchemaError, answerEncoder, isApiSchemaError } from './zod-compilers.js'
import { describeIssues, isZodSchema, toApiIssues, type ZodSchema } from './zod-schema.js'
import type { RouteHandle, RouteSchema, SseRouteHandle, SseRouteOptions, SvcApi, TypedRouteOptions } from './route.js'

const REQUEST_PARTS = ['body', 'querystring', 'query', 'params', 'headers'] as const


function isZodPart(value: unknown): boolean {
  if (isZodSchema(value)) return true
  // The per-content-type form: `{ content: { 'application/json': { schema } } }`.
  const content = (value as { content?: Record<string, { schema?: unknown }> } | null | undefined)?.content
  return typeof content === 'object' && content !== null && Object.values(content).some((c) => isZodSchema(c?.schema))
}

/** True when a request part or an answer of a route's schema is declared with zod. */
export function hasZodParts(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false
  const s = schema as Record<string, unknown>
  if (REQUEST_PARTS.some((part) => isZodPart(s[part]))) return true
  const response = s.response
  return typeof response === 'object' && response !== null && Object.values(response).some(isZodPart)
}

/**
 * Routes with zod schemas answer a schema violation in svc's error shape: a bad request is a 400
 * `{ error: "bad_request", message, request_id, issues }` naming each field; an answer its schema
 * refuses is a 500 with a generic message, the details logged at `error`. Every other error of
 * such a route goes on to the app's error handler (or Fastify's), and a route's own
 * `errorHandler` option replaces this one.
 */
export function answerSchemaErrors(api: SvcApi): void {
  api.addHook('onRoute', (route) => {
    if (route.errorHandler === undefined && hasZodParts(route.schema)) route.errorHandler = schemaErrorHandler
  })
}

function schemaErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (!isApiSchemaError(error)) throw error
  if (error.statusCode === 400) {
    sendJson(reply, 400, { error: ERRORS.SVC_ERR_API_BAD_REQUEST.error, message: error.message, request_id: request.id, issues: error.issues })
    return
  }
  logBadAnswer(request, error)
  sendJson(reply, 500, { error: ERRORS.SVC_ERR_API_BAD_RESPONSE.error, message: GENERIC_SERVER_ERROR_MESSAGE, request_id: request.id })
}

function logBadAnswer(request: FastifyRequest, error: ApiSchemaError): void {
  request.log.error({ code: error.code, http_method: request.method, path: request.routeOptions.url, status: 500, issues: error.issues, err: error }, error.message)
}

/** A string payload: no route serializer (a `4xx`/`default` schema) reshapes svc's own answer. */
function sendJson(reply: FastifyReply, status: number, body: object): void {
  reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body))
}

export function registerRoute<M extends HTTPMethods, U extends string, S extends RouteSchema>(api: SvcApi, options: TypedRouteOptions<M, U, S>): RouteHandle<M, U, S> {
  ;(api as unknown as FastifyInstance).route(options as unknown as RouteOptions)
  return Object.freeze({ method: options.method, url: options.url, schema: (options.schema ?? {}) as S })
}

/**
 * An event route answers `text/event-stream`: one `data: <JSON>` event per value the handler
 * yields, each encoded through `events`. A value the schema refuses, or a handler that throws
 * mid-stream, ends the stream with an `event: error` whose data is svc's error body (generic
 * message, request ID), logged like a 500: the status line has gone out already.
 */
export function registerSseRoute<M extends HTTPMethods, U extends string, S extends RouteSchema, E extends ZodSchema>(
  api: SvcApi,
  options: SseRouteOptions<M, U, S, E>,
): SseRouteHandle<M, U, S, E> {
  const { events, handler, ...rest } = options
  const encode = answerEncoder(events)
  const schema = { ...rest.schema } as S & { response?: Record<string, unknown> }
  // Documents the events in OpenAPI; Fastify never serializes a stream, so nothing else changes.
  schema.response = {
    200: { description: 'Server-Sent Events; the data of each event is one JSON value of this schema', content: { 'text/event-stream': { schema: events } } },
    ...schema.response,
  }
  const route: RouteOptions = {
    ...(rest as unknown as RouteOptions),
    schema,
    handler: async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const source: unknown = await handler.call(this as unknown as SvcApi, request as never, reply as never)
      if (reply.sent || source === reply) return reply
      reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache').header('x-accel-buffering', 'no')
      return reply.send(Readable.from(sseFrames(source as AsyncIterable<unknown> | Iterable<unknown>, encode, request)))
    },
  }
  ;(api as unknown as FastifyInstance).route(route)
  return Object.freeze({ method: options.method, url: options.url, schema: (rest.schema ?? {}) as S, events })
}

async function* sseFrames(source: AsyncIterable<unknown> | Iterable<unknown>, encode: ReturnType<typeof answerEncoder>, request: FastifyRequest): AsyncGenerator<string> {
  const url = `${request.method} ${request.routeOptions.url}`
  try {
    for await (const event of source) {
      const encoded = encode(event)
      if (!encoded.success) {
        const issues = toApiIssues('event', encoded.error.issues)
        throw new ApiSchemaError('SVC_ERR_API_BAD_RESPONSE', `${url} streamed an event its schema refuses: ${describeIssues(issues)}`, issues)
      }
      yield `data: ${JSON.stringify(encoded.data)}\n\n`
    }
  } catch (err) {
    if (isApiSchemaError(err)) logBadAnswer(request, err)
    else request.log.error({ http_method: request.method, path: request.routeOptions.url, status: 500, err }, `${url} failed while streaming events: ${(err as Error)?.message ?? String(err)}`)
    yield `event: error\ndata: ${JSON.stringify({ error: ERRORS.SVC_ERR_API_BAD_RESPONSE.error, message: GENERIC_SERVER_ERROR_MESSAGE, request_id: request.id })}\n\n`
  }
}
