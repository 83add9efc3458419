import type {
  ContextConfigDefault,
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  HTTPMethods,
  RawServerDefault,
  RouteGenericInterface,
  RouteOptions,
} from 'fastify'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ZodTypeProvider } from 'fastify-type-provider-zod'
import type { Output, ZodSchema } from './zod-schema.js'

/**
 * Typed routes: declared once with zod schemas, they validate requests and answers at run time,
 * describe themselves in the OpenAPI document, and hand pages a handle whose types the API
 * client checks (`client.call(listOrders, { query: { region } })`).
 */

/** `app.api`: the Fastify instance, typed so that zod schemas type `request` and `reply`. */
export type SvcApi = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, ZodTypeProvider>

/** Swagger's fields of a route schema (summary, tags, ...) come with @fastify/swagger's types. */
export type RouteSchema = FastifySchema

type FastifyRouteOptions<S extends RouteSchema> = RouteOptions<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  RouteGenericInterface,
  ContextConfigDefault,
  S,
  ZodTypeProvider
>

/** `app.route()`'s options: Fastify's route options, one method, the schema's parts in zod. */
export type TypedRouteOptions<M extends HTTPMethods, U extends string, S extends RouteSchema> = Omit<FastifyRouteOptions<S>, 'method' | 'url' | 'schema'> & {
  method: M
  /** Relative to the API mount, Fastify's syntax: `/orders/:id`. */
  url: U
  schema?: S
}

/** The request and reply an event route's handler gets, typed by its schema. */
export type TypedRequest<S extends RouteSchema> = FastifyRequest<RouteGenericInterface, RawServerDefault, IncomingMessage, S, ZodTypeProvider>
export type TypedReply<S extends RouteSchema> = FastifyReply<RouteGenericInterface, RawServerDefault, IncomingMessage, ServerResponse, ContextConfigDefault, S, ZodTypeProvider>

/** `app.sseRoute()`'s options: a typed route whose answer is a stream of `events`. */
export type SseRouteOptions<M extends HTTPMethods, U extends string, S extends RouteSchema, E extends ZodSchema> = Omit<
  TypedRouteOptions<M, U, S>,
  'handler'
> & {
  /** The schema of each event's data (sent as one JSON value per event). */
  events: E
  /**
   * Returns (or resolves to) the events to send, e.g. an `async function*`; or answers itself
   * (`return reply.code(404).send(...)`) before streaming anything.
   */
  handler: (this: SvcApi, request: TypedRequest<S>, reply: TypedReply<S>) => EventSource<Output<E>> | Promise<EventSource<Output<E>>>
}

export type EventSource<T> = AsyncIterable<T> | Iterable<T> | FastifyReply

/** What `app.route()` returns: the route's method, URL and schemas, for `client.call()`. */
export interface RouteHandle<M extends string = string, U extends string = string, S = unknown> {
  readonly method: M
  readonly url: U
  readonly schema: S
}

/** What `app.sseRoute()` returns, for `client.stream()`. */
export interface SseRouteHandle<M extends string = string, U extends string = string, S = unknown, E extends ZodSchema = ZodSchema> extends RouteHandle<M, U, S> {
  readonly events: E
}
