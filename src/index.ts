/**
 * `svc`: the app object and what pages and tests import most. Subpaths hold the rest:
 * `svc/logging`, `svc/tracing`, `svc/auth`, `svc/auth/ui`, `svc/client`, `svc/testing`, `svc/ui`.
 */
export { Svc, isSvc } from './app.js'
export type { SvcOptions } from './app.js'
export { SvcError, isSvcError, ERRORS } from './errors.js'
export type { SvcErrorCode } from './errors.js'
export type { ResolvedSettings, SettingsInput, SettingKey } from './settings/schema.js'
