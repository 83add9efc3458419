import type { FastifyServerOptions, HTTPMethods } from 'fastify'
import type { Logger } from 'pino'
import { resolveProcessSettings } from './settings/resolve.js'
import type { ResolvedSettings, SettingsInput } from './settings/schema.js'
import { createRootLogger, childLogger } from './logging/logger.js'
import { scrubShownText } from './logging/secret-scrub.js'
import { isPagesOnly } from './internal/process-role.js'
import { pagesOnlyApi } from './internal/pages-only-api.js'
import { createApi, documentApi } from './api-instance.js'
import { NAVIGATION_POSITIONS, type NavigationFn, type NavigationOptions, type NavigationPosition } from './ui/navigation.js'
import { answerSchemaErrors, registerRoute, registerSseRoute } from './api/typed-routes.js'
import type { RouteHandle, RouteSchema, SseRouteHandle, SseRouteOptions, SvcApi, TypedRouteOptions } from './api/route.js'
import type { ZodSchema } from './api/zod-schema.js'
import { kServeErrorDetails, kServeHealth, kSettingsInput, kSvcApp } from './internal/symbols.js'
import { isSvcApp } from './internal/svc-brand.js'
import { liveView } from './internal/live-view.js'
import type { PageServerApp } from './ui/page-app.js'
import { defineTask } from './ui/tasks/define-task.js'
import type { TaskDefinition, TaskFn } from './ui/tasks/task-types.js'
import { answerServerErrorsPrivately } from './api/error-reply.js'
import { UNSERVED, registerHealthRoutes, type HealthSource } from './health.js'
import { PageRegistry, type PageRecord } from './ui/page-registry.js'
import type { InjectMap } from './ui/inject.js'
import type { PageHandler, PageOptions } from './ui/page-meta.js'
import { applyCors } from './auth/cors.js'
import { attachOidcLogin, type AttachOidcLoginOptions } from './auth/attach-oidc-login.js'
import type { OidcLogin } from './auth/oidc-bff-routes.js'
import type { OIDCProvider } from './auth/oidc-client.js'
import { OidcPageIdentity } from './auth/page-identity.js'
import type { OidcBffStore } from './auth/oidc-store.js'
import type { SessionRevocations } from './auth/session-revocations.js'
import { SvcError } from './errors.js'
import { SharedState, redisReadiness } from './shared-state/shared-state.js'
import type { RedisConnection } from './shared-state/redis-connection.js'
import type { SessionStore } from './ui/url-session.js'
import { kSecretsReport, loadSecrets, type SecretsOf, type SecretsReport, type SecretsSchema } from './secrets/secrets.js'


export interface SvcOptions<S extends SecretsSchema | undefined = undefined> extends SettingsInput {
  /** Extra options for the inner Fastify instance (`app.api`). */
  fastify?: Omit<FastifyServerOptions, 'logger' | 'loggerInstance' | 'genReqId' | 'requestIdHeader'>
  /**
   * A zod schema the secrets must satisfy (usually `z.object({...})`): it types `app.secrets`,
   * and a missing or invalid secret stops the app from loading, naming it (docs/configuration.md#secrets).
   */
  secrets?: S
}

/**
 * The app: an inner Fastify API (`app.api`, routes relative to `api_mount_path`) and dashboard
 * pages (`app.page`). `svc run app.ts:app` serves both on one port.
 */
export class Svc<TSecrets extends SecretsSchema | undefined = undefined> {
  /** Settings resolved once: defaults < options < svc.config.json < SVC_* env. */
  readonly settings: ResolvedSettings
  readonly [kSettingsInput]: SettingsInput
  /**
   * The inner Fastify instance; declare routes relative to the mount (`/users` → `/api/users`).
   * Typed for zod schemas (fastify-type-provider-zod): a zod `schema` types `request` and `reply`.
   */
  readonly api: SvcApi
  /** Root of the logger tree (`svc`). */
  readonly logger: Logger
  #health: HealthSource = UNSERVED
  /** An API server error answers with its own message (else a generic one); the gateway decides for dev mode. */
  #errorDetails: boolean
  readonly #shared: SharedState
  readonly #pages = new PageRegistry<PageHandlerLike, PageOptionsLike>()
  /**
   * The app's secrets: `.svc/secrets.json` (the `secrets_file` setting) and `SVC_SECRET_<NAME>`
   * variables, checked by the `secrets` schema when given. Frozen; their values never reach a log line.
   */
  readonly secrets: SecretsOf<TSecrets>
  readonly [kSecretsReport]: SecretsReport
  #navigation: NavigationFn | null = null
  #navigationPosition: NavigationPosition = 'sidebar'
  /** `app.task(name, fn)`: the app's tasks by name (the page server's task threads find them here). */
  readonly #tasks = new Map<string, TaskDefinition>()
  #identity: OidcPageIdentity | null = null
  #pageSide: PageServerApp | null = null

