import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { SvcError as SourceSvcError, isSvcError as sourceIsSvcError } from '../../src/errors.js'

/**
 * Every public subpath, imported the way users do: through the package name (self-reference
 * resolves to dist/, so `npm test` builds first). Each lists the names its docs promise; a
 * subpath added to package.json without a row here fails the first test.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
  name: string
  exports: Record<string, string | { types: string; default: string }>
}
const require = createRequire(import.meta.url)

type Kind = 'function' | 'object' | 'string' | 'number'

const EXPECTED: Record<string, Record<string, Kind>> = {
  '.': {
    Svc: 'function',
    isSvc: 'function',
    SvcError: 'function',
    isSvcError: 'function',
    ERRORS: 'object',
    SvcTestClient: 'function',
    ApiClient: 'function',
    ApiCallError: 'function',
    isApiCallError: 'function',
    getClient: 'function',
    z: 'object',
    uiMainPath: 'function',
    Depends: 'function',
    Header: 'function',
    Cookie: 'function',
    PageMetaSchema: 'object',
    parseQueryParams: 'function',
    ensureUrlSession: 'function',
    hydrateUrlSession: 'function',
    persistUrlSession: 'function',
    InMemorySessionStore: 'function',
    isRunSignal: 'function',
    columnConfig: 'object',
    cacheData: 'function',
    cacheResource: 'function',
    declareComponent: 'function',
    prepareUiApiClient: 'function',
    exchangeAuthCodeFromQuery: 'function',
    bearerHeadersFromSession: 'function',
    accessTokenFromSession: 'function',
    clearAccessToken: 'function',
    DEFAULT_SESSION_KEY: 'string',
  },
  './logging': {
    JSON_LOG_BASE_FIELDS: 'object',
    GATEWAY_ACCESS_LOG_FIELDS: 'object',
    createRootLogger: 'function',
    childLogger: 'function',
    jsonLogOptions: 'function',
    requestChildLoggerFactory: 'function',
    JsonLogFormatter: 'function',
    LOG_REDACT_PATHS: 'object',
    bindRequestId: 'function',
    formatException: 'function',
    ApiRequestLogController: 'function',
    REQUEST_ID_HEADER: 'string',
    getRequestId: 'function',
    setRequestId: 'function',
    runWithRequestId: 'function',
    REDACTED: 'string',
    DEFAULT_REDACTED_QUERY_KEYS: 'object',
    REDACTED_QUERY_KEY_WORDS: 'object',
    REDACTED_HEADER_NAMES: 'object',
    createQueryRedactor: 'function',
    redactAuthorization: 'function',
    redactHeaders: 'function',
    redactQuery: 'function',
    redactUrl: 'function',
    redactUrlsInText: 'function',
  },
  './logging/context': {
    REQUEST_ID_HEADER: 'string',
    getRequestId: 'function',
    setRequestId: 'function',
    runWithRequestId: 'function',
  },
  './logging/redact': {
    REDACTED: 'string',
    DEFAULT_REDACTED_QUERY_KEYS: 'object',
    REDACTED_QUERY_KEY_WORDS: 'object',
    REDACTED_HEADER_NAMES: 'object',
    redactAuthorization: 'function',
    createQueryRedactor: 'function',
    redactQuery: 'function',
    redactUrl: 'function',
    redactUrlsInText: 'function',
    redactCredentialsInText: 'function',
    redactHeaders: 'function',
  },
  './logging/json-formatter': {
    JsonLogFormatter: 'function',
    LOG_REDACT_PATHS: 'object',
    formatException: 'function',
    bindRequestId: 'function',
  },
  './gateway/metrics': {
    GATEWAY_PROMETHEUS_METRICS: 'object',
    TREE_PROMETHEUS_METRICS: 'object',
    GATEWAY_DURATION_BUCKETS: 'object',
    isPromClientAvailable: 'function',
    createGatewayMetrics: 'function',
    aggregateWorkerMetrics: 'function',
    metricsPathConflict: 'function',
  },
  './tracing': {
    setTraceHook: 'function',
    resetTraceHook: 'function',
    hasTraceHook: 'function',
    traceSpan: 'function',
    withTraceSpan: 'function',
  },
  './auth': {
    JWTBearer: 'function',
    TokenRejected: 'function',
    RequireScopes: 'function',
    RequireRoles: 'function',
    getClaims: 'function',
    findClaims: 'function',
    AUTH_DETAIL: 'object',
    issueAccessToken: 'function',
    isJoseAvailable: 'function',
    GenericOIDCClient: 'function',
    OidcDiscovery: 'object',
    registerOidcBffRoutes: 'function',
    attachOidcLogin: 'function',
    MemoryOidcBffStore: 'function',
    applyCors: 'function',
    corsOrigins: 'function',
    publicBaseUrlPrecedenceRow: 'function',
  },
  './auth/ui': {
    prepareUiApiClient: 'function',
    exchangeAuthCodeFromQuery: 'function',
    bearerHeadersFromSession: 'function',
    accessTokenFromSession: 'function',
    clearAccessToken: 'function',
    DEFAULT_SESSION_KEY: 'string',
    DEFAULT_AUTH_CODE_QUERY_KEY: 'string',
    DEFAULT_EXCHANGE_PATH: 'string',
  },
  './client': {
    ApiClient: 'function',
    ApiClientUsageError: 'function',
    ApiCallError: 'function',
    isApiCallError: 'function',
    ApiEventStream: 'function',
    apiRelativePath: 'function',
    getClient: 'function',
    DEFAULT_API_BASE: 'string',
    DEFAULT_TIMEOUT_MS: 'number',
  },
  './testing': {
    SvcTestClient: 'function',
    loadApp: 'function',
  },
  './ui': {
    uiMainPath: 'function',
    Depends: 'function',
    Header: 'function',
    Cookie: 'function',
    PageMetaSchema: 'object',
    parseQueryParams: 'function',
    ensureUrlSession: 'function',
    InMemorySessionStore: 'function',
    urlSessionEnabled: 'function',
    createUiTestHandle: 'function',
    buildPageManifest: 'function',
    renderMarkdown: 'function',
    isRunSignal: 'function',
    cacheData: 'function',
    cacheResource: 'function',
    CONTAINER_TYPES: 'object',
    WIDGET_TYPES: 'object',
    columnConfig: 'object',
    declareComponent: 'function',
    COMPONENT_PREFIX: 'string',
    DEFAULT_COMPONENT_VALUE_BYTES: 'number',
  },
  './component': {
    COMPONENT_PROTOCOL_VERSION: 'number',
    onRender: 'function',
    ready: 'function',
    setValue: 'function',
    setHeight: 'function',
    themeDocument: 'function',
    lastRender: 'function',
  },
}

const specifier = (subpath: string): string => (subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`)
const load = (subpath: string): Promise<Record<string, unknown>> => import(specifier(subpath)) as Promise<Record<string, unknown>>
const codeSubpaths = Object.keys(pkg.exports).filter((s) => s !== './package.json')

describe('package.json "exports"', () => {
  it('every code subpath is covered here, and nothing here is missing from package.json', () => {
    expect([...codeSubpaths].sort()).toEqual(Object.keys(EXPECTED).sort())
  })

  it.each(codeSubpaths)('%s: the types and the module it maps to exist in dist/', (subpath) => {
    const entry = pkg.exports[subpath]!
    expect(typeof entry).toBe('object')
    const { types, default: main } = entry as { types: string; default: string }
    expect(existsSync(ROOT + types), `${types} (run npx tsc -p tsconfig.build.json)`).toBe(true)
    expect(existsSync(ROOT + main), main).toBe(true)
    expect(require.resolve(specifier(subpath))).toBe(fileURLToPath(new URL(main, `file://${ROOT}`)))
  })

  it('exposes package.json', () => {
    expect((require(`${pkg.name}/package.json`) as { name: string }).name).toBe('svc')
  })
})

describe.each(Object.entries(EXPECTED))('import("%s")', (subpath, names) => {
  it('exposes its documented names, named exports only', async () => {
    const mod = await load(subpath)
    expect(mod.default, `${specifier(subpath)} must not have a default export`).toBeUndefined()
    const kinds = Object.fromEntries(Object.keys(names).map((n) => [n, typeof mod[n]]))
    expect(kinds).toEqual(names)
  })
})

describe('one module instance behind every subpath', () => {
  it('the root re-exports are the subpaths\' own objects', async () => {
    const [root, client, testing, authUi, ui] = await Promise.all(['.', './client', './testing', './auth/ui', './ui'].map(load))
    expect(root!.ApiClient).toBe(client!.ApiClient)
    expect(root!.ApiCallError).toBe(client!.ApiCallError)
    expect(root!.SvcTestClient).toBe(testing!.SvcTestClient)
    expect(root!.prepareUiApiClient).toBe(authUi!.prepareUiApiClient)
    expect(root!.uiMainPath).toBe(ui!.uiMainPath)
    expect(root!.parseQueryParams).toBe(ui!.parseQueryParams)
    expect(root!.columnConfig).toBe(ui!.columnConfig)
  })

  it('svc/logging re-exports context, redact and json-formatter', async () => {
    const [logging, context, redact, formatter] = await Promise.all(['./logging', './logging/context', './logging/redact', './logging/json-formatter'].map(load))
    for (const n of ['REQUEST_ID_HEADER', 'getRequestId', 'setRequestId', 'runWithRequestId']) expect(logging![n]).toBe(context![n])
    for (const n of ['redactQuery', 'redactHeaders', 'REDACTED']) expect(logging![n]).toBe(redact![n])
    for (const n of ['JsonLogFormatter', 'LOG_REDACT_PATHS']) expect(logging![n]).toBe(formatter![n])
  })
})

describe('the contract values', () => {
  it('log field names and the request ID header', async () => {
    const logging = await load('./logging')
    expect(logging.JSON_LOG_BASE_FIELDS).toEqual(['time', 'level', 'logger', 'message'])
    expect(logging.GATEWAY_ACCESS_LOG_FIELDS).toEqual(['request_id', 'svc_dispatch', 'http_method_or_type', 'path', 'query'])
    expect(logging.REQUEST_ID_HEADER).toBe('X-Request-ID')
  })

  it('getRequestId / setRequestId work inside runWithRequestId', async () => {
    const ctx = (await load('./logging/context')) as {
      getRequestId: () => string | undefined
      setRequestId: (id: string | undefined) => void
      runWithRequestId: <T>(id: string | undefined, fn: () => T) => T
    }
    expect(ctx.runWithRequestId('req-1', () => ctx.getRequestId())).toBe('req-1')
    expect(
      ctx.runWithRequestId('req-2', () => {
        ctx.setRequestId('req-3')
        return ctx.getRequestId()
      }),
    ).toBe('req-3')
  })

  it('the metrics catalogue names the two stable metrics with their buckets, and the queue-timeout counter', async () => {
    const metrics = (await load('./gateway/metrics')) as { GATEWAY_PROMETHEUS_METRICS: { name: string; stability: string; buckets?: readonly number[] }[] }
    const byName = new Map(metrics.GATEWAY_PROMETHEUS_METRICS.map((m) => [m.name, m]))
    expect([...byName.keys()].sort()).toEqual(['svc_gateway_request_duration_seconds', 'svc_gateway_requests_total', 'svc_gateway_upstream_queue_timeouts_total'])
    for (const m of byName.values()) expect(typeof m.stability).toBe('string')
    expect(byName.get('svc_gateway_request_duration_seconds')!.buckets).toEqual([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
  })

  it('the tree catalogue names the process-level series, all stable', async () => {
    const metrics = (await load('./gateway/metrics')) as { TREE_PROMETHEUS_METRICS: { name: string; type: string; labels: string[]; stability: string }[] }
    expect(metrics.TREE_PROMETHEUS_METRICS.map((m) => [m.name, m.type, m.labels.join(','), m.stability])).toEqual([
      ['svc_process_restarts_total', 'counter', 'role,reason', 'stable'],
      ['svc_process_resident_memory_bytes', 'gauge', 'role', 'stable'],
      ['svc_ui_page_sessions', 'gauge', '', 'stable'],
      ['svc_reloads_total', 'counter', 'result', 'stable'],
      ['svc_recycles_total', 'counter', 'role,reason', 'stable'],
    ])
  })

  it('setTraceHook installs a hook and returns a token that removes it', async () => {
    const tracing = (await load('./tracing')) as { setTraceHook: (h: unknown) => () => void; hasTraceHook: () => boolean }
    const remove = tracing.setTraceHook(() => ({ end() {} }))
    expect(tracing.hasTraceHook()).toBe(true)
    remove()
    expect(tracing.hasTraceHook()).toBe(false)
  })

  it('uiMainPath() points at the bundled page server in dist/', async () => {
    const ui = (await load('./ui')) as { uiMainPath: () => string }
    expect(existsSync(ui.uiMainPath())).toBe(true)
  })

  it('an SvcError from the built package is recognised by the source copy, and back', async () => {
    const built = (await load('.')) as { SvcError: typeof SourceSvcError; isSvcError: (v: unknown) => boolean }
    expect(built.SvcError).not.toBe(SourceSvcError)
    const fromBuilt = new built.SvcError('SVC_ERR_CONFIG_INVALID', 'x')
    expect(fromBuilt instanceof SourceSvcError).toBe(true)
    expect(sourceIsSvcError(fromBuilt)).toBe(true)
    expect(built.isSvcError(new SourceSvcError('SVC_ERR_CONFIG_INVALID', 'y'))).toBe(true)
  })
})
