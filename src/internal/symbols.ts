/** Cross-module internals of the app object; kept out of every public entry point. */
/**
 * The brand of `new Svc()` and the door to its page side (src/internal/svc-brand.ts). Symbol.for:
 * the page server may run from another copy of svc than the one the app imported (tests, linked checkouts).
 */
export const kSvcApp = Symbol.for('svc.app')
export const kServeHealth = Symbol('svc.serveHealth')
/** The serving gateway says whether an API server error shows its message (`show_error_details`, dev mode). */
export const kServeErrorDetails = Symbol('svc.serveErrorDetails')
/** The settings given to `new Svc({...})`, as written: `svc config` names them as the source. */
export const kSettingsInput = Symbol('svc.settingsInput')
