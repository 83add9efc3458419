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
    tooltip: { theme: 'svc' },
  })
  return () => result.finalize()
}