  constructor(options: SvcOptions<TSecrets> = {}) {
    const { fastify: fastifyOptions, secrets: secretsSchema, ...settingsInput } = options
    this.settings = resolveProcessSettings(settingsInput)
    this[kSettingsInput] = settingsInput
    // Before the logger exists: from its first line on, every secret value is scrubbed.
    const secrets = loadSecrets(secretsSchema as TSecrets, { cwd: process.cwd(), env: process.env, file: this.settings.secrets_file })
    this.secrets = secrets.values
    this[kSecretsReport] = secrets.report
    const root = createRootLogger(this.settings)
    this.logger = childLogger(root, 'svc')
    const apiLogger = childLogger(root, 'svc.api')
    // A process that only runs pages (the page server) never loads Fastify (src/internal/process-role.ts).
    const pagesOnly = isPagesOnly()
    this.api = (pagesOnly ? pagesOnlyApi(apiLogger) : createApi(this.settings, apiLogger, fastifyOptions as FastifyServerOptions | undefined)) as unknown as SvcApi
    this.#errorDetails = this.settings.show_error_details ?? false
    answerServerErrorsPrivately(this.api, () => this.#errorDetails, scrubShownText)
    applyCors(this.api, this.settings)
    answerSchemaErrors(this.api)
    if (!pagesOnly) documentApi(this.api, this.settings)
    this.#shared = new SharedState(this.settings, childLogger(root, 'svc.redis'))
    registerHealthRoutes(this.api, () => this.#health, this.settings.root_path, () => redisReadiness(this.#shared))
    this.api.addHook('onClose', async () => this.#shared.close())
  }

  /**
   * Where URL sessions (`ensureUrlSession(st, app.sessionStore)`) are kept: on Redis when
   * `redis_url` is set, so every replica sees them; else in this process's memory.
   */
  get sessionStore(): SessionStore {
    return this.#shared.sessionStore
  }

  /** The OIDC login store `attachOidcLogin` uses unless given one (Redis when `redis_url` is set). */
  get oidcStore(): OidcBffStore {
    return this.#shared.oidcStore
  }

  /** Sign-outs of the app's OIDC login, checked on every page run and API call (Redis when `redis_url` is set). */
  get sessionRevocations(): SessionRevocations {
    return this.#shared.sessionRevocations
  }

  /** Where the page server snapshots page sessions: the shared Redis (`redis_url`), else null. */
  get pageSnapshotStore(): RedisConnection | null {
    return this.#shared.redis
  }

  /**
   * What the page server, its threads and the test handle read of this app (src/ui/page-app.ts),
   * and the brand `isSvc` checks: a `Symbol.for` key, the same in every copy of svc.
   */
  [kSvcApp](): PageServerApp {
    this.#pageSide ??= liveView<PageServerApp>({
      pages: () => this.pages,
      settings: () => this.settings,
      logger: () => this.logger,
      secrets: () => this.secrets,
      navigation: () => this.#navigation,
      navigationPosition: () => this.#navigationPosition,
      identity: () => this.#identity,
      tasks: () => this.#tasks,
      // Where `st.userStorage` keeps signed-in users' values (Redis with `redis_url`, else files).
      userStore: () => this.#shared.userStore,
      pageSnapshotStore: () => this.pageSnapshotStore,
      sessionRevocations: () => this.sessionRevocations,
    })
    return this.#pageSide
  }

  /** The gateway serving this app hands readyz its source of drain and upstream state. */
  [kServeHealth](source: HealthSource): void {
    this.#health = source
  }

  /** `svc dev` shows API server errors in full unless `show_error_details` is set. */
  [kServeErrorDetails](devMode: boolean): void {
    this.#errorDetails = this.settings.show_error_details ?? devMode
  }

  /**
   * Register a dashboard page at `path`: `app.page('/', (st, client) => { ... })` or
   * `app.page('/reports', { title: 'Reports' }, (st, client, deps) => { ... })`.
   */
  page(path: string, handler: PageHandler<{}>): this
  page<const I extends InjectMap = {}>(path: string, options: PageOptions<I>, handler: PageHandler<I>): this
  page(path: string, a: PageOptions<InjectMap> | PageHandlerLike, b?: PageHandlerLike): this {
    const [options, handler] = typeof a === 'function' ? [{}, a] : [a, b]
    if (typeof handler !== 'function') {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `app.page(${JSON.stringify(path)}): the last argument must be the page function (st, client, deps) => ...`)
    }
    this.#pages.add(path, options as PageOptionsLike, handler as PageHandlerLike)
    return this
  }

