/** Cross-module internals of the app object; kept out of every public entry point. */
export const kSvcApp = Symbol.for('svc.app')
export const kServeHealth = Symbol('svc.serveHealth')
export const kPages = Symbol('svc.pages')
export const kSharedState = Symbol('svc.sharedState')
/** The settings given to `new Svc({...})`, as written: `svc config` names them as the source. */
export const kSettingsInput = Symbol('svc.settingsInput')
