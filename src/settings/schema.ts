import { z } from '../internal/zod.js'
import { FORWARD_HEADER_NAME, MAX_FORWARD_ALLOWLIST, isNeverForwarded } from './forward-headers.js'
import { themeSchema, type ThemeSettings } from './theme.js'
import { DEFAULT_MAP_STYLE_URL, isMapStyleUrl } from './map-style.js'
import { appIconProblem } from './app-icon.js'
import { cspSchema, parseCspEnv, type CspSetting } from './csp.js'

/**
 * Every svc setting, one row each: its zod schema (typed value), its default, and how a string
 * from the environment or a CLI flag becomes a value. Keys are the spec's snake_case names; the
 * environment variable of key `k` is `SVC_` + upper(k) unless `env` says otherwise.
 */

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const
const TRUE = new Set(['1', 'true', 'yes', 'on'])
const FALSE = new Set(['0', 'false', 'no', 'off', ''])

type FromString = (raw: string) => unknown

const asBool: FromString = (raw) => {
  const v = raw.trim().toLowerCase()
  if (TRUE.has(v)) return true
  if (FALSE.has(v)) return false
  return raw
}
/**
 * Numbers from strings are plain decimals only: `Number()` would also take `0x50`, `0b1` and, for
 * a count or a port, `1e3`. White space around the value is trimmed, as for booleans (a value
 * read from a file often ends in a newline; it never changes the number). A fraction setting
 * (seconds) keeps the exponent form, which is how `JSON.stringify` hands a tiny value to a child
 * process. Anything else stays a string, so the error shows what the user wrote.
 */
const PLAIN_INTEGER = /^-?\d+$/
const PLAIN_DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i
const plainNumber =
  (form: RegExp): FromString =>
  (raw) => {
    const value = raw.trim()
    return form.test(value) ? Number(value) : raw
  }
const asInteger = plainNumber(PLAIN_INTEGER)
const asNumber = plainNumber(PLAIN_DECIMAL)
const asString: FromString = (raw) => raw
const asJson: FromString = (raw) => {
  try {
    return JSON.parse(raw)
  } catch {
    return Symbol.for('svc.invalid-json')
  }
}
/** JSON array, or comma-separated names for convenience. */
const asList: FromString = (raw) => {
  const t = raw.trim()
  if (t.startsWith('[')) return asJson(t)
  return t === '' ? [] : t.split(',').map((s) => s.trim()).filter(Boolean)
}

/** `/api`, `api`, ` /api/ ` → `/api`; empty stays empty (the caller decides what empty means). */
export function normalizeMountPath(value: string): string {
  let v = value.trim()
  if (v === '' || v === '/') return ''
  if (!v.startsWith('/')) v = '/' + v
  while (v.endsWith('/')) v = v.slice(0, -1)
  return v
}

const mountPath = z
  .string()
  .transform(normalizeMountPath)
  .refine((v) => !/[?#%\\\s]/.test(v) && !v.split('/').some((s) => s === '.' || s === '..'), {
    message: 'must be a plain path like /api (no query, fragment, percent-encoding, backslash or dot segments)',
  })
const port = z.number().int().min(0).max(65535)
const seconds = z.number().min(0).max(86_400)
const headerName = z.string()

function countValidForwardNames(names: readonly string[]): number {
  const valid = new Set<string>()
  for (const raw of names) {
    const n = raw.trim().toLowerCase()
    if (n !== '' && !isNeverForwarded(n) && FORWARD_HEADER_NAME.test(n)) valid.add(n)
  }
  return valid.size
}

