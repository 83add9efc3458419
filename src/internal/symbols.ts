/** Cross-module internals of the app object; kept out of every public entry point. */
export const kSvcApp = Symbol.for('svc.app')
export const kServeHealth = Symbol('svc.serveHealth')
/** The serving gateway says whether an API server error shows its message (`show_error_details`, dev mode). */
export const kServeErrorDetails = Symbol('svc.serveErrorDetails')
export const kPages = Symbol('svc.pages')
/** Symbol.for: the page server may run from another copy of svc than the one the app imported (tests, linked checkouts). */
export const kSharedState = Symbol.for('svc.sharedState')
/** `app.navigation(fn)` and the app's login as pages see it (Symbol.for, like kSharedState). */
export const kNavigation = Symbol.for('svc.navigation')
export const kIdentity = Symbol.for('svc.identity')
/** The settings given to `new Svc({...})`, as written: `svc config` names them as the source. */
export const kSettingsInput = Symbol('svc.settingsInput')
/** The app's tasks by name (`app.task`), which task threads look up (Symbol.for, like kNavigation). */
export const kTasks = Symbol.for('svc.tasks')
/** Per-user storage of signed-in users (`st.userStorage`): Redis when `redis_url` is set, else files. */
export const kUserStore = Symbol.for('svc.userStore')
