import type { CspAdditions } from './csp.js'

/**
 * The basemap styles `st.map` draws on (settings `ui_map_style_url`, `ui_map_style_url_dark`).
 * The defaults are OpenFreeMap's (https://openfreemap.org): public, no API key, no usage limit.
 * Shared by the settings (defaults), the page server (what it tells the browser) and the map chunk.
 */
export const DEFAULT_MAP_STYLE_URL = 'https://tiles.openfreemap.org/styles/positron'
export const DEFAULT_MAP_STYLE_URL_DARK = 'https://tiles.openfreemap.org/styles/dark'

export interface MapStyles {
  light: string
  dark: string
}

/** A style URL setting: an http(s) URL, or a path of this app (the browser adds the root path). */
export function isMapStyleUrl(value: string): boolean {
  return /^https?:\/\/[^\s/]\S*$/i.test(value) || /^\/(?![/\\])\S*$/.test(value)
}

/**
 * Light and dark style from the two settings. An empty dark setting means OpenFreeMap's dark
 * style while the light one is the default, else the light style in both modes: a self-hosted
 * basemap never sends visitors to a public tile server.
 */
export function mapStyles(light: string, dark: string): MapStyles {
  return { light, dark: dark !== '' ? dark : light === DEFAULT_MAP_STYLE_URL ? DEFAULT_MAP_STYLE_URL_DARK : light }
}

/**
 * What the pages' Content-Security-Policy must allow for the map (page-csp.ts): the origin of each
 * style URL, for the style, tiles, glyphs and sprites it loads (`connect-src`) and images drawn
 * from them (`img-src`). A style that loads from further hosts needs those in `ui_csp`.
 */
export function mapCspNeed(settings: { readonly ui_map_style_url?: string; readonly ui_map_style_url_dark?: string }): CspAdditions | null {
  const { light, dark } = mapStyles(settings.ui_map_style_url ?? DEFAULT_MAP_STYLE_URL, settings.ui_map_style_url_dark ?? '')
  const origins = [...new Set([light, dark].filter((u) => /^https?:/i.test(u)).map((u) => new URL(u).origin))]
  return origins.length === 0 ? null : { 'connect-src': origins, 'img-src': origins }
}
