import type { DatetimeInputProps } from '../../wire/elements.js'
import { h, labelRow } from './field.js'
import type { MountView } from './view.js'

/**
 * `st.datetimeInput` (issue #36): the browser's date-and-time field, in a small chunk of its own.
 * What the visitor types is put on the step grid (from midnight, as the server counts it) and
 * inside min/max before it goes, since the server refuses anything else.
 */

function fit(p: DatetimeInputProps, v: string): string | null {
  const t = Date.parse(`${v}Z`)
  if (v === '' || Number.isNaN(t)) return null
  const step = p.step * 1000
  const day = t - (t % 86_400_000)
  let fitted = day + Math.round((t - day) / step) * step
  if (p.min !== null) fitted = Math.max(fitted, Date.parse(`${p.min}Z`))
  if (p.max !== null) fitted = Math.min(fitted, Date.parse(`${p.max}Z`))
  return new Date(fitted).toISOString().slice(0, p.step % 60 === 0 ? 16 : 19)
}

export const mount: MountView<DatetimeInputProps> = (el, initial, host) => {
  let props = initial
  const id = `svc-dt-${Math.random().toString(36).slice(2)}`
  const input = h('input', 'svc-input')
  input.style.maxWidth = '16rem'
  input.id = id
  input.type = 'datetime-local'
  const field = h('div', 'svc-field')
  field.append(labelRow(initial, id), input)
  el.append(field)
  input.onchange = () => {
    const v = fit(props, input.value)
    input.value = v ?? ''
    host.sendValue(v)
  }
  const draw = (p: DatetimeInputProps, value: boolean) => {
    field.className = p.disabled ? 'svc-field is-disabled' : 'svc-field'
    field.replaceChild(labelRow(p, id), field.firstChild!)
    input.step = String(p.step)
    input.min = p.min ?? ''
    input.max = p.max ?? ''
    input.disabled = p.disabled
    if (value) input.value = p.value ?? ''
  }
  draw(initial, true)
  return {
    ready: Promise.resolve(),
    view: {
      // The server's value replaces what the field shows when it changed (a run, a reset); equal props keep an edit in progress.
      update(next) {
        const changed = next.value !== props.value || (next as { rev?: number }).rev !== (props as { rev?: number }).rev
        props = next
        draw(next, changed)
      },
      destroy: () => undefined,
    },
  }
}
