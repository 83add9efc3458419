export { JSON_LOG_BASE_FIELDS, GATEWAY_ACCESS_LOG_FIELDS } from './fields.js'
export { createRootLogger, childLogger, jsonLogOptions, requestChildLoggerFactory } from './logger.js'
export { JsonLogFormatter, LOG_REDACT_PATHS, bindRequestId, formatException } from './json-formatter.js'
export { ApiRequestLogController } from './api-request-log-class.js'
export { REQUEST_ID_HEADER, getRequestId, setRequestId, runWithRequestId } from './context.js'
export {
  REDACTED,
  DEFAULT_REDACTED_QUERY_KEYS,
  REDACTED_QUERY_KEY_WORDS,
  REDACTED_HEADER_NAMES,
  createQueryRedactor,
  redactAuthorization,
  redactHeaders,
  redactQuery,
  redactUrl,
  redactUrlsInText,
} from './redact.js'
export type { GatewayAccessLogField, JsonLogBaseField } from './fields.js'
export type { LoggerSettings, SvcLogger } from './logger.js'
export type { JsonLogFormatterOptions } from './json-formatter.js'
export type { ApiRequestLogSettings } from './api-request-log.js'
export type { HeaderInput } from './redact.js'
