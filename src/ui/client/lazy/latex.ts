import katex from 'katex'
import katexCss from 'katex/dist/katex.min.css?url'
import type { LatexProps } from '../../wire/elements.js'
import cssHref from './latex.css?url'
import { KATEX_FONTS } from './latex-fonts.js'
import { loadStylesheet } from './stylesheet.js'
import type { MountView } from './view.js'

/**
 * `st.latex` (issue #36): KaTeX typesets the TeX in display mode, as Streamlit does. KaTeX builds
 * the DOM and sets its inline sizes through the CSSOM, which svc's Content-Security-Policy allows.
 * Its stylesheet comes without its `@font-face` rules (scripts/build-client.mjs): the fonts are
 * registered here with the FontFace API from hashed files next to this chunk, and the browser
 * fetches only the ones a formula uses. An error in the TeX shows KaTeX's message in its place.
 */
const base = import.meta.url
const styles = Promise.all([loadStylesheet(new URL(katexCss, base).href), loadStylesheet(new URL(cssHref, base).href)])
for (const [family, style, weight, href] of KATEX_FONTS) {
  document.fonts.add(new FontFace(family, `url(${new URL(href, base).href}) format("woff2")`, { style, weight, display: 'block' }))
}

function draw(el: HTMLElement, p: LatexProps): void {
  el.title = p.help ?? ''
  try {
    katex.render(p.body, el, { displayMode: true, throwOnError: true, output: 'htmlAndMathml' })
  } catch (e) {
    const error = document.createElement('code')
    error.className = 'svc-latex-error'
    error.textContent = e instanceof Error ? e.message : String(e)
    el.replaceChildren(error)
  }
}

export const mount: MountView<LatexProps> = (el, initial) => {
  el.classList.add('svc-latex')
  let body: string | null = null
  const update = (p: LatexProps) => {
    if (p.body === body && el.title === (p.help ?? '')) return
    body = p.body
    draw(el, p)
  }
  update(initial)
  return { ready: styles.then(() => document.fonts.ready).then(() => undefined), view: { update, destroy: () => undefined } }
}
