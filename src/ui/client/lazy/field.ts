import type { WidgetBase } from '../../wire/elements.js'

/**
 * DOM helpers of the lazily loaded widgets (capture inputs, date-time input, the chat input with
 * attachments): they draw without Preact, with the same classes as the widgets in `app.js`
 * (widgets/field.tsx). Copied into each chunk that imports it (scripts/build-client.mjs).
 */

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  el.className = cls
  if (text !== undefined) el.textContent = text
  return el
}

/** The label row every widget has: its label (for `control`, when given) and its help badge. */
export function labelRow(p: WidgetBase, control?: string): HTMLElement {
  const row = h('div', 'svc-label-row')
  const label = h(control ? 'label' : 'span', `svc-label ${p.labelVisibility === 'collapsed' ? 'svc-visually-hidden' : p.labelVisibility === 'hidden' ? 'is-hidden' : ''}`, p.label)
  if (control) label.setAttribute('for', control)
  row.append(label)
  if (p.help && p.labelVisibility === 'visible') {
    const help = h('span', 'svc-help', '?')
    help.tabIndex = 0
    help.setAttribute('role', 'note')
    help.setAttribute('aria-label', p.help)
    help.dataset.tip = p.help
    row.append(help)
  }
  return row
}

/** Whether `f` has one of the extensions or MIME types of `accept` (null or empty: any), as the server checks. */
export function acceptsFile(accept: readonly string[] | null, f: File): boolean {
  if (!accept || accept.length === 0) return true
  const name = f.name.toLowerCase()
  return accept.some((a) => {
    const t = a.toLowerCase()
    if (t.startsWith('.')) return name.endsWith(t)
    if (t.endsWith('/*')) return f.type.startsWith(t.slice(0, -1))
    return f.type === t
  })
}
