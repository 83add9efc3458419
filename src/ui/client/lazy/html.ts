import DOMPurify from 'dompurify'
import type { HtmlProps } from '../../elements.js'
import type { MountView } from './view.js'

/**
 * `st.html`: the page's markup, sanitized here with DOMPurify before it reaches the DOM. The
 * browser's own parser reads it, so what DOMPurify checks is what the page shows (a server-side
 * parser could read the same bytes differently). Scripts, event handlers, `javascript:` URLs,
 * frames, objects and form controls are removed; styles and SVG stay. Links that open a new tab
 * get `rel="noopener noreferrer"`.
 */
const purify = DOMPurify(window)
purify.addHook('afterSanitizeAttributes', (el) => {
  if (el.tagName === 'A' && el.getAttribute('target') === '_blank') el.setAttribute('rel', 'noopener noreferrer')
})
const CONFIG = { ADD_ATTR: ['target'], FORBID_TAGS: ['form', 'input', 'button', 'textarea', 'select'] }

export const mount: MountView<HtmlProps> = (el, initial) => {
  el.classList.add('svc-html')
  let markup: string | null = null
  const draw = (p: HtmlProps) => {
    if (p.markup === markup) return
    markup = p.markup
    el.innerHTML = purify.sanitize(markup, CONFIG)
  }
  draw(initial)
  return { ready: Promise.resolve(), view: { update: draw, destroy: () => undefined } }
}
