export {
  ApiClient,
  ApiClientUsageError,
  apiRelativePath,
  getClient,
  DEFAULT_API_BASE,
  DEFAULT_TIMEOUT_MS,
} from './api-client.js'
export { ApiCallError, isApiCallError } from './api-call-error.js'
export { ApiEventStream } from './typed-answers.js'
export type {
  ApiClientOptions,
  ApiResponse,
  AuthHeaderFactory,
  FetchLike,
  ForSvcOptions,
  HeaderMap,
  RequestOptions,
} from './api-client.js'
export type { ApiCallErrorCode } from './api-call-error.js'
export type { ApiErrorBody, ApiIssue, CallArgs, CallInput, CallOptions, CallResult, ErrorBody, EventOf } from './typed-call.js'
