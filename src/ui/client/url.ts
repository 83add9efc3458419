/** URL helpers: every path the client shows or sends is relative to the public base path. */

import { checkUrl, type UrlKind } from '../wire/url-policy.js'

/**
 * The URL to put in the DOM for an element of `kind` (as the parser reads it), or undefined when
 * the browser must neither load nor follow it: a scheme outside the element's allow-list, a
 * `data:` URL of another kind, or a path that leaves this origin (`//host`, `/\host`).
 */
export function safeUrl(value: string, kind: UrlKind, base: string = location.href): string | undefined {
  const checked = checkUrl(value, kind, base)
  return checked.ok ? checked.href : undefined
}

/** The page path of `pathname` under `basePath` ('/tools/reports' → '/reports'; outside → '/'). */
export function pagePathFromLocation(pathname: string, basePath: string): string {
  let rest = pathname
  if (basePath !== '') {
    if (pathname === basePath) return '/'
    if (!pathname.startsWith(`${basePath}/`)) return '/'
    rest = pathname.slice(basePath.length)
  }
  return rest === '' ? '/' : rest
}

/** The public URL of a page: basePath + path + optional query. */
export function pageHref(basePath: string, path: string, query = ''): string {
  const p = path.startsWith('/') ? path : `/${path}`
  const q = query.replace(/^\?/, '')
  return `${basePath}${p}${q === '' ? '' : `?${q}`}`
}

/** The WebSocket URL of the page stream under basePath, for the current origin. */
export function streamUrl(loc: Pick<Location, 'protocol' | 'host'>, basePath: string): string {
  const scheme = loc.protocol === 'https:' ? 'wss:' : 'ws:'
  return `${scheme}//${loc.host}${basePath}/_stcore/stream`
}

export function stripQuestionMark(search: string): string {
  return search.startsWith('?') ? search.slice(1) : search
}
