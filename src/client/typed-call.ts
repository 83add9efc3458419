import type { RouteHandle } from '../api/route.js'
import type { ApiIssue, Input, Output, ZodSchema } from '../api/zod-schema.js'
export type { ApiIssue }

/**
 * The types of a typed call, computed from a route handle (`app.route()`'s result): what
 * `client.call(route, input)` must be given, and what it resolves to or throws. No code is
 * generated: a renamed query parameter or a changed field is a compile error where it is used.
 */

type Simplify<T> = { [K in keyof T]: T[K] } & {}

type Part<S, K extends PropertyKey> = K extends keyof S ? S[K] : undefined

/**
 * What a part accepts on the wire. A field whose input type is `unknown` (`z.coerce.number()`)
 * takes its output type: the value is sent as text and coerced back by the route.
 */
type Wire<T> = T extends ZodSchema ? WireValue<Input<T>, Output<T>> : never
type WireValue<I, O> = unknown extends I
  ? O
  : I extends readonly unknown[]
    ? I
    : I extends object
      ? { [K in keyof I]: unknown extends I[K] ? (K extends keyof O ? O[K] : I[K]) : I[K] }
      : I

/** `/orders/:id/lines/:line(^\\d+)` → `'id' | 'line'` (one parameter per segment); `*` for a wildcard. */
type Segments<U extends string> = U extends `${infer Head}/${infer Tail}` ? Head | Segments<Tail> : U
type SegmentParam<S> = S extends `:${infer Name}` ? (Name extends `${infer Bare}(${string}` ? Bare : Name) : S extends '*' ? '*' : never
export type PathParamNames<U extends string> = SegmentParam<Segments<U>>

export type QueryValue = string | number | boolean | undefined | readonly (string | number | boolean)[]
export type HeaderValue = string | number | boolean | undefined

type SchemaOf<R> = R extends RouteHandle<string, string, infer S> ? S : never
type UrlOf<R> = R extends RouteHandle<string, infer U, unknown> ? U : string

type ParamsInput<R> =
  Part<SchemaOf<R>, 'params'> extends infer P extends ZodSchema
    ? Wire<P>
    : [PathParamNames<UrlOf<R>>] extends [never]
      ? never
      : { [K in PathParamNames<UrlOf<R>>]: string | number }
type QueryInput<R> = Part<SchemaOf<R>, 'querystring'> extends infer Q extends ZodSchema ? Wire<Q> : Record<string, QueryValue> | undefined
type BodyInput<R> = Part<SchemaOf<R>, 'body'> extends infer B extends ZodSchema ? Wire<B> : unknown
type HeadersInput<R> =
  Part<SchemaOf<R>, 'headers'> extends infer H extends ZodSchema ? Wire<H> & Record<string, HeaderValue> : Record<string, HeaderValue> | undefined

/** `K: T`, or `K?: T` when T may be left out; nothing at all for `never` (a route without that part). */
type Field<K extends string, T> = [T] extends [never] ? {} : {} extends T ? { [P in K]?: T } : undefined extends T ? { [P in K]?: T } : { [P in K]: T }

export interface CallOptions {
  /** Overrides the client's timeout for this call; covers reading the body (and an event stream). */
  timeoutMs?: number
  signal?: AbortSignal
}

/** `client.call(route, input)`'s input: `params`, `query`, `body`, `headers` as the route's schemas accept them. */
export type CallInput<R> = Simplify<
  Field<'params', ParamsInput<R>> & Field<'query', QueryInput<R>> & Field<'body', BodyInput<R>> & Field<'headers', HeadersInput<R>> & CallOptions
>

/** The input may be left out when nothing in it is required. */
export type CallArgs<R> = {} extends CallInput<R> ? [input?: CallInput<R>] : [input: CallInput<R>]

type ResponseMap<R> = Part<SchemaOf<R>, 'response'>
type StatusKeys<M, P extends string> = M extends object ? { [K in keyof M]-?: `${K & (string | number)}` extends P ? K : never }[keyof M] : never
/** A zod answer schema, or the zod schemas of its per-content-type form; `unknown` for JSON Schema. */
type AnswerSchema<T> = T extends ZodSchema
  ? T
  : T extends { content: infer C }
    ? { [K in keyof C]: C[K] extends { schema: infer X } ? (X extends ZodSchema ? X : unknown) : unknown }[keyof C]
    : unknown

type SuccessKeys<R> = StatusKeys<ResponseMap<R>, `2${string}`>
type ErrorKeys<R> = StatusKeys<ResponseMap<R>, `4${string}` | `5${string}` | 'default'>

/** What `client.call(route)` resolves to: the output type of the route's 2xx answer schema(s). */
export type CallResult<R> = [SuccessKeys<R>] extends [never] ? unknown : Output<AnswerSchema<ResponseMap<R>[SuccessKeys<R> & keyof ResponseMap<R>]>>


/**
 * The JSON error shape svc documents for every error it answers itself
 * (`{ error, message, request_id }`; a typed route's 400 adds `issues`).
 */
export interface ApiErrorBody {
  error: string
  message: string
  request_id?: string
  issues?: ApiIssue[]
}

/** The body of an `ApiCallError` for this route: svc's error shape, or one of the route's declared error answers. */
export type ErrorBody<R> = ApiErrorBody | ([ErrorKeys<R>] extends [never] ? never : Output<AnswerSchema<ResponseMap<R>[ErrorKeys<R> & keyof ResponseMap<R>]>>)

/** The value of each event of an event route (`app.sseRoute()`). */
export type EventOf<R> = R extends { readonly events: infer E } ? Output<E> : never

/** A handle `client.call()` refuses: event routes are read with `client.stream()`. */
export type NotEventRoute<R> = R extends { readonly events: ZodSchema } ? { 'an event route: read it with client.stream()': never } : unknown
