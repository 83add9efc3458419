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
