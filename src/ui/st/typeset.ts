import { SvcError } from '../../errors.js'
import type { BadgeColor, BadgeProps, GraphvizChartProps, LatexProps } from '../wire/elements.js'
import type { BadgeOptions, GraphvizChartOptions, LatexOptions } from '../st-types.js'
import type { Emitter } from './run-context.js'

/**
 * `st.badge`, `st.latex` and `st.graphvizChart` (issue #36). The TeX and the DOT travel as the
 * page wrote them; the browser typesets them in lazily loaded chunks (KaTeX; Graphviz compiled
 * to WebAssembly), so pages without them load neither.
 */

export const BADGE_COLORS: readonly BadgeColor[] = ['red', 'orange', 'yellow', 'blue', 'green', 'violet', 'gray', 'primary']

/** Text that reaches a typesetter: one run's worth, not a whole document by mistake. */
const MAX_SOURCE_CHARS = 1_000_000

function source(call: string, value: unknown, what: string): string {
  if (typeof value !== 'string') throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: pass the ${what} as a string, got ${value === null ? 'null' : typeof value}`)
  if (value.length > MAX_SOURCE_CHARS) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: the ${what} is ${value.length} characters; the limit is ${MAX_SOURCE_CHARS}`)
  return value
}

export function badgeProps(label: string, o: BadgeOptions = {}): BadgeProps {
  // Streamlit spells it both ways.
  const color = o.color === 'grey' ? 'gray' : (o.color ?? 'blue')
  if (!BADGE_COLORS.includes(color)) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `badge("${String(label).slice(0, 40)}"): color ${JSON.stringify(o.color)} is not one of ${BADGE_COLORS.join(', ')}`)
  }
  return { label: String(label), icon: o.icon ?? null, color, help: o.help ?? null }
}

export function latexProps(body: unknown, o: LatexOptions = {}): LatexProps {
  return { body: source('latex()', body, 'TeX'), help: o.help ?? null }
}

function pixels(call: string, name: string, v: number | undefined): number | null {
  if (v === undefined) return null
  if (!Number.isInteger(v) || v < 10 || v > 10_000) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: ${name} must be a whole number of pixels from 10 to 10000, got ${String(v)}`)
  return v
}

export function graphvizProps(dot: unknown, o: GraphvizChartOptions = {}): GraphvizChartProps {
  const call = 'graphvizChart()'
  const text = typeof dot === 'object' && dot !== null && typeof (dot as { source?: unknown }).source === 'string' ? (dot as { source: string }).source : dot
  return { dot: source(call, text, 'DOT graph'), useContainerWidth: o.useContainerWidth ?? false, height: pixels(call, 'height', o.height), width: pixels(call, 'width', o.width) }
}

export function badge(em: Emitter, label: string, o?: BadgeOptions): void {
  em.emit('badge', badgeProps(label, o))
}
