import { z } from '../../internal/zod.js'
import { SvcError } from '../../errors.js'
import type { IframeOptions } from '../st-types.js'
import { checkUrl } from '../wire/url-policy.js'
import type { Emitter } from './run-context.js'

/**
 * `st.html(markup)` and `st.iframe(url | { srcdoc }, options)`. The markup travels as written and
 * is sanitized in the browser with DOMPurify, by the same parser that will read it (see
 * docs/pages.md, "HTML and iframes"); frames are always sandboxed on the client.
 */

const DEFAULT_IFRAME_HEIGHT = 150

const iframeOptions = z
  .object({
    height: z.number().int().min(10).max(10_000).optional(),
    width: z.number().int().positive().optional(),
    title: z.string().max(200).optional(),
    scrolling: z.boolean().optional(),
  })
  .strict()

export function html(em: Emitter, markup: string): void {
  if (typeof markup !== 'string') throw new SvcError('SVC_ERR_UI_BAD_CALL', `html(): pass the markup as a string, got ${markup === null ? 'null' : typeof markup}`)
  em.emit('html', { markup })
}

/**
 * What a frame may show: an http(s) URL, or a path of this app (`/api/report.html`; the client adds
 * the base path), read by the WHATWG parser as the browser will (`/\thost` is another site).
 */
export function frameUrl(url: string): string | null {
  const checked = checkUrl(url, 'link')
  if (!checked.ok) return null
  if (checked.sameOrigin) return checked.path === null ? null : checked.href
  return /^https?:/i.test(checked.href) ? checked.href : null
}

export function iframe(em: Emitter, source: string | { srcdoc: string }, input: IframeOptions = {}): void {
  const parsed = iframeOptions.safeParse(input)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `iframe(): option ${issue.path.join('.') || '(options)'} ${issue.message} (options: height, width, title, scrolling)`)
  }
  const o = parsed.data
  let src: string | null = null
  let srcdoc: string | null = null
  if (typeof source === 'string') {
    src = frameUrl(source)
    if (src === null) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `iframe(): "${source.slice(0, 80)}" is not an http(s) URL or a path of this app; for markup pass { srcdoc: "<p>…</p>" }`)
    }
  } else if (typeof source === 'object' && source !== null && typeof source.srcdoc === 'string') {
    srcdoc = source.srcdoc
  } else {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', 'iframe(): pass a URL string or { srcdoc: "<html>…" }')
  }
  em.emit('iframe', {
    src,
    srcdoc,
    height: o.height ?? DEFAULT_IFRAME_HEIGHT,
    width: o.width ?? null,
    title: o.title ?? (src ?? 'Embedded content'),
    scrolling: o.scrolling ?? false,
  })
}
