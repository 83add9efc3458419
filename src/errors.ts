/**
 * The one catalogue of svc error codes. A shipped code keeps its name and meaning for good;
 * `test/unit/errors.test.ts` keeps this table and `docs/errors.md` in step.
 */
export const ERRORS = {
  // CONFIG: settings from options, svc.config.json, SVC_* env or CLI flags
  SVC_ERR_CONFIG_INVALID: { status: 500, error: 'config_invalid' },
  SVC_ERR_CONFIG_FILE: { status: 500, error: 'config_file_invalid' },
  SVC_ERR_CONFIG_SECRETS: { status: 500, error: 'secrets_invalid' },
  // TARGET: loading the user's app module
  SVC_ERR_TARGET_SYNTAX: { status: 500, error: 'target_invalid' },
  SVC_ERR_TARGET_NOT_FOUND: { status: 500, error: 'target_not_found' },
  SVC_ERR_TARGET_EXPORT_MISSING: { status: 500, error: 'target_export_missing' },
  SVC_ERR_TARGET_NOT_SVC: { status: 500, error: 'target_not_svc' },
  SVC_ERR_TARGET_IMPORT_FAILED: { status: 500, error: 'target_import_failed' },
  // IPC: control-plane messages between supervisor, gateways and sidecar
  SVC_ERR_IPC_BAD_MESSAGE: { status: 500, error: 'internal' },
  // STATE / PIDFILE
  SVC_ERR_STATE_INVALID: { status: 500, error: 'state_invalid' },
  SVC_ERR_STATE_MISSING: { status: 500, error: 'state_missing' },
  SVC_ERR_PIDFILE_INVALID: { status: 500, error: 'pidfile_invalid' },
  SVC_ERR_PIDFILE_IN_USE: { status: 500, error: 'pidfile_in_use' },
  SVC_ERR_PIDFILE_UNWRITABLE: { status: 500, error: 'pidfile_unwritable' },
  // PROCESS: supervisor-owned children
  SVC_ERR_PROCESS_PORT_IN_USE: { status: 500, error: 'port_in_use' },
  SVC_ERR_PROCESS_HOST_UNRESOLVABLE: { status: 500, error: 'host_unresolvable' },
  SVC_ERR_PROCESS_SIDECAR_EXIT: { status: 500, error: 'sidecar_exited' },
  SVC_ERR_PROCESS_SIDECAR_START: { status: 500, error: 'sidecar_start_failed' },
  SVC_ERR_PROCESS_WORKER_START: { status: 500, error: 'worker_start_failed' },
  SVC_ERR_PROCESS_WORKER_START_TIMEOUT: { status: 500, error: 'worker_start_timeout' },
  SVC_ERR_PROCESS_CRASH_LOOP: { status: 500, error: 'worker_crash_loop' },
  SVC_ERR_PROCESS_START_CANCELLED: { status: 500, error: 'start_cancelled' },
  SVC_ERR_PROCESS_RELOAD_REFUSED: { status: 500, error: 'reload_refused' },
  SVC_ERR_CONTROL_BAD_REQUEST: { status: 400, error: 'bad_control_request' },
  SVC_ERR_CONTROL_UNREACHABLE: { status: 500, error: 'control_unreachable' },
  // GATEWAY: answers the gateway gives itself
  SVC_ERR_GATEWAY_BAD_PATH: { status: 400, error: 'bad_request' },
  SVC_ERR_GATEWAY_BAD_UPGRADE: { status: 400, error: 'bad_request' },
  SVC_ERR_GATEWAY_NOT_FOUND: { status: 404, error: 'not_found' },
  SVC_ERR_GATEWAY_DRAINING: { status: 503, error: 'draining' },
  SVC_ERR_GATEWAY_INTERNAL: { status: 500, error: 'internal' },
  SVC_ERR_GATEWAY_METRICS_UNAVAILABLE: { status: 500, error: 'metrics_unavailable' },
  SVC_ERR_GATEWAY_BAD_REQUEST: { status: 400, error: 'bad_request' },
  SVC_ERR_GATEWAY_HEADER_TIMEOUT: { status: 408, error: 'request_timeout' },
  SVC_ERR_GATEWAY_BODY_TIMEOUT: { status: 408, error: 'request_timeout' },
  SVC_ERR_GATEWAY_HEADERS_TOO_LARGE: { status: 431, error: 'request_headers_too_large' },
  SVC_ERR_GATEWAY_EXPECTATION_FAILED: { status: 417, error: 'expectation_failed' },
  // PROXY: the HTTP hop to the sidecar
  SVC_ERR_PROXY_UPSTREAM: { status: 502, error: 'bad_gateway' },
  SVC_ERR_PROXY_UPSTREAM_TIMEOUT: { status: 502, error: 'bad_gateway' },
  SVC_ERR_PROXY_NO_UPSTREAM: { status: 502, error: 'bad_gateway' },
  SVC_ERR_PROXY_BODY_TOO_LARGE: { status: 413, error: 'payload_too_large' },
  SVC_ERR_PROXY_UPSTREAM_BUSY: { status: 503, error: 'upstream_busy' },
  SVC_ERR_PROXY_BUFFER_FULL: { status: 503, error: 'request_buffer_full' },
  // WS: the WebSocket hop to the sidecar
  SVC_ERR_WS_UPSTREAM: { status: 502, error: 'bad_gateway' },
  SVC_ERR_WS_BAD_HANDSHAKE: { status: 400, error: 'bad_request' },
  SVC_ERR_WS_VERSION: { status: 426, error: 'upgrade_required' },
  // API: the app's own routes
  SVC_ERR_API_INTERNAL: { status: 500, error: 'internal' },
  // AUTH
  SVC_ERR_AUTH_MISSING_DEPENDENCY: { status: 500, error: 'auth_unavailable' },
  SVC_ERR_AUTH_UNAUTHORIZED: { status: 401, error: 'unauthorized' },
  SVC_ERR_AUTH_FORBIDDEN: { status: 403, error: 'forbidden' },
  SVC_ERR_AUTH_BAD_STATE: { status: 400, error: 'bad_request' },
  SVC_ERR_AUTH_CONFIG: { status: 500, error: 'auth_config_invalid' },
  SVC_ERR_AUTH_IDP: { status: 502, error: 'idp_error' },
  // API: typed routes (zod schemas) of the app's own API
  SVC_ERR_API_BAD_REQUEST: { status: 400, error: 'bad_request' },
  SVC_ERR_API_BAD_RESPONSE: { status: 500, error: 'internal' },
  // CLIENT: ApiClient misuse, typed calls
  SVC_ERR_CLIENT_ABSOLUTE_PATH: { status: 500, error: 'client_bad_path' },
  SVC_ERR_CLIENT_CONFIG: { status: 500, error: 'client_config_invalid' },
  SVC_ERR_CLIENT_HTTP_ERROR: { status: 500, error: 'api_call_failed' },
  SVC_ERR_CLIENT_BAD_RESPONSE: { status: 500, error: 'client_bad_response' },
  // UI: page registration and page runs
  SVC_ERR_UI_DUPLICATE_PAGE: { status: 500, error: 'duplicate_page' },
  SVC_ERR_UI_DUPLICATE_WIDGET: { status: 500, error: 'duplicate_widget' },
  SVC_ERR_UI_BAD_QUERY: { status: 400, error: 'bad_query' },
  SVC_ERR_UI_WIDGET_STATE: { status: 500, error: 'widget_state' },
  SVC_ERR_UI_BAD_CALL: { status: 500, error: 'bad_page_call' },
  SVC_ERR_UI_SIDECAR_START: { status: 500, error: 'ui_start_failed' },
  SVC_ERR_UI_CACHE: { status: 500, error: 'page_cache' },
  SVC_ERR_UI_PAGE_THREAD: { status: 500, error: 'page_thread_failed' },
  SVC_ERR_UI_MESSAGE_TOO_LARGE: { status: 500, error: 'page_message_too_large' },
  SVC_ERR_UI_UPLOAD_TOO_LARGE: { status: 413, error: 'payload_too_large' },
  SVC_ERR_UI_UPLOAD_REJECTED: { status: 400, error: 'bad_request' },
  SVC_ERR_UI_UPLOAD_SESSION: { status: 404, error: 'session_not_found' },
  SVC_ERR_UI_RUN_TIMEOUT: { status: 500, error: 'page_run_timeout' },
  SVC_ERR_UI_INTERNAL: { status: 500, error: 'internal' },
  // REDIS: shared state across replicas (`redis_url`)
  SVC_ERR_REDIS_UNAVAILABLE: { status: 503, error: 'shared_state_unavailable' },
  SVC_ERR_REDIS_VALUE_TOO_LARGE: { status: 500, error: 'shared_state_value_too_large' },
  SVC_ERR_REDIS_REPLY_TOO_LARGE: { status: 503, error: 'shared_state_unavailable' },
  // TRACE: trace hooks
  SVC_ERR_TRACE_BAD_HOOK: { status: 500, error: 'trace_hook_invalid' },
} as const satisfies Record<`SVC_ERR_${string}`, { status: number; error: string }>

export type SvcErrorCode = keyof typeof ERRORS

/** The brand of every svc error (global, so every copy of svc in a process agrees). */
export const kSvcError = Symbol.for('svc.error')

/** Every error svc raises on purpose. Recognise it with `isSvcError(e)`, then `switch (e.code)`. */
export class SvcError extends Error {
  readonly [kSvcError] = true
  readonly code: SvcErrorCode
  constructor(code: SvcErrorCode, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'SvcError'
    this.code = code
  }

  get status(): number {
    return ERRORS[this.code].status
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return isSvcError(value)
  }
}

export function isSvcError(value: unknown): value is SvcError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kSvcError] === true
}

/** Rebuild an error that crossed a process boundary as `{ code, message }`. */
export function svcErrorFromData(data: { code: string; message: string }): SvcError {
  // Own keys only: `in` would also accept inherited names such as "toString".
  const code = (Object.hasOwn(ERRORS, data.code) ? data.code : 'SVC_ERR_IPC_BAD_MESSAGE') as SvcErrorCode
  return new SvcError(code, data.message)
}
