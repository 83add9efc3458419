import { escapeHtml } from '../markdown.js'
import type { MapStyles } from '../../settings/map-style.js'
import { STATIC_PREFIX } from './static-files.js'

/**
 * The HTML document served for every page URL. URLs in it carry the base path and the
 * content-hashed names of the build (so everything it links is cached for good and only this
 * document is fetched again on a repeat visit), and the client reads its config from a JSON script
 * tag: no inline script or style, so the page CSP needs no 'unsafe-inline'.
 * `theme.js` is a tiny blocking script in <head>: it sets `data-theme` on <html> from the
 * visitor's stored choice or `prefers-color-scheme` before the first paint, so a dark page never
 * flashes light. `data-theme-default` carries the app's `theme.base` to it.
 */
export interface ShellConfig {
  basePath: string
  title: string
  themeBase: 'system' | 'light' | 'dark'
  /** Files under `{base}/_stcore/static/`: the hashed client entries, and the theme stylesheet (null when the theme sets nothing). */
  assets: { appJs: string; appCss: string; themeJs: string; themeCss: string | null }
  /** CSS files of lazy chunks, by chunk (see src/ui/client/chunk-styles.ts); empty for most builds. */
  chunkStyles: Readonly<Record<string, string>>
  /** `st.map`'s basemap styles when the app sets them; null leaves them to the map chunk (and out of every page). */
  mapStyle?: MapStyles | null
  /** The app icon's URL and type (`/favicon.ico` under the base path, or the icon's own URL); none: the browser asks `/favicon.ico` itself. */
  icon?: { href: string; type: string | null }
}

export function renderShell(config: ShellConfig): string {
  const base = config.basePath
  const url = (name: string): string => escapeHtml(`${base}${STATIC_PREFIX}${name}`)
  const styles = Object.fromEntries(Object.entries(config.chunkStyles).map(([chunk, file]) => [chunk, `${base}${STATIC_PREFIX}${file}`]))
  const client = {
    basePath: base,
    title: config.title,
    ...(Object.keys(styles).length > 0 ? { chunkStyles: styles } : {}),
    ...(config.mapStyle ? { mapStyle: config.mapStyle } : {}),
  }
  const json = JSON.stringify(client).replace(/</g, '\\u003c')
  const { assets } = config
  const icon = config.icon ? `\n<link rel="icon" href="${escapeHtml(config.icon.href)}"${config.icon.type ? ` type="${config.icon.type}"` : ''}>` : ''
  return `<!doctype html>
<html lang="en" data-theme-default="${config.themeBase}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(config.title)}</title>${icon}
<script src="${url(assets.themeJs)}"></script>
<link rel="stylesheet" href="${url(assets.appCss)}">
${assets.themeCss === null ? '' : `<link rel="stylesheet" href="${url(assets.themeCss)}">\n`}<script type="application/json" id="svc-config">${json}</script>
<script type="module" src="${url(assets.appJs)}"></script>
</head>
<body>
<div id="root"></div>
<noscript>This dashboard needs JavaScript.</noscript>
</body>
</html>
`
}
