import type { EffectProps } from '../../wire/elements.js'
import cssHref from './effects.css?url'
import { loadStylesheet } from './stylesheet.js'
import type { MountView } from './view.js'

/**
 * `st.balloons()` and `st.snow()`: an overlay of SVG shapes animated by CSS, removed when done.
 * Nothing is drawn when the visitor's system asks for reduced motion. Each piece gets its place,
 * size and timing as CSS custom properties (CSSOM, so a strict CSP needs no inline styles).
 */
const styles = loadStylesheet(new URL(cssHref, import.meta.url).href)
const SVG = 'http://www.w3.org/2000/svg'

type Kind = 'balloons' | 'snow'
const PIECES: Record<Kind, number> = { balloons: 28, snow: 70 }
/** Longest delay + duration in the stylesheet's ranges, plus a margin, in ms. */
const LIFETIME_MS: Record<Kind, number> = { balloons: 7_500, snow: 11_500 }

function shape(kind: Kind, i: number): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg')
  if (kind === 'balloons') {
    svg.setAttribute('viewBox', '0 0 40 90')
    svg.innerHTML = '<ellipse cx="20" cy="22" rx="17" ry="21" fill="currentColor"/><path d="M16 42h8l-4 5z" fill="currentColor"/><path d="M20 47c-5 10 5 16 0 26s4 12 0 16" stroke="currentColor" stroke-opacity=".55" fill="none"/><ellipse cx="13" cy="14" rx="4" ry="7" fill="#fff" fill-opacity=".35"/>'
    svg.style.setProperty('color', `var(--svc-chart-${(i % 10) + 1})`)
  } else {
    svg.setAttribute('viewBox', '0 0 24 24')
    svg.innerHTML = '<g stroke="currentColor" stroke-width="1.6" stroke-linecap="round"><path d="M12 2v20M3.3 7l17.4 10M3.3 17 20.7 7"/><path d="m9 3.5 3 2.5 3-2.5M9 20.5l3-2.5 3 2.5"/></g>'
  }
  return svg
}

function play(kind: Kind): void {
  if (window.matchMedia?.('(prefers-reduced-motion: reduce)').matches) return
  const layer = document.createElement('div')
  layer.className = `svc-effect svc-effect-${kind}`
  layer.setAttribute('aria-hidden', 'true')
  layer.dataset.testid = kind
  for (let i = 0; i < PIECES[kind]; i++) {
    const piece = document.createElement('span')
    piece.className = 'svc-effect-piece'
    piece.style.setProperty('--x', `${Math.random() * 100}vw`)
    piece.style.setProperty('--size', `${0.6 + Math.random() * 0.8}`)
    piece.style.setProperty('--delay', `${Math.random() * (kind === 'balloons' ? 1.5 : 3)}s`)
    piece.style.setProperty('--drift', `${(Math.random() - 0.5) * 12}vw`)
    piece.append(shape(kind, i))
    layer.append(piece)
  }
  void styles.then(() => document.body.append(layer), () => undefined)
  setTimeout(() => layer.remove(), LIFETIME_MS[kind])
}

/** Each new `nonce` (a run that called it) plays the animation once; it removes itself when done. */
function effect(kind: Kind): MountView<EffectProps> {
  return (_el, initial) => {
    let nonce = initial.nonce
    play(kind)
    return {
      ready: Promise.resolve(),
      view: {
        update(next) {
          if (next.nonce === nonce) return
          nonce = next.nonce
          play(kind)
        },
        // Leaving the page does not cut an animation short.
        destroy: () => undefined,
      },
    }
  }
}

export const balloons = effect('balloons')
export const snow = effect('snow')
