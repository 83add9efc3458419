import { escapeHtml } from '../markdown.js'

/**
 * The HTML document served for every page URL. URLs in it carry the base path, and the client
 * reads its config from a JSON script tag (no inline script, so a strict CSP works).
 */
export interface ShellConfig {
  basePath: string
  title: string
}

export function renderShell(config: ShellConfig): string {
  const json = JSON.stringify({ basePath: config.basePath, title: config.title }).replace(/</g, '\\u003c')
  const base = escapeHtml(config.basePath)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(config.title)}</title>
<link rel="stylesheet" href="${base}/_stcore/static/app.css">
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
