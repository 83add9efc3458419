import type { HelpProps } from '../../wire/elements.js'
import cssHref from './help.css?url'
import { loadStylesheet } from './stylesheet.js'
import type { MountView } from './view.js'

/** `st.help(value)` (issue #36): name, type and signature, the value or doc text, and a table of members. */
const styles = loadStylesheet(new URL(cssHref, import.meta.url).href)

function h<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  el.className = cls
  if (text !== undefined) el.textContent = text
  return el
}

function draw(el: HTMLElement, p: HelpProps): void {
  const box = h('div', 'svc-help-box')
  const head = h('div', 'svc-help-head')
  if (p.name !== null) head.append(h('code', 'svc-help-name', p.name))
  head.append(h('span', 'svc-help-type', p.type))
  box.append(head)
  if (p.signature !== null) box.append(h('code', 'svc-help-signature', p.signature))
  if (p.doc !== null) box.append(h('p', 'svc-help-doc', p.doc))
  if (p.value !== null) box.append(h('pre', 'svc-help-value', p.value))
  if (p.members.length > 0) {
    const table = h('table', 'svc-help-members')
    const head = table.createTHead().insertRow()
    for (const title of ['Member', 'Type', 'Value']) head.append(h('th', '', title))
    const body = table.createTBody()
    for (const m of p.members) {
      const row = body.insertRow()
      row.insertCell().append(h('code', '', m.name))
      row.insertCell().textContent = m.type
      row.insertCell().append(h('code', '', m.value))
    }
    box.append(table)
  }
  el.replaceChildren(box)
}

export const mount: MountView<HelpProps> = (el, initial) => {
  let shown = ''
  const update = (p: HelpProps) => {
    const signature = JSON.stringify(p)
    if (signature === shown) return
    shown = signature
    draw(el, p)
  }
  update(initial)
  return { ready: styles, view: { update, destroy: () => undefined } }
}
