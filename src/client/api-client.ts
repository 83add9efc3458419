import { getRequestId, REQUEST_ID_HEADER } from '../logging/context.js'
import type { RouteHandle, SseRouteHandle } from '../api/route.js'
import { ApiClientUsageError } from './usage-error.js'
import { ApiEventStream, fillPath, headerStrings, httpError, readEvents, readResult, routeName } from './typed-answers.js'
import type { CallArgs, CallInput, CallResult, EventOf, NotEventRoute } from './typed-call.js'

export { ApiClientUsageError } from './usage-error.js'

/**
 * A small HTTP client for the app's own API, used from pages: paths are relative to the API
 * base (`client.get('/users')` → `GET {SVC_INTERNAL_API_BASE}/users`), so a page never needs to
 * know the public host, the port or the mount path.
 */

export const DEFAULT_API_BASE = 'http://127.0.0.1:8000/api'
export const DEFAULT_TIMEOUT_MS = 30_000

export type HeaderMap = Record<string, string>
export type AuthHeaderFactory = () => HeaderMap | Promise<HeaderMap>
/** How requests are sent: `fetch` unless given (`SvcTestClient` sends them in-process). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>

export interface ApiClientOptions {
  /** Default: env `SVC_INTERNAL_API_BASE`, else `http://127.0.0.1:8000/api`. */
  baseUrl?: string
  timeoutMs?: number
  defaultHeaders?: HeaderMap
  /** Adds headers (e.g. Authorization) to every request; called per request. */
  authHeaderFactory?: AuthHeaderFactory
  /** Sends the current request ID (`getRequestId()`) as `X-Request-ID` unless set per call. */
  propagateRequestId?: boolean
  /** Sends the requests (default: the global `fetch`). */
  fetch?: FetchLike
}

export interface ForSvcOptions extends Omit<ApiClientOptions, 'authHeaderFactory'> {
  bearerToken?: string
  authHeaderFactory?: AuthHeaderFactory
}

export interface RequestOptions {
  headers?: HeaderMap
  /** Serialised as JSON with `Content-Type: application/json`. */
  json?: unknown
  /** A raw body; not together with `json`. */
  body?: string | Uint8Array | URLSearchParams
  query?: Record<string, string | number | boolean | undefined | readonly (string | number | boolean)[]>
  timeoutMs?: number
  signal?: AbortSignal
}

/** What every verb resolves to: a small, fetch-like response with the body read on demand. */
export interface ApiResponse {
  readonly status: number
  readonly ok: boolean
  readonly headers: Headers
  readonly url: string
  /** The body as it arrives (for streaming, e.g. `st.writeStream(res)`); read it or one of the methods below, not both. */
  readonly body: ReadableStream<Uint8Array> | null
  json<T = unknown>(): Promise<T>
  text(): Promise<string>
  arrayBuffer(): Promise<ArrayBuffer>
}

function trimBase(base: string): string {
  let b = base.trim()
  while (b.endsWith('/')) b = b.slice(0, -1)
  try {
    new URL(b)
  } catch {
    throw new ApiClientUsageError('SVC_ERR_CLIENT_CONFIG', `ApiClient baseUrl ${JSON.stringify(base)} is not an absolute URL; use e.g. "http://127.0.0.1:8000/api"`)
  }
  return b
}

/** `/users` and `users` are fine; `http://x/users` and `//x/users` would leave the API base. */
export function apiRelativePath(path: string): string {
  if (typeof path !== 'string') throw new ApiClientUsageError('SVC_ERR_CLIENT_ABSOLUTE_PATH', 'ApiClient path must be a string such as "/users"')
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(path) || /^[\\/]{2}/.test(path)) {
    throw new ApiClientUsageError(
      'SVC_ERR_CLIENT_ABSOLUTE_PATH',
      `ApiClient paths are relative to the API base: pass "/users", not ${JSON.stringify(path)} (absolute and scheme-relative URLs could send the request, and its credentials, to another host)`,
    )
  }
  return path.startsWith('/') ? path : '/' + path
}

function queryString(query: RequestOptions['query']): string {
  if (!query) return ''
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue
    for (const item of Array.isArray(v) ? v : [v]) params.append(k, String(item))
  }
  const s = params.toString()
  return s === '' ? '' : '?' + s
}

export class ApiClient {
  readonly baseUrl: string
  readonly timeoutMs: number
  readonly #defaultHeaders: HeaderMap
  readonly #authHeaderFactory: AuthHeaderFactory | undefined
  readonly #propagateRequestId: boolean
  readonly #fetch: FetchLike | undefined

  constructor(options: ApiClientOptions = {}) {
    this.baseUrl = trimBase(options.baseUrl ?? process.env.SVC_INTERNAL_API_BASE ?? DEFAULT_API_BASE)
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.#defaultHeaders = { ...options.defaultHeaders }
    this.#authHeaderFactory = options.authHeaderFactory
    this.#propagateRequestId = options.propagateRequestId ?? false
    this.#fetch = options.fetch
  }

  /** A client with auth: exactly one of `bearerToken` or `authHeaderFactory`. */
  static forSvc(options: ForSvcOptions = {}): ApiClient {
    const { bearerToken, authHeaderFactory, ...rest } = options
    if (bearerToken !== undefined && authHeaderFactory !== undefined) {
      throw new ApiClientUsageError('SVC_ERR_CLIENT_CONFIG', 'ApiClient.forSvc(): pass only one of bearerToken or authHeaderFactory')
    }
    if (bearerToken !== undefined) return new ApiClient({ ...rest, authHeaderFactory: () => ({ authorization: `Bearer ${bearerToken}` }) })
    return new ApiClient({ ...rest, ...(authHeaderFactory ? { authHeaderFactory } : {}) })
  }

