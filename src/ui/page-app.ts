import type { Logger } from 'pino'
import type { ThemeSettings } from '../settings/theme.js'
import type { CspSetting } from '../settings/csp.js'
import type { PageRecord } from './page-registry.js'
import { kSvcApp } from '../internal/symbols.js'
import type { SvcBrand } from '../internal/svc-brand.js'
import type { UserStore } from './storage/user-store.js'
import type { TaskDefinition } from './tasks/task-types.js'
import type { NavigationFn, NavigationPosition } from './navigation.js'
import type { PageIdentity } from '../auth/user.js'
import type { SessionRevocations } from '../auth/session-revocations.js'
import type { ResolvedSettings } from '../settings/schema.js'

/**
 * What the page side (page server, manifest, test handle, dev reload) needs of an app: plain
 * members, read from `Svc` through `pageSideOf`; src/ui depends on this, never on the `Svc` class,
 * its API half or its symbols. Absent optional members mean svc's defaults.
 */
export interface PageApp {
  readonly pages: readonly PageRecord[]
  readonly settings: {
    readonly title: string
    readonly debug: boolean
    readonly show_error_details?: boolean | null
    readonly theme: ThemeSettings
    readonly ui_csp?: CspSetting
    /** `icon`, `ui_map_style_url`, `ui_map_style_url_dark` (absent: svc's defaults). */
    readonly icon?: string
    readonly ui_map_style_url?: string
    readonly ui_map_style_url_dark?: string
    /** Whether the proxy in front is believed: `st.context.ipAddress` is then the address it reported. */
    readonly trust_proxy?: boolean
  }
  readonly logger: Logger
  /** `st.secrets` (the app's `app.secrets`; whatever its schema's shape). */
  readonly secrets?: object
  /** `app.navigation(fn)`: the pages each session may see. */
  readonly navigation?: NavigationFn | null
  /** `app.navigation(…, { position })`: where the page links show. */
  readonly navigationPosition?: NavigationPosition
  /** The app's OIDC login, for `st.user`, `st.login()` and `st.logout()`. */
  readonly identity?: PageIdentity | null
  /** `app.task(name, fn)`: the app's tasks by name. */
  readonly tasks?: ReadonlyMap<string, TaskDefinition>
  /** Where `st.userStorage` keeps users' values (Redis with `redis_url`, else files). */
  readonly userStore?: UserStore | null
}

/** Where page sessions are snapshotted so another replica can resume them (Redis). */
export interface PageSnapshotStore {
  set(key: string, value: string, ttlSeconds: number): Promise<void>
  get(key: string): Promise<string | null>
  expire(key: string, ttlSeconds: number): Promise<void>
  del(key: string): Promise<void>
  /** Connect now, not when the first browser fails over to this replica. */
  probe(): Promise<unknown>
}

/**
 * The app as the page server, the probe child, its page and task threads load it: also the
 * settings they run by (page threads, session TTL, run timeout, upload limit, logging) and the
 * shared state page sessions are snapshotted to. `Svc` provides it (`pageSideOf`).
 */
export interface PageServerApp extends PageApp {
  readonly settings: ResolvedSettings
  /** The shared Redis when `redis_url` is set, else null. */
  readonly pageSnapshotStore: PageSnapshotStore | null
  /** Sign-outs of the app's login: the page server is told of those made elsewhere in the tree. */
  readonly sessionRevocations: SessionRevocations
}

/** An app as its author holds it (`new Svc()`, from any copy of svc), whose page side can be read. */
export type SvcApp = SvcBrand<PageServerApp>

/** The app's page side: plain members the page runtime reads (live: a later `app.task` or login shows). */
export function pageSideOf(app: SvcApp): PageServerApp {
  return app[kSvcApp]()
}
