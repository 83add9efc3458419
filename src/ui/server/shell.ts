import { escapeHtml } from '../markdown.js'
import type { MapStyles } from '../map-style.js'

/**
 * The HTML document served for every page URL. URLs in it carry the base path, and the client
 * reads its config from a JSON script tag (no inline script or style, so a strict CSP works).
 * `theme.js` is a tiny blocking script in <head>: it sets `data-theme` on <html> from the
 * visitor's stored choice or `prefers-color-scheme` before the first paint, so a dark page never
 * flashes light. `data-theme-default` carries the app's `theme.base` to it.
 */
export interface ShellConfig {
  basePath: string
  title: string
  themeBase: 'system' | 'light' | 'dark'
  /** `st.map`'s basemap styles when the app sets them; null leaves them to the map chunk (and out of every page). */
  mapStyle?: MapStyles | null
  /** The app icon's URL and type (`/favicon.ico` under the base path, or the icon's own URL). */
  icon?: { href: string; type: string | null }
}

export function renderShell(config: ShellConfig): string {
  const json = JSON.stringify({ basePath: config.basePath, title: config.title, ...(config.mapStyle ? { mapStyle: config.mapStyle } : {}) }).replace(/</g, '\\u003c')
  const base = escapeHtml(config.basePath)
  const icon = config.icon ? `\n<link rel="icon" href="${escapeHtml(config.icon.href)}"${config.icon.type ? ` type="${config.icon.type}"` : ''}>` : ''
  return `<!doctype html>
<html lang="en" data-theme-default="${config.themeBase}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(config.title)}</title>${icon}
<script src="${base}/_stcore/static/theme.js"></script>
<link rel="stylesheet" href="${base}/_stcore/static/app.css">
<link rel="stylesheet" href="${base}/_stcore/theme.css">
<script type="application/json" id="svc-config">${json}</script>
<script type="module" src="${base}/_stcore/static/app.js"></script>
</head>
<body>
<div id="root"></div>
<noscript>This dashboard needs JavaScript.</noscript>
</body>
</html>
`
}