  /** A new client with the same base and options that also sends `Authorization: Bearer <token>`. */
  withBearer(token: string): ApiClient {
    const parent = this.#authHeaderFactory
    return new ApiClient({
      baseUrl: this.baseUrl,
      timeoutMs: this.timeoutMs,
      defaultHeaders: this.#defaultHeaders,
      propagateRequestId: this.#propagateRequestId,
      ...(this.#fetch ? { fetch: this.#fetch } : {}),
      authHeaderFactory: async () => ({ ...(parent ? await parent() : {}), authorization: `Bearer ${token}` }),
    })
  }

  get(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.request('GET', path, options)
  }
  post(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.request('POST', path, options)
  }
  put(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.request('PUT', path, options)
  }
  patch(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.request('PATCH', path, options)
  }
  delete(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.request('DELETE', path, options)
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const url = this.baseUrl + apiRelativePath(path) + queryString(options.query)
    if (options.json !== undefined && options.body !== undefined) {
      throw new ApiClientUsageError('SVC_ERR_CLIENT_CONFIG', `ApiClient.${method.toLowerCase()}(${JSON.stringify(path)}): pass either json or body, not both`)
    }
    const headers = new Headers(this.#defaultHeaders)
    if (this.#authHeaderFactory) for (const [k, v] of Object.entries(await this.#authHeaderFactory())) headers.set(k, v)
    for (const [k, v] of Object.entries(options.headers ?? {})) headers.set(k, v)
    if (this.#propagateRequestId && !headers.has(REQUEST_ID_HEADER)) {
      const id = getRequestId()
      if (id !== undefined) headers.set(REQUEST_ID_HEADER, id)
    }
    let body: string | Uint8Array | URLSearchParams | undefined = options.body
    if (options.json !== undefined) {
      body = JSON.stringify(options.json)
      if (!headers.has('content-type')) headers.set('content-type', 'application/json')
    }
    const timeout = AbortSignal.timeout(options.timeoutMs ?? this.timeoutMs)
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
    const res = await (this.#fetch ?? fetch)(url, { method, headers, body: body as BodyInit | undefined, signal })
    return toApiResponse(res)
  }

  /**
   * Call a typed route by its handle (`app.route()`'s result) and get its answer parsed by the
   * route's response schema: `await client.call(listOrders, { query: { region } })`. The input
   * (`params`, `query`, `body`, `headers`) is checked at compile time against the route's
   * schemas. An error status, or an answer its schema refuses, throws an `ApiCallError`.
   */
  async call<R extends RouteHandle>(route: R & NotEventRoute<R>, ...args: CallArgs<R>): Promise<CallResult<R>> {
    if ((route as Partial<SseRouteHandle>).events !== undefined) {
      throw new ApiClientUsageError('SVC_ERR_CLIENT_CONFIG', `client.call(${routeName(route)}): an event route answers a stream; read it with client.stream()`)
    }
    const res = await this.#send(route, (args[0] ?? {}) as CallInput<R>, {})
    return (await readResult(route, res)) as CallResult<R>
  }

  /**
   * Open a typed event route (`app.sseRoute()`): resolves once the route answered 2xx (an error
   * status throws an `ApiCallError`), to an async iterable of its events, each parsed by the
   * route's `events` schema. The client's timeout covers the whole stream; pass `timeoutMs`.
   */
  async stream<R extends SseRouteHandle>(route: R, ...args: CallArgs<R>): Promise<ApiEventStream<EventOf<R>>> {
    const res = await this.#send(route, (args[0] ?? {}) as CallInput<R>, { accept: 'text/event-stream' })
    if (!res.ok) throw await httpError(route, res, res.status, await res.text())
    return new ApiEventStream<EventOf<R>>(readEvents(route, res))
  }

  #send(route: RouteHandle, input: { params?: unknown; query?: unknown; body?: unknown; headers?: unknown; timeoutMs?: number; signal?: AbortSignal }, headers: HeaderMap): Promise<ApiResponse> {
    const options: RequestOptions = {
      headers: { ...headers, ...headerStrings(input.headers as Record<string, unknown> | undefined) },
      query: input.query as RequestOptions['query'],
    }
    if (input.body !== undefined) options.json = input.body
    if (input.timeoutMs !== undefined) options.timeoutMs = input.timeoutMs
    if (input.signal !== undefined) options.signal = input.signal
    return this.request(route.method.toUpperCase(), fillPath(route, input.params as Record<string, unknown> | undefined), options)
  }
}

function toApiResponse(res: Response): ApiResponse {
  return {
    status: res.status,
    ok: res.ok,
    headers: res.headers,
    url: res.url,
    body: res.body,
    json: <T>() => res.json() as Promise<T>,
    text: () => res.text(),
    arrayBuffer: () => res.arrayBuffer(),
  }
}

/** The client pages get by default: no auth; forwards `X-Request-ID` in debug mode. */
export function getClient(app?: { settings: { debug: boolean } }, options: ApiClientOptions = {}): ApiClient {
  const debug = app?.settings.debug ?? /^(1|true|yes|on)$/i.test(process.env.SVC_DEBUG ?? '')
  return new ApiClient({ propagateRequestId: debug, ...options })
}

