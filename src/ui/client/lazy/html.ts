import DOMPurify from 'dompurify'
import type { HtmlProps } from '../../wire/elements.js'
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

const canAdopt = 'adoptedStyleSheets' in Document.prototype && typeof CSSStyleSheet.prototype.replaceSync === 'function'
/** Where a `style` attribute waits (a data attribute, which DOMPurify keeps) until it is applied through the CSSOM. */
const STYLE_ATTR = 'data-svc-style'

/**
 * svc's Content-Security-Policy refuses `<style>` elements and `style` attributes, and Chromium
 * checks (and reports) them even in the inert documents DOMPurify parses into. So the markup is
 * first read in a `<template>` (inert, outside the policy): the text of each `<style>` is taken
 * out, to become a stylesheet adopted by the document (it applies to the whole page, as the
 * element would), and each `style` attribute waits in a data attribute; DOMPurify then sanitizes
 * what is left, and the attributes become inline styles through the CSSOM, which a CSP allows.
 */
function takeStyles(markup: string): { markup: string; css: string[] } {
  const template = document.createElement('template')
  template.innerHTML = markup
  const css: string[] = []
  for (const style of template.content.querySelectorAll('style')) {
    css.push(style.textContent ?? '')
    style.remove()
  }
  for (const el of template.content.querySelectorAll('[style]')) {
    el.setAttribute(STYLE_ATTR, el.getAttribute('style') ?? '')
    el.removeAttribute('style')
  }
  return { markup: template.innerHTML, css }
}

function adopt(css: string[]): CSSStyleSheet[] {
  if (!canAdopt) return []
  const sheets = css.map((text) => {
    const sheet = new CSSStyleSheet()
    sheet.replaceSync(text)
    return sheet
  })
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, ...sheets]
  return sheets
}

export const mount: MountView<HtmlProps> = (el, initial) => {
  el.classList.add('svc-html')
  let markup: string | null = null
  let sheets: CSSStyleSheet[] = []
  const drop = () => {
    if (sheets.length > 0) document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !sheets.includes(s))
    sheets = []
  }
  const draw = (p: HtmlProps) => {
    if (p.markup === markup) return
    markup = p.markup
    drop()
    const taken = takeStyles(markup)
    const clean = purify.sanitize(taken.markup, { ...CONFIG, RETURN_DOM_FRAGMENT: true })
    for (const styled of clean.querySelectorAll<HTMLElement | SVGElement>(`[${STYLE_ATTR}]`)) {
      styled.style.cssText = styled.getAttribute(STYLE_ATTR) ?? ''
      styled.removeAttribute(STYLE_ATTR)
    }
    sheets = adopt(taken.css)
    el.replaceChildren(clean)
  }
  draw(initial)
  return { ready: Promise.resolve(), view: { update: draw, destroy: drop } }
}
