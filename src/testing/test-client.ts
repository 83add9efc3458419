import { AssertionError } from 'node:assert'
import type { InjectOptions, Response as InjectResponse } from 'light-my-request'
import type { AnySvc } from '../app.js'
import { normalizeMountPath } from '../settings/schema.js'
import type { Gateway } from '../../gateway/build.js'
import { createRequire } from 'node:module'
import type { UiTestHandle, UiTestOptions } from './app-test.js'
import { getClient, type ApiClient, type FetchLike } from '../client/api-client.js'
import type { ApiEventStream } from '../client/typed-answers.js'
import type { CallArgs, CallResult, EventOf, NotEventRoute } from '../client/typed-call.js'
import type { RouteHandle, SseRouteHandle } from '../api/route.js'

// The page runtime loads on the first `ui()`: `svc` exports this class, and a gateway worker (an
// app's `import 'svc'`) never runs a page. require() of an ES module without top-level await is
// synchronous and shares the module instance with `import`.
const require = createRequire(import.meta.url)

/**
 * Drives the real composite gateway of an app in-process, without sockets: the same dispatch,
 * request IDs, API mount, redirects and error bodies as `svc run`, for users' unit tests.
 * Paths given to `apiGet`/`apiPost` are relative to the API mount (`/users`); `api.*` and
 * `request()` take the full public path (`/api/users`).
 */
export interface TestRequestOptions {
  headers?: Record<string, string>
  query?: Record<string, string>
  /** A JSON body (sets content-type) or a raw string/Buffer. */
  json?: unknown
  body?: string | Buffer
  /** Browser-visible prefix to put in front of the path (default: this client's). */
  rootPath?: string
}

export interface TestResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json<T = unknown>(): T
}

/** `A`: the app's own type (its secrets included), kept on `client.app`. */
export class SvcTestClient<A extends AnySvc = AnySvc> {
  readonly app: A
  readonly rootPath: string
  readonly #gateway: () => Promise<Gateway>
  #client: ApiClient | undefined

  constructor(app: A, options: { rootPath?: string } = {}, shared?: () => Promise<Gateway>) {
    this.app = app
    this.rootPath = normalizeMountPath(options.rootPath ?? '')
    let built: Promise<Gateway> | null = null
    this.#gateway =
      shared ??
      (() =>
        (built ??= (async () => {
          // Imported on the first request: `svc` exports this class, and a process that only
          // runs pages (the sidecar) should not load the gateway, undici and ws for it.
          const [{ buildGateway }, { GatewayRuntime }, { createObservability }] = await Promise.all([
            import('../../gateway/build.js'),
            import('../../gateway/runtime.js'),
            import('../../gateway/observability/worker-observability.js'),
          ])
          const runtime = new GatewayRuntime(process.env.SVC_UI_UPSTREAM ?? '')
          const o = await createObservability(app, { collectMetrics: null, runtime })
          return buildGateway(app, { observer: o.observer, internal: o.internal, runtime })
        })()))
  }