export const FIELDS = {
  title: { schema: z.string().min(1), default: 'svc', parse: asString },
  target: { schema: z.string().min(1), default: 'app:app', parse: asString, env: 'SVC_APP' },
  debug: { schema: z.boolean(), default: false, parse: asBool },
  log_level: { schema: z.enum(LOG_LEVELS), default: 'info' as (typeof LOG_LEVELS)[number], parse: asString },
  log_format: { schema: z.enum(['json', 'pretty']), default: 'json' as 'json' | 'pretty', parse: asString },
  enable_gateway_access_log: { schema: z.boolean(), default: false, parse: asBool },
  enable_request_logging: { schema: z.boolean(), default: false, parse: asBool },
  url_session_query_param: { schema: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/), default: 'svc_sid', parse: asString },
  redact_query_params: {
    schema: z.array(z.string().trim().min(1).max(128)).max(256),
    default: [] as string[],
    parse: asList,
  },
  api_mount_path: {
    schema: mountPath.transform((v) => (v === '' ? '/api' : v)),
    default: '/api',
    parse: asString,
  },
  root_path: { schema: mountPath, default: '', parse: asString },
  gateway_host: { schema: z.string().min(1), default: '127.0.0.1', parse: asString },
  gateway_port: { schema: port, default: 8000, parse: asInteger },
  workers: { schema: z.number().int().min(1).max(64), default: 1, parse: asInteger },
  /** A gateway worker whose resident memory passes this (MB) is replaced the no-drop way; 0 = never. */
  gateway_max_memory_mb: { schema: z.number().int().min(0), default: 0, parse: asInteger },
  /** A gateway worker that served this many requests (plus 0..gateway_max_requests_jitter) is replaced; 0 = never. */
  gateway_max_requests: { schema: z.number().int().min(0), default: 0, parse: asInteger },
  gateway_max_requests_jitter: { schema: z.number().int().min(0), default: 0, parse: asInteger },
  /** A page thread whose V8 heap passes this (MB) is replaced, its sessions moved with their state; 0 = never. */
  ui_page_thread_max_memory_mb: { schema: z.number().int().min(0), default: 0, parse: asInteger },
  /** How often the memory limits above are checked. */
  recycle_check_interval_s: { schema: seconds.min(0.1), default: 5, parse: asNumber },
  /** Write the JSON log of every svc process to this file (rotated) instead of stdout; '' = stdout. */
  log_file: { schema: z.string(), default: '', parse: asString },
  /** Rotate the log file when it reaches this size (`10m`, `512k`, `1g`; bytes without a unit); '' = by time only. */
  log_file_size: { schema: z.string().trim().toLowerCase().regex(/^(\d+[kmg]?)?$/, 'must be a size like 10m, 512k or 1g, or empty'), default: '10m', parse: asString },
  /** Also rotate every day or hour; '' = by size only. */
  log_file_frequency: { schema: z.enum(['daily', 'hourly', '']), default: 'daily' as 'daily' | 'hourly' | '', parse: asString },
  /** Rotated files kept besides the current one. */
  log_file_count: { schema: z.number().int().min(1).max(1000), default: 14, parse: asInteger },
  trust_proxy: { schema: z.boolean(), default: false, parse: asBool },
  public_base_url: { schema: z.string(), default: '', parse: asString },
  strict_public_base_url: { schema: z.boolean(), default: false, parse: asBool },
  gateway_max_proxy_request_body_bytes: {
    schema: z.number().int().min(0),
    default: 32 * 1024 * 1024, // 32 MiB; 0 = unlimited
    parse: asInteger,
  },
  gateway_proxy_buffer_disk_bytes: {
    schema: z.number().int().min(0),
    default: 256 * 1024 * 1024, // 256 MiB per worker of UI request bodies in temporary files; 0 = unlimited
    parse: asInteger,
  },
  gateway_ws_max_message_bytes: {
    // ws keeps the limit in a 32-bit integer; 0 = unlimited.
    schema: z.number().int().min(0).max(2 ** 31 - 1),
    default: 64 * 1024 * 1024, // 64 MiB: the built-in UI server's own limit
    parse: asInteger,
  },
  gateway_upstream_connect_timeout_s: { schema: seconds, default: 10, parse: asNumber },
  gateway_upstream_read_timeout_s: { schema: seconds, default: 120, parse: asNumber },
  gateway_client_header_timeout_s: { schema: seconds.min(0.1), default: 60, parse: asNumber },
  gateway_client_body_timeout_s: { schema: seconds.min(0.1), default: 60, parse: asNumber },
  gateway_keepalive_timeout_s: { schema: seconds.min(0.1), default: 5, parse: asNumber },
  /** Per worker; 0 = half the process's open-file limit (each proxied connection may hold an upstream socket too). */
  gateway_max_connections: { schema: z.number().int().min(0), default: 0, parse: asInteger },
  gateway_upstream_pool_size: { schema: z.number().int().min(1).max(65_536), default: 256, parse: asInteger },
  /** 0 = a request waits for a free upstream connection as long as it takes. */
  gateway_upstream_queue_timeout_s: { schema: seconds, default: 10, parse: asNumber },
  gateway_forward_client_headers: {
    schema: z
      .array(headerName)
      .max(256)
      .refine((names) => countValidForwardNames(names) <= MAX_FORWARD_ALLOWLIST, {
        message: `at most ${MAX_FORWARD_ALLOWLIST} header names (after dropping empty, invalid and never-forwarded ones)`,
      }),
    default: [] as string[],
    parse: asList,
  },
  enable_gateway_prometheus_metrics: { schema: z.boolean(), default: false, parse: asBool },
  gateway_prometheus_metrics_path: {
    schema: mountPath.transform((v) => (v === '' ? '/__svc/metrics' : v)),
    default: '/__svc/metrics',
    parse: asString,
  },
  enable_node_metrics: { schema: z.boolean(), default: false, parse: asBool },
  oidc_bff_secret: { schema: z.string(), default: '', parse: asString, secret: true },
  enable_security_headers: { schema: z.boolean(), default: false, parse: asBool },
  cors_allow_origins: {
    schema: z.array(z.string().min(1)),
    default: [] as string[],
    parse: asJson,
    example: '["https://app.example.com"]',
  },
  cors_allow_credentials: { schema: z.boolean(), default: false, parse: asBool },
  jwt_issuer: { schema: z.string(), default: '', parse: asString },
  jwt_audience: { schema: z.string(), default: '', parse: asString },
  jwt_hs256_secret: { schema: z.string(), default: '', parse: asString, secret: true },
  jwt_jwks_url: { schema: z.string(), default: '', parse: asString },
  jwt_leeway_seconds: { schema: z.number().int().min(0).max(3600), default: 0, parse: asInteger },
  pidfile: { schema: z.string().min(1), default: './.svc.pid', parse: asString },
  no_pidfile: { schema: z.boolean(), default: false, parse: asBool },
  shutdown_grace_s: { schema: seconds, default: 10, parse: asNumber },
  /** A reload keeps proxied WebSockets on the replaced worker this long (0 = close them at once). */
  gateway_ws_reload_grace_s: { schema: seconds, default: 60, parse: asNumber },
  gateway_start_timeout_s: { schema: seconds, default: 30, parse: asNumber },
  ui_command: {
    schema: z.array(z.string()).min(1).nullable(),
    default: null as string[] | null,
    parse: (raw: string) => (raw.trim() === '' ? null : asJson(raw)),
  },
  ui_health_path: { schema: z.string().startsWith('/').nullable(), default: null as string | null, parse: asString },
  ui_startup_timeout_s: { schema: seconds, default: 60, parse: asNumber },
  ui_session_ttl_s: { schema: seconds, default: 120, parse: asNumber },
  /** Worker threads running page sessions; null = max(2, available cores); 0 = in the page server's own thread. */
  /** Each thread holds a copy of the app (~90 MiB): two isolate one busy page; raise it for many concurrent heavy pages. */
  ui_page_threads: { schema: z.number().int().min(0).max(64), default: 2, parse: asInteger },
  /** A page thread that ran nothing this long is let go (its sessions move; the last one stops once no page is open); 0 = never. */
  ui_page_thread_idle_s: { schema: seconds, default: 120, parse: asNumber },
  /** Largest message a browser may send on the page socket, checked before it is read (close 1009); 0 = unlimited. */
  ui_max_message_bytes: {
    // ws keeps the limit in a 32-bit integer.
    schema: z.number().int().min(0).max(2 ** 31 - 1),
    default: 1024 * 1024, // 1 MiB: widget input; files go over the upload endpoint
    parse: asInteger,
  },
  /** Largest file one upload request may carry (`POST {root}/_stcore/upload`); 0 = unlimited. */
  ui_max_upload_bytes: { schema: z.number().int().min(0), default: 32 * 1024 * 1024, parse: asInteger },
  /** A page run longer than this is stopped (a page thread that never yields is replaced); 0 = no limit. */
  ui_run_timeout_s: { schema: seconds, default: 30, parse: asNumber },
  /** Worker threads that run tasks (`app.task`), started with the first task, stopped when idle; never page threads. */
  ui_task_threads: { schema: z.number().int().min(1).max(64), default: 2, parse: asInteger },
  /** Tasks running at once in this page server; more wait as `queued`. */
  ui_task_max_running: { schema: z.number().int().min(1).max(10_000), default: 8, parse: asInteger },
  /** Tasks one page session may have queued or running; one more is refused (SVC_ERR_UI_TASK_LIMIT). */
  ui_task_max_per_session: { schema: z.number().int().min(1).max(1_000), default: 4, parse: asInteger },
  /** A task running longer than this is cancelled and ends as an error; 0 = no limit. */
  ui_task_timeout_s: { schema: seconds, default: 3600, parse: asNumber },
  /** Key of signed cookies (`st.cookies.set(..., { signed: true })`) and of the page server's cookie tickets; '' = no signed cookies. */
  cookie_secret: { schema: z.string().refine((v) => v === '' || Buffer.byteLength(v) >= 32, { message: 'must be empty or at least 32 bytes (e.g. node -e "console.log(crypto.randomBytes(32).toString(\'base64url\'))")' }), default: '', parse: asString, secret: true },
  /** Per-user storage (`st.userStorage`) without Redis: one folder per signed-in user under this one. */
  ui_user_storage_dir: { schema: z.string().min(1), default: '.svc/user-storage', parse: asString },
  /** Largest value (JSON) one key of `st.userStorage` may hold. */
  ui_user_storage_max_value_bytes: { schema: z.number().int().min(64).max(16 * 1024 * 1024), default: 64 * 1024, parse: asInteger },
  /** Keys one signed-in user may keep in `st.userStorage`. */
  ui_user_storage_max_keys: { schema: z.number().int().min(1).max(10_000), default: 64, parse: asInteger },
  /**
   * Heap cap of each page thread (V8's old generation, MiB): a thread that reaches it is replaced
   * and its sessions resume, as after a crash; 0 = V8's default (about 2-4 GiB).
   */
  ui_page_thread_max_heap_mb: { schema: z.number().int().min(0).max(1_048_576), default: 512, parse: asInteger },
  /** null = by command: on under `svc dev` (and the test handle), off under `svc run` and `svc workbench`. */
  show_error_details: { schema: z.boolean().nullable(), default: null as boolean | null, parse: asBool },
  /** `svc dev` type-checks the project beside the tree (its own TypeScript and tsconfig.json); off: no checker. */
  dev_type_check: { schema: z.boolean(), default: true, parse: asBool },
  /** Shared state for several replicas (OIDC login state, URL sessions, page sessions); '' = in memory. */
  redis_url: {
    schema: z.string().trim().refine((v) => v === '' || /^rediss?:\/\/[^\s]+$/.test(v), {
      message: 'must be empty or a redis:// or rediss:// URL, e.g. redis://redis:6379/0',
    }),
    default: '',
    parse: asString,
    secret: true,
  },
  redis_key_prefix: { schema: z.string().regex(/^[A-Za-z0-9_.:{}-]{0,64}$/), default: 'svc:', parse: asString },
  /** Connect and per-command deadline; a Redis outage answers errors within it, never hangs a request. */
  redis_timeout_s: { schema: seconds.min(0.05), default: 1, parse: asNumber },
  /** JSON file of secrets (`app.secrets`), relative to the working directory; SVC_SECRET_* variables win over it. */
  secrets_file: { schema: z.string().min(1), default: '.svc/secrets.json', parse: asString },
  /** Largest value svc writes to or reads from Redis; Redis's own maximum string is 512 MiB. */
  redis_max_value_bytes: { schema: z.number().int().min(1024).max(512 * 1024 * 1024), default: 1024 * 1024, parse: asInteger },
  theme: { schema: themeSchema, default: {} as ThemeSettings, parse: asJson, example: '{"primaryColor":"#0f766e","base":"dark"}' },
  /** The app icon (favicon): '' = svc's own, an emoji, an http(s) URL, or an image file path (relative to the working folder). */
  icon: {
    schema: z.string().trim().superRefine((v, ctx) => {
      const problem = appIconProblem(v)
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem })
    }),
    default: '',
    parse: asString,
  },
  /** Basemap style of `st.map` (MapLibre style JSON): an http(s) URL or a path of this app. */
  ui_map_style_url: { schema: z.string().trim().refine(isMapStyleUrl, { message: mapStyleMessage() }), default: DEFAULT_MAP_STYLE_URL, parse: asString },
  /** The same in the dark theme; '' = OpenFreeMap's dark style while ui_map_style_url is the default, else ui_map_style_url. */
  ui_map_style_url_dark: { schema: z.string().trim().refine((v) => v === '' || isMapStyleUrl(v), { message: `must be empty or ${mapStyleMessage()}` }), default: '', parse: asString },
  /** The pages' Content-Security-Policy: null = svc's; an object adds sources per directive; a string replaces it; false = none. */
  ui_csp: {
    schema: cspSchema,
    default: null as CspSetting,
    parse: parseCspEnv,
    example: '{"img-src":["https://images.example.com"]}',
  },
} as const

function mapStyleMessage(): string {
  return 'must be an http(s) URL or a path of this app (starting with /) of a MapLibre style JSON, e.g. https://tiles.openfreemap.org/styles/liberty'
}

export type SettingKey = keyof typeof FIELDS

/** Fully resolved settings: every key present, typed, frozen. */
export type ResolvedSettings = Readonly<{
  [K in SettingKey]: z.output<(typeof FIELDS)[K]['schema']>
}>

/** What `new Svc({...})` and `svc.config.json` accept: any subset of the settings. */
export type SettingsInput = Partial<{
  [K in SettingKey]: z.input<(typeof FIELDS)[K]['schema']>
}>

export const SETTING_KEYS = Object.keys(FIELDS) as SettingKey[]

export function envNameOf(key: SettingKey): string {
  const field = FIELDS[key] as { env?: string }
  return field.env ?? `SVC_${key.toUpperCase()}`
}

export function isSecretSetting(key: SettingKey): boolean {
  return (FIELDS[key] as { secret?: boolean }).secret === true
}

export function parseFromString(key: SettingKey, raw: string): unknown {
  return FIELDS[key].parse(raw)
}

export const INVALID_JSON = Symbol.for('svc.invalid-json')
