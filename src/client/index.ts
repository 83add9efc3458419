export {
  ApiClient,
  ApiClientUsageError,
  apiRelativePath,
  getClient,
  DEFAULT_API_BASE,
  DEFAULT_TIMEOUT_MS,
} from './api-client.js'
export type {
  ApiClientOptions,
  ApiResponse,
  AuthHeaderFactory,
  ForSvcOptions,
  HeaderMap,
  RequestOptions,
} from './api-client.js'