  /**
   * A client for requests that reach the app under `prefix`: with the prefix in front when it is
   * the app's `root_path`, else stripped by the (simulated) proxy with `X-Forwarded-Prefix`.
   */
  withRootPath(prefix: string): SvcTestClient<A> {
    return new SvcTestClient(this.app, { rootPath: prefix }, this.#gateway)
  }

  /** Any method on a full public path, e.g. `request('GET', '/api/users')` or `('GET', '/')`. */
  async request(method: string, path: string, options: TestRequestOptions = {}): Promise<TestResponse> {
    const gateway = await this.#gateway()
    const root = options.rootPath === undefined ? this.rootPath : normalizeMountPath(options.rootPath)
    // The app's own root_path: a full-path proxy (prefix kept). Any other prefix: a proxy that
    // strips it and says so in X-Forwarded-Prefix.
    const fullPath = root === '' || root === this.app.settings.root_path
    const opts: InjectOptions = {
      method: method.toUpperCase() as InjectOptions['method'],
      url: fullPath ? root + path : path,
      headers: fullPath ? { ...options.headers } : { 'x-forwarded-prefix': root, ...options.headers },
      ...(options.query ? { query: options.query } : {}),
    }
    if (options.json !== undefined) {
      opts.payload = JSON.stringify(options.json)
      opts.headers = { 'content-type': 'application/json', ...opts.headers }
    } else if (options.body !== undefined) {
      opts.payload = options.body
    }
    const { inject } = await import('light-my-request')
    const res: InjectResponse = await inject(gateway.handleRequest, opts)
    return {
      status: res.statusCode,
      headers: res.headers as TestResponse['headers'],
      text: res.payload,
      json: <T>() => JSON.parse(res.payload) as T,
    }
  }

  /**
   * An `ApiClient` whose requests go through this in-process gateway (under this client's
   * `rootPath`): what `ui()` hands pages, and what `call()` and `stream()` use.
   */
  get client(): ApiClient {
    this.#client ??= getClient(this.app, { baseUrl: `http://svc.test${this.app.settings.api_mount_path}`, fetch: this.#fetch })
    return this.#client
  }

  /** A typed call through the gateway, as a page makes it: `await client.call(listOrders, { query: { region } })`. */
  call<R extends RouteHandle>(route: R & NotEventRoute<R>, ...args: CallArgs<R>): Promise<CallResult<R>> {
    return this.client.call<R>(route, ...args)
  }

  /** A typed event route through the gateway (the whole stream is read before the first event). */
  stream<R extends SseRouteHandle>(route: R, ...args: CallArgs<R>): Promise<ApiEventStream<EventOf<R>>> {
    return this.client.stream<R>(route, ...args)
  }

  /** `fetch` over `request()`: the URL's path (and query) is a public path of this app. */
  readonly #fetch: FetchLike = async (url, init) => {
    const { pathname, search } = new URL(url)
    const headers = Object.fromEntries(new Headers(init.headers))
    const body = init.body
    const res = await this.request(init.method ?? 'GET', pathname + search, {
      headers,
      ...(body === undefined || body === null ? {} : { body: typeof body === 'string' ? body : Buffer.from(body instanceof URLSearchParams ? body.toString() : (body as Uint8Array)) }),
    })
    const out = new Headers()
    for (const [name, value] of Object.entries(res.headers)) for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) out.append(name, v)
    // A Response cannot carry a body with these statuses.
    return new Response([101, 204, 205, 304].includes(res.status) ? null : res.text, { status: res.status, headers: out })
  }

  /** GET `{rootPath}{api_mount_path}{path}`: `apiGet('/users')`. */
  apiGet(path: string, options: TestRequestOptions = {}): Promise<TestResponse> {
    return this.request('GET', this.app.settings.api_mount_path + path, options)
  }

  /** POST `{rootPath}{api_mount_path}{path}`: `apiPost('/users', { json: { name } })`. */
  apiPost(path: string, options: TestRequestOptions = {}): Promise<TestResponse> {
    return this.request('POST', this.app.settings.api_mount_path + path, options)
  }

  /** The API on full public paths: `client.api.get('/api/users')`. */
  get api(): Record<'get' | 'post' | 'put' | 'patch' | 'delete', (path: string, options?: TestRequestOptions) => Promise<TestResponse>> {
    const call = (m: string) => (path: string, options?: TestRequestOptions) => this.request(m, path, options)
    return { get: call('GET'), post: call('POST'), put: call('PUT'), patch: call('PATCH'), delete: call('DELETE') }
  }

  /** The OpenAPI document served at `{api}/openapi.json`. */
  async openapi(): Promise<Record<string, unknown>> {
    const res = await this.apiGet('/openapi.json')
    if (res.status !== 200) throw new AssertionError({ message: `GET ${this.app.settings.api_mount_path}/openapi.json answered ${res.status}` })
    return res.json()
  }

  /** Throws unless `{api}/docs` and `{api}/openapi.json` answer 200 (under `rootPath` if given). */
  async assertDocsAvailable(options: { rootPath?: string } = {}): Promise<void> {
    for (const path of ['/docs', '/openapi.json']) {
      const res = await this.apiGet(path, options)
      if (res.status !== 200) {
        const root = options.rootPath ?? this.rootPath
        throw new AssertionError({ message: `${root}${this.app.settings.api_mount_path}${path} answered ${res.status}, expected 200` })
      }
    }
  }

  /**
   * Run a page in-process, like Streamlit's AppTest: `client.ui({ target: '/reports' })`, then
   * `run()`, read elements, `click()` / `setValue()` widgets and `run()` again.
   */
  ui(options: UiTestOptions = {}): UiTestHandle {
    const { createUiTestHandle } = require('./app-test.js') as typeof import('./app-test.js')
    return createUiTestHandle(this.app, { client: this.client, ...options })
  }

  /** Release the gateway's upstream pool and the Fastify instance. */
  async close(): Promise<void> {
    await (await this.#gateway()).destroy()
  }
}
