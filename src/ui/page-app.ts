import type { Logger } from 'pino'
import type { ThemeSettings } from '../settings/theme.js'
import type { CspSetting } from '../settings/csp.js'
import type { PageRecord } from './page-registry.js'
import type { kIdentity, kNavigation } from '../internal/symbols.js'
import type { NavigationFn } from './navigation.js'
import type { PageIdentity } from '../auth/user.js'

/**
 * What the page side (page server, manifest, test handle, dev reload) needs of an app. `Svc`
 * satisfies it; src/ui depends on this, never on the `Svc` class and its API half.
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
  }
  readonly logger: Logger
  /** `st.secrets` (the app's `app.secrets`). */
  readonly secrets?: Readonly<Record<string, unknown>>
  /** `app.navigation(fn)`: the pages each session may see. */
  readonly [kNavigation]?: NavigationFn | null
  /** The app's OIDC login, for `st.user`, `st.login()` and `st.logout()`. */
  readonly [kIdentity]?: PageIdentity | null
}
