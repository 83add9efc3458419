import embed from 'vega-embed'
import { expressionInterpreter } from 'vega-interpreter'
import type { VegaLiteChartProps } from '../../wire/elements.js'
import { cssVar, onThemeChange } from '../lazy/theme-mode.js'
import { propsChanged, type MountView } from '../lazy/view.js'

/**
 * The lazily loaded chart chunk: every chart element (the four builders and `vegaLiteChart`).
 * Compiles a Vega-Lite spec and renders it as SVG. Expressions run in vega-interpreter
 * (`ast: true`) instead of compiled code, so pages need no `unsafe-eval` in a CSP.
 */

type Config = Record<string, unknown>

const PALETTE_SIZE = 10

/** A Vega config from the page theme's CSS custom properties, read at render time. */
function themeConfig(): Config {
  const palette = Array.from({ length: PALETTE_SIZE }, (_v, i) => cssVar(`--svc-chart-${i + 1}`)).filter((c): c is string => c !== undefined)
  const muted = cssVar('--svc-text-muted')
  const grid = cssVar('--svc-border')
  const axis = { labelColor: muted, titleColor: muted, gridColor: grid, domainColor: cssVar('--svc-border-strong'), tickColor: grid, labelFontSize: 11, titleFontSize: 12, titleFontWeight: 500, labelPadding: 6 }
  return {
    background: 'transparent',
    font: cssVar('--svc-font'),
    view: { stroke: null },
    axis,
    axisX: { grid: false, labelAngle: 0, labelOverlap: true },
    legend: { labelColor: muted, titleColor: muted, labelFontSize: 12, symbolType: 'circle', symbolOpacity: 1 },
    title: { color: cssVar('--svc-text') },
    ...(palette.length ? { range: { category: palette }, mark: { color: palette[0] } } : {}),
    rule: { color: cssVar('--svc-text-faint') },
  }
}

/** Renders a spec into `target`; returns the function that tears the view down (listeners, timers, tooltip handler). */
async function renderVegaLite(target: HTMLElement, spec: Record<string, unknown>, config: Config | undefined): Promise<() => void> {
  const result = await embed(target, spec as never, {
    mode: 'vega-lite',
    renderer: 'svg',
    actions: false,
    defaultStyle: false,
    ast: true,
    expr: expressionInterpreter,
    ...(config ? { config: config as never } : {}),
    // The library's own tooltip stylesheet is an inline <style> (refused by the page CSP): charts.css has the rules.
    tooltip: { theme: 'svc', disableDefaultStyle: true },
  })
  // Vega follows window resizes only; a chart in a tab or column that changes width follows its box.
  let observer: ResizeObserver | null = null
  if (spec.width === 'container') {
    let last = target.clientWidth
    observer = new ResizeObserver(() => {
      const width = target.clientWidth
      if (width === last || width === 0) return
      last = width
      void result.view.width(width).runAsync()
    })
    observer.observe(target)
  }
  return () => {
    observer?.disconnect()
    result.finalize()
  }
}

export const mount: MountView<VegaLiteChartProps> = (el, initial) => {
  el.classList.add('svc-vega')
  let props = initial
  // Only a changed spec (or theme) re-renders the chart.
  const changed = propsChanged(props)
  let finalize: (() => void) | null = null
  let drawing = 0
  let destroyed = false
  let error: HTMLElement | null = null

  const draw = async () => {
    const mine = ++drawing
    const spec = { ...props.spec }
    if (props.useContainerWidth && ('mark' in spec || 'layer' in spec)) {
      spec.width = 'container'
      spec.autosize = { type: 'fit-x', contains: 'padding' }
    }
    const config = props.theme === 'svc' ? themeConfig() : undefined
    // Render into a fresh, hidden target and swap it in when done: a re-render never flashes empty
    // and never shows the old and the new chart together.
    const target = document.createElement('div')
    target.className = 'svc-vega-target is-pending'
    el.appendChild(target)
    try {
      const done = await renderVegaLite(target, spec, config)
      if (destroyed || mine !== drawing) {
        done()
        target.remove()
        return
      }
      finalize?.()
      finalize = done
      for (const child of [...el.children]) if (child !== target) child.remove()
      error = null
      target.classList.remove('is-pending')
    } catch (e) {
      target.remove()
      if (destroyed || mine !== drawing) return
      error ??= el.insertBefore(document.createElement('div'), el.firstChild)
      error.className = 'svc-vega-error'
      error.setAttribute('role', 'alert')
      error.textContent = `Chart error: ${e instanceof Error ? e.message : String(e)}`
    }
  }

  const stopTheme = onThemeChange(() => {
    if (props.theme === 'svc') void draw()
  })
  return {
    ready: draw(),
    view: {
      update(next) {
        if (!changed(next)) return
        props = next
        void draw()
      },
      destroy() {
        destroyed = true
        stopTheme()
        finalize?.()
      },
    },
  }
}
