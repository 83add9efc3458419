import { z } from '../internal/zod.js'
import type { RouteHandle, SseRouteHandle } from '../api/route.js'
import type * as zc from 'zod/v4/core'
import { describeIssues, isZodSchema, toApiIssues, type ApiIssue, type ZodSchema } from '../api/zod-schema.js'
import { ApiCallError } from './api-call-error.js'
import { ApiClientUsageError } from './usage-error.js'
import { sseEvents } from './sse.js'
import { readStream } from '../internal/read-stream.js'
import type { ApiErrorBody } from './typed-call.js'

/**
 * The run-time half of typed calls: the request a handle and an input make, and the answer read
 * back through the route's schemas. An answer the client cannot trust is an `ApiCallError`,
 * never a value of the wrong type.
 */

/** What the client gets back from a request: the parts of `ApiResponse` read here. */
export interface AnswerLike {
  readonly status: number
  readonly ok: boolean
  readonly headers: Headers
  readonly body: ReadableStream<Uint8Array> | null
  text(): Promise<string>
}

/** svc's documented error body, as the client accepts it (extra fields kept). */
const ErrorBodySchema = z.looseObject({
  error: z.string(),
  message: z.string(),
  request_id: z.string().optional(),
  issues: z.array(z.looseObject({ in: z.string(), path: z.array(z.union([z.string(), z.number()])), message: z.string(), code: z.string() })).optional(),
})

export function routeName(route: RouteHandle): string {
  return `${route.method.toUpperCase()} ${route.url}`
}

/**
 * `/orders/:id` with `{ id: 7 }` → `/orders/7`. Each value stays inside its segment:
 * `encodeURIComponent` escapes `/`, `\\`, `?`, `#` and `%` (so `a/b` arrives as `a/b` and `%2e` as
 * `%2e`). A value that is or holds a dot segment (`.`, `..`, `../x`, `a\\..`) is refused before any
 * request: URL parsers resolve `.` and `..` in any spelling, and the gateway refuses a path whose
 * decoded form could cross the API mount, so such a value could only reach another route or a 400.
 * A missing parameter is a usage error too.
 */
export function fillPath(route: RouteHandle, params: Record<string, unknown> | undefined): string {
  const fill = (name: string): string => {
    const value = params?.[name]
    if (value === undefined || value === null || value === '') {
      throw new ApiClientUsageError('SVC_ERR_CLIENT_CONFIG', `client.call(${routeName(route)}): the path parameter "${name}" is missing; pass { params: { ${name}: ... } }`)
    }
    const text = String(value)
    if (text.split(/[/\\]/).some((segment) => segment === '.' || segment === '..')) {
      throw new ApiClientUsageError('SVC_ERR_CLIENT_PATH_PARAM', `client.call(${routeName(route)}): the path parameter "${name}" is ${JSON.stringify(text)}: a "." or ".." segment would leave its place in the path and reach another route; check the value before calling (no id needs a dot segment)`)
    }
    return encodeURIComponent(text)
  }
  return route.url.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_m, name: string) => fill(name)).replace(/\*$/, () => fill('*'))
}

/** Header values as text; `undefined` leaves a header out. */
export function headerStrings(headers: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k] = String(v)
  return out
}

/** The answer schema Fastify picks for a status: the status itself, then `2xx`-style, then `default`. */
function answerSchema(route: RouteHandle, status: number): ZodSchema | undefined {
  const response = (route.schema as { response?: Record<string, unknown> } | undefined)?.response
  if (typeof response !== 'object' || response === null) return undefined
  const picked = response[String(status)] ?? response[`${String(status)[0]}xx`] ?? response.default
  if (isZodSchema(picked)) return picked
  const json = (picked as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.['application/json']?.schema
  return isZodSchema(json) ? json : undefined
}

function badAnswer(route: RouteHandle, answer: AnswerLike, what: string, issues: ApiIssue[]): ApiCallError {
  const requestId = answer.headers.get('x-request-id') ?? undefined
  const message = `${routeName(route)} answered ${answer.status} ${what}`
  return new ApiCallError('SVC_ERR_CLIENT_BAD_RESPONSE', {
    status: answer.status,
    body: { error: 'client_bad_response', message, ...(requestId === undefined ? {} : { request_id: requestId }) },
    requestId,
    issues,
    route: routeName(route),
    message,
  })
}

/**
 * Through the schema's own Standard Schema `validate`: synchronous (zod's compiled fast path)
 * unless the schema has async refinements.
 */
async function validated(route: RouteHandle, answer: AnswerLike, schema: ZodSchema, value: unknown, part: 'response' | 'event'): Promise<unknown> {
  const result = await schema['~standard'].validate(value)
  if (result.issues === undefined) return result.value
  const issues = toApiIssues(part, result.issues as readonly zc.$ZodIssue[])
  throw badAnswer(route, answer, `${part === 'event' ? 'an event' : 'a body'} its schema refuses: ${describeIssues(issues)}`, issues)
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: Error } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch (err) {
    return { ok: false, error: err as Error }
  }
}

