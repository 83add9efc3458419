/**
 * Field catalogues of svc's log lines. Stable for 0.x dashboards and alerts: a name here keeps its
 * meaning; new names may be added.
 */

/** Base fields of every JSON log line: ISO-8601 `time`, `level` by name, `logger`, `message`. */
export const JSON_LOG_BASE_FIELDS = ['time', 'level', 'logger', 'message'] as const

/**
 * Fields of the gateway access-log record (logger `svc.gateway`). The record also carries
 * `status` and `duration_ms`, outside this stable list.
 */
export const GATEWAY_ACCESS_LOG_FIELDS = ['request_id', 'svc_dispatch', 'http_method_or_type', 'path', 'query'] as const

export type JsonLogBaseField = (typeof JSON_LOG_BASE_FIELDS)[number]
export type GatewayAccessLogField = (typeof GATEWAY_ACCESS_LOG_FIELDS)[number]
