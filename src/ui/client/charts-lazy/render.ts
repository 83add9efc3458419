import embed from 'vega-embed'
import { expressionInterpreter } from 'vega-interpreter'

/**
 * The lazily loaded chart chunk: compiles a Vega-Lite spec and renders it as SVG. Expressions run in
 * vega-interpreter (`ast: true`) instead of compiled code, so pages need no `unsafe-eval` in a CSP.
 * Returns the function that tears the view down (listeners, timers, tooltip handler).
 */
export async function renderVegaLite(target: HTMLElement, spec: Record<string, unknown>, config: Record<string, unknown> | undefined): Promise<() => void> {
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