/** A 2xx answer through the route's answer schema; any other status as an `ApiCallError`. */
export async function readResult(route: RouteHandle, answer: AnswerLike): Promise<unknown> {
  const text = await answer.text()
  if (!answer.ok) throw await httpError(route, answer, answer.status, text)
  let value: unknown = text === '' ? undefined : text
  if (text !== '' && /[/+]json\b/i.test(answer.headers.get('content-type') ?? '')) {
    const parsed = parseJson(text)
    if (!parsed.ok) throw badAnswer(route, answer, `a body that is not JSON (${parsed.error.message})`, [])
    value = parsed.value
  }
  const schema = answerSchema(route, answer.status)
  return schema === undefined ? value : validated(route, answer, schema, value, 'response')
}

/**
 * An error answer: its body through the route's declared schema for that status when it matches,
 * else svc's error shape, else a body made up from the status and the text.
 */
export async function httpError(route: RouteHandle, answer: AnswerLike, status: number, text: string): Promise<ApiCallError> {
  const headerId = answer.headers.get('x-request-id') ?? undefined
  const parsed = parseJson(text)
  const value = parsed.ok ? parsed.value : undefined
  const declared = answerSchema(route, status)
  const asDeclared = declared === undefined ? undefined : await declared['~standard'].validate(value)
  let body: Record<string, unknown>
  if (asDeclared?.issues === undefined && typeof asDeclared?.value === 'object' && asDeclared.value !== null) body = asDeclared.value as Record<string, unknown>
  else {
    const documented = ErrorBodySchema.safeParse(value)
    body = documented.success
      ? documented.data
      : ({ error: `http_${status}`, message: text.trim().slice(0, 200) || '(no body)', ...(headerId === undefined ? {} : { request_id: headerId }) } satisfies ApiErrorBody)
  }
  const requestId = typeof body.request_id === 'string' ? body.request_id : headerId
  const message = typeof body.message === 'string' ? body.message : JSON.stringify(body).slice(0, 200)
  return new ApiCallError('SVC_ERR_CLIENT_HTTP_ERROR', {
    status,
    body: body as unknown as ApiErrorBody,
    requestId,
    issues: Array.isArray(body.issues) ? (body.issues as ApiIssue[]) : [],
    route: routeName(route),
    message: `${routeName(route)} answered ${status}: ${message}`,
  })
}

/**
 * The events of an event-stream answer, each through the route's `events` schema. An
 * `event: error` (the route failed mid-stream) is thrown as an `ApiCallError` with status 500.
 */
export async function* readEvents(route: SseRouteHandle, answer: AnswerLike): AsyncGenerator<unknown> {
  if (answer.body === null) return
  for await (const { event, data } of sseEvents(bodyText(answer.body))) {
    if (event === 'error') throw await httpError(route, answer, 500, data)
    const parsed = parseJson(data)
    if (!parsed.ok) throw badAnswer(route, answer, `an event that is not JSON (${parsed.error.message})`, [])
    yield await validated(route, answer, route.events, parsed.value, 'event')
  }
}

/** The body as text; leaving the loop early cancels it, which closes the connection. */
async function* bodyText(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  for await (const chunk of readStream(body)) yield decoder.decode(chunk, { stream: true })
  const tail = decoder.decode()
  if (tail !== '') yield tail
}

/** A typed event stream: iterate it once (`for await`), or `map()` it, e.g. into `st.writeStream`. */
export class ApiEventStream<T> implements AsyncIterable<T> {
  readonly #events: AsyncGenerator<unknown>

  constructor(events: AsyncGenerator<unknown>) {
    this.#events = events
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this.#events as AsyncGenerator<T>
  }

  /** Each event through `fn`: `st.writeStream(events.map((e) => e.token))`. */
  map<U>(fn: (event: T) => U | Promise<U>): AsyncIterable<U> {
    const events = this.#events as AsyncGenerator<T>
    return {
      async *[Symbol.asyncIterator]() {
        for await (const event of events) yield await fn(event)
      },
    }
  }

  /** Stop reading: closes the connection. */
  async close(): Promise<void> {
    await this.#events.return(undefined)
  }
}
