/**
 * `svc`: the app object and what pages and tests import most. Subpaths hold the rest:
 * `svc/logging`, `svc/tracing`, `svc/auth`, `svc/auth/ui`, `svc/client`, `svc/testing`, `svc/ui`,
 * `svc/gateway/metrics`.
 */
export { Svc, isSvc } from './app.js'
export type { AnySvc, SvcOptions } from './app.js'
export type { RouteHandle, RouteSchema, SseRouteHandle, SseRouteOptions, SvcApi, TypedRequest, TypedReply, TypedRouteOptions } from './api/route.js'
/** zod, as svc uses it: declare typed routes with it without a dependency of your own. */
export { z } from './internal/zod.js'
export { SvcError, isSvcError, ERRORS } from './errors.js'
export type { SvcErrorCode } from './errors.js'
export type { ResolvedSettings, SettingsInput, SettingKey } from './settings/schema.js'
export type { Register, RegisteredSecrets } from './secrets/register.js'
export type { SecretsOf, SecretsSchema } from './secrets/secrets.js'

// Pages (svc/ui): the page entry, as it is
export * from './ui/pages.js'

// The API client pages get (svc/client)
export { ApiClient, ApiCallError, isApiCallError, getClient } from './client/index.js'
export type { ApiErrorBody, CallInput, CallResult, ErrorBody } from './client/index.js'

// Page auth helpers (svc/auth/ui)
export {
  prepareUiApiClient,
  exchangeAuthCodeFromQuery,
  bearerHeadersFromSession,
  accessTokenFromSession,
  clearAccessToken,
  DEFAULT_SESSION_KEY,
} from './auth/ui.js'

// In-process test client (svc/testing)
export { SvcTestClient } from './testing/index.js'
