import { SvcError } from '../../errors.js'
import { checkUrl, type UrlKind } from '../wire/url-policy.js'

/**
 * A URL an `st` call was given, checked where the page calls it (the browser checks it again):
 * the parser's reading of it, whether it stays on this app's origin, and its path when it may
 * name a page. Anything else is a coded error naming the call, the value and why.
 */
export function checkedUrl(call: string, value: unknown, kind: UrlKind): { href: string; sameOrigin: boolean; path: string | null } {
  if (typeof value !== 'string') throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: expected a URL string, got ${typeof value}`)
  const checked = checkUrl(value, kind)
  if (!checked.ok) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: ${JSON.stringify(value.slice(0, 80))} cannot be used: ${checked.reason}`)
  return checked
}
