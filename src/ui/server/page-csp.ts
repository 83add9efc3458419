import type { CspAdditions, CspSetting } from '../../settings/csp.js'
import type { PageApp } from '../page-app.js'
import { componentFrameOrigins } from '../components.js'
import { mapCspNeed } from '../../settings/map-style.js'

/**
 * The Content-Security-Policy sent with the HTML shell. svc's own policy allows what the page
 * client needs and nothing else: scripts, styles, fonts and connections (the page socket) from
 * the page's own origin; images and media also as `data:` / `blob:` URLs (uploads previewed,
 * generated images); frames of the own origin (st.pdf shows media files in one); no plugins, no
 * `<base>`. No 'unsafe-eval' (charts run their expressions in an interpreter) and no
 * 'unsafe-inline' (the shell has no inline script or style; elements style through CSSOM).
 *
 * It is composed: svc's defaults, then what elements need for the app's settings
 * (`ELEMENT_CSP_NEEDS`: an element that loads from another origin, such as a map's tile server,
 * adds that origin here from the setting that configures it, so users never edit the policy for
 * it), then the app's `ui_csp` additions. A `ui_csp` string replaces all of it.
 */
export const PAGE_CSP_DEFAULTS: Readonly<Record<string, readonly string[]>> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:', 'blob:'],
  'media-src': ["'self'", 'data:', 'blob:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'worker-src': ["'self'"],
  'frame-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
}

/** What an element needs in the policy, given the app's settings; null when it needs nothing there. */
export type ElementCspNeed = (settings: PageApp['settings']) => CspAdditions | null

/**
 * One entry per element that needs more than svc's defaults. `st.map`: the origin of its basemap
 * style URLs (its worker is a same-origin file: no `blob:`). Every other built-in element works
 * within the defaults.
 */
export const ELEMENT_CSP_NEEDS: readonly ElementCspNeed[] = [mapCspNeed]

/**
 * The policy of an app's pages: defaults, the elements' needs for its settings, the origins of
 * the app's `url` components (`declareComponent(name, { url })`, e.g. a dev server) in
 * `frame-src`, its `ui_csp`.
 */
export function appPageCsp(settings: PageApp['settings']): string | null {
  const origins = componentFrameOrigins()
  const components: CspAdditions | null = origins.length > 0 ? { 'frame-src': [...origins] } : null
  return pageCsp(settings.ui_csp ?? null, [...ELEMENT_CSP_NEEDS.map((need) => need(settings)), components])
}

/** Where a directive without a list of its own takes its sources from (CSP Level 3 fallbacks). */
const FALLBACK: Readonly<Record<string, readonly string[]>> = {
  'script-src-elem': ['script-src'],
  'script-src-attr': ['script-src'],
  'style-src-elem': ['style-src'],
  'style-src-attr': ['style-src'],
  'worker-src': ['child-src', 'script-src'],
  'frame-src': ['child-src'],
}
/** Directives that do not fall back to default-src: absent, they allow anything. */
const NO_DEFAULT = new Set(['base-uri', 'form-action', 'frame-ancestors'])

/**
 * The header value for the pages, or null to send none (`ui_csp: false`). `needs` are the
 * elements' additions for this app, applied before the app's own.
 */
export function pageCsp(setting: CspSetting, needs: readonly (CspAdditions | null)[] = []): string | null {
  if (setting === false) return null
  if (typeof setting === 'string') return setting
  const policy = new Map<string, string[]>(Object.entries(PAGE_CSP_DEFAULTS).map(([d, s]) => [d, [...s]]))
  for (const additions of [...needs, setting]) {
    if (additions) addSources(policy, additions)
  }
  return [...policy].map(([directive, sources]) => `${directive} ${sources.join(' ')}`).join('; ')
}

/**
 * Add sources to a directive. One without a list starts from the list it falls back to, so adding
 * `img-src cdn` to a policy that only has `default-src 'self'` keeps 'self'; `'none'` goes when
 * anything is added.
 */
function addSources(policy: Map<string, string[]>, additions: CspAdditions): void {
  for (const [directive, sources] of Object.entries(additions) as [string, string[]][]) {
    const list = policy.get(directive) ?? [...inherited(policy, directive)]
    const merged = list.filter((s) => s !== "'none'")
    for (const s of sources) if (!merged.includes(s)) merged.push(s)
    policy.set(directive, merged)
  }
}

function inherited(policy: Map<string, string[]>, directive: string): readonly string[] {
  for (const from of FALLBACK[directive] ?? []) {
    const list = policy.get(from)
    if (list) return list
  }
  return NO_DEFAULT.has(directive) ? [] : (policy.get('default-src') ?? [])
}
