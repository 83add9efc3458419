import { instance } from '@viz-js/viz'

/**
 * Graphviz (@viz-js/viz, compiled to WebAssembly) in a module worker of its own: the WebAssembly
 * is compiled here, under this script's own Content-Security-Policy (none), not the page's (which
 * allows no 'wasm-unsafe-eval'), and a large layout does not block the page. One request, one
 * answer: `{ id, dot }` → `{ id, svg }` or `{ id, error }`.
 */
const viz = instance()

self.onmessage = async (e: MessageEvent<{ id: number; dot: string }>) => {
  const { id, dot } = e.data
  try {
    const result = (await viz).render(dot, { format: 'svg' })
    if (result.status === 'success') postMessage({ id, svg: result.output })
    else postMessage({ id, error: result.errors.map((err) => err.message.trim()).join('\n') || 'Graphviz could not lay out this graph' })
  } catch (err) {
    postMessage({ id, error: err instanceof Error ? err.message : String(err) })
  }
}