  /**
   * Decide per session which pages it may see: `fn` gets the signed-in user, the socket's headers
   * and cookies, the session state and every page, and returns the visible ones in sidebar order.
   * Hidden pages leave the sidebar and show "not available" at their URL. Runs on every page run.
   * `options.position` puts the page links in the sidebar (default), a bar along the top, or
   * nowhere; `app.navigation({ position: 'top' })` moves them without choosing pages.
   */
  navigation(fn: NavigationFn, options?: NavigationOptions): this
  navigation(options: NavigationOptions): this
  navigation(a: NavigationFn | NavigationOptions, b: NavigationOptions = {}): this {
    const [fn, options] = typeof a === 'function' ? [a, b] : [null, a]
    if (fn === null && (typeof options !== 'object' || options === null)) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', 'app.navigation(fn): pass a function (nav) => pages, e.g. (nav) => nav.pages.filter((p) => p.section !== "Admin" || nav.user.isLoggedIn)')
    }
    const position = options.position ?? 'sidebar'
    if (!NAVIGATION_POSITIONS.includes(position)) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `app.navigation(): position must be one of ${NAVIGATION_POSITIONS.map((p) => `'${p}'`).join(', ')}, got ${JSON.stringify(position)}`)
    }
    if (fn !== null) this.#navigation = fn
    this.#navigationPosition = position
    return this
  }

  /**
   * Declare a task: work a page starts with `st.task(key, task, { input })` that runs outside the
   * page run, on the page server's task threads (CPU it burns never stalls a page), reports
   * progress and partial results, and can be cancelled (docs/pages.md#tasks). Declare tasks at
   * the app module's top level: each task thread loads the app and finds the task by `name`.
   */
  task<I = void, R = unknown, P = never>(name: string, fn: TaskFn<I, R, P>): TaskDefinition<I, R, P> {
    return defineTask(this.#tasks, name, fn)
  }

  /**
   * Declare a typed API route: Fastify's route options with zod schemas (`querystring`, `params`,
   * `body`, `headers`, `response`), which type the handler's request and reply, validate both at
   * run time and describe the route in the OpenAPI document. Returns the route's handle for
   * typed calls from pages: `client.call(listOrders, { query: { region } })`.
   */
  route<const M extends HTTPMethods, const U extends string, const S extends RouteSchema = {}>(options: TypedRouteOptions<M, U, S>): RouteHandle<M, U, S> {
    return registerRoute(this.api, options)
  }

  /**
   * Declare a typed route that answers with Server-Sent Events: the handler returns (an async
   * iterable of) values of `events`, each sent as one event. Pages read it with
   * `client.stream(handle, input)`.
   */
  sseRoute<const M extends HTTPMethods, const U extends string, E extends ZodSchema, const S extends RouteSchema = {}>(
    options: SseRouteOptions<M, U, S, E>,
  ): SseRouteHandle<M, U, S, E> {
    return registerSseRoute(this.api, options)
  }

  /**
   * Add the OIDC login routes (`{api}/auth/login`, `/auth/callback`, `/auth/exchange`) with the
   * public base URL and first-party secret from settings. Returns the guard for the tokens it mints.
   */
  attachOidcLogin(client: OIDCProvider, options?: AttachOidcLoginOptions): OidcLogin {
    const login = attachOidcLogin(this, client, options)
    if (login.config.userCookieName !== false) {
      this.#identity ??= new OidcPageIdentity(this.settings.api_mount_path)
      this.#identity.add(login.config)
    }
    return login
  }

  /** The registered pages, in registration order. */
  get pages(): readonly PageRecord<PageHandlerLike, PageOptionsLike>[] {
    return this.#pages.records
  }
}

/**
 * Any app, whatever its secrets schema: what helpers that take an app (`SvcTestClient`,
 * `loadApp`) accept, so `new Svc({ secrets })` passes where `Svc` alone would not.
 */
export type AnySvc = Svc<SecretsSchema | undefined>

/** Loose shapes here; the page runtime (`svc/ui`) gives them their precise types. */
export type PageHandlerLike = (...args: never[]) => unknown
export type PageOptionsLike = Record<string, unknown>

/** Whether `value` is an app (`new Svc()`), also one made by another copy of svc. */
export function isSvc(value: unknown): value is Svc {
  return isSvcApp(value)
}
