import type { GraphvizChartProps } from '../../wire/elements.js'
import cssHref from './graphviz.css?url'
import workerHref from './graphviz-worker.ts?worker'
import { loadStylesheet } from './stylesheet.js'
import type { MountView, ViewHost } from './view.js'

/**
 * `st.graphvizChart` (issue #36): the DOT is laid out by Graphviz in a worker (graphviz-worker.ts)
 * and the SVG it returns is read by the browser's XML parser, never run: only Graphviz's own
 * elements stay, links keep only URLs the page's URL policy allows, and black and white become
 * the theme's text colour and no background, so a graph reads in light and dark alike.
 */
const styles = loadStylesheet(new URL(cssHref, import.meta.url).href)
let worker: Worker | null = null
let next = 0
const waiting = new Map<number, (answer: { svg?: string; error?: string }) => void>()

function layout(dot: string): Promise<{ svg?: string; error?: string }> {
  if (!worker) {
    worker = new Worker(new URL(workerHref, import.meta.url), { type: 'module' })
    worker.onmessage = (e: MessageEvent<{ id: number; svg?: string; error?: string }>) => {
      waiting.get(e.data.id)?.(e.data)
      waiting.delete(e.data.id)
    }
    worker.onerror = (e) => {
      for (const done of waiting.values()) done({ error: `Graphviz could not start: ${e.message || 'the worker failed to load'}` })
      waiting.clear()
      worker = null
    }
  }
  const id = ++next
  worker.postMessage({ id, dot })
  return new Promise((resolve) => waiting.set(id, resolve))
}

const XLINK = 'http://www.w3.org/1999/xlink'
const KEEP = new Set(['svg', 'g', 'title', 'polygon', 'polyline', 'path', 'ellipse', 'circle', 'rect', 'line', 'text', 'tspan', 'a', 'defs', 'lineargradient', 'radialgradient', 'stop'])

/** Graphviz's SVG as an element fit for the page (see the module comment); null when it is not SVG. */
function clean(svg: string, host: ViewHost): SVGSVGElement | null {
  const doc = new DOMParser().parseFromString(svg, 'image/svg+xml')
  const root = doc.documentElement
  if (root.nodeName !== 'svg') return null
  for (const el of [...root.querySelectorAll('*')]) {
    if (!KEEP.has(el.localName.toLowerCase())) {
      el.remove()
      continue
    }
    for (const attr of [...el.attributes]) {
      const name = attr.name.toLowerCase()
      if (name.startsWith('on') || name === 'style') el.removeAttribute(attr.name)
      else if ((name === 'fill' || name === 'stroke') && /^(black|#000000)$/i.test(attr.value)) el.setAttribute(attr.name, 'currentColor')
    }
    if (el.localName === 'a') {
      const href = el.getAttribute('href') ?? el.getAttributeNS(XLINK, 'href')
      el.removeAttribute('href')
      el.removeAttributeNS(XLINK, 'href')
      const safe = href === null ? undefined : host.safeUrl(href, 'link')
      if (safe !== undefined) {
        el.setAttribute('href', safe)
        el.setAttribute('target', '_blank')
        el.setAttribute('rel', 'noopener noreferrer')
      }
    }
  }
  // The page's background shows through the graph's white one.
  root.querySelector('g.graph > polygon[fill="white"]')?.setAttribute('fill', 'none')
  return document.importNode(root, true) as unknown as SVGSVGElement
}

export const mount: MountView<GraphvizChartProps> = (el, initial, host) => {
  el.classList.add('svc-graphviz')
  let shown = ''
  let drawing = Promise.resolve()
  const update = (p: GraphvizChartProps) => {
    const signature = JSON.stringify(p)
    if (signature === shown) return
    shown = signature
    el.classList.toggle('is-wide', p.useContainerWidth)
    drawing = layout(p.dot).then((answer) => {
      if (shown !== signature) return
      const svg = answer.svg === undefined ? null : clean(answer.svg, host)
      if (svg === null) {
        const error = document.createElement('pre')
        error.className = 'svc-graphviz-error'
        error.textContent = answer.error ?? 'Graphviz returned no SVG'
        el.replaceChildren(error)
        return
      }
      svg.setAttribute('role', 'img')
      svg.setAttribute('aria-label', svg.querySelector('title')?.textContent ?? 'Graph')
      // The graph keeps its proportions inside the box these make (its viewBox is centred in it).
      if (p.useContainerWidth) svg.style.width = '100%'
      else if (p.width !== null) svg.style.width = `${p.width}px`
      if (p.height !== null) svg.style.height = `${p.height}px`
      el.replaceChildren(svg)
    })
  }
  update(initial)
  return { ready: Promise.all([styles, drawing]).then(() => undefined), view: { update, destroy: () => undefined } }
}
