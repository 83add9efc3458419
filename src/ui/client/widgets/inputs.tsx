import { useState } from 'preact/hooks'
import type { DateInputProps, NumberInputProps, TextAreaProps, TextInputProps } from '../../wire/elements.js'
import { useForm } from '../context.js'
import type { ElementProps } from '../elements/types.js'
import { domId, Field, useLocal, useWidgetValue, type WidgetValue } from './field.js'

/**
 * Text editing state shared by textInput and textArea: outside a form the draft stays local
 * until committed (Enter or blur), as in Streamlit; inside a form each edit is recorded for
 * the submit.
 */
function useDraft(w: WidgetValue<string>) {
  const [draft, setDraft] = useLocal<string>(w)
  const shown = draft ?? w.value
  return {
    shown,
    dirty: draft !== null && draft !== w.value,
    input(v: string) {
      if (w.inForm) w.set(v)
      else setDraft(v)
    },
    commit() {
      if (draft !== null && draft !== w.value) w.commit(draft)
      setDraft(null)
    },
  }
}

function Counter({ length, max }: { length: number; max: number | null }) {
  if (max === null) return null
  return <span class={length >= max ? 'svc-counter is-full' : 'svc-counter'}>{`${length}/${max}`}</span>
}

export function TextInput({ node, props }: ElementProps<TextInputProps>) {
  const w = useWidgetValue(node, props.value)
  const form = useForm()
  const d = useDraft(w)
  const [reveal, setReveal] = useState(false)
  const id = domId(node.id)
  const hintId = domId(node.id, '-hint')
  const password = props.inputType === 'password'
  return (
    <Field node={node} base={props} controlId={id}>
      <div class="svc-input-wrap">
        <input
          id={id}
          class="svc-input"
          type={password && !reveal ? 'password' : 'text'}
          value={d.shown}
          placeholder={props.placeholder}
          maxLength={props.maxChars ?? undefined}
          disabled={props.disabled}
          autoComplete={password ? 'current-password' : 'off'}
          aria-describedby={hintId}
          onInput={(e) => d.input(e.currentTarget.value)}
          onBlur={() => d.commit()}
          onKeyDown={(e) => {
            if (e.key !== 'Enter' || e.isComposing) return
            if (form) form.submit(null)
            else d.commit()
          }}
        />
        {password ? (
          <button type="button" class="svc-input-addon" aria-label={reveal ? 'Hide password' : 'Show password'} aria-pressed={reveal} onClick={() => setReveal(!reveal)}>
            {reveal ? 'Hide' : 'Show'}
          </button>
        ) : null}
      </div>
      <div class="svc-input-foot" id={hintId}>
        <span class={d.dirty ? 'svc-enter-hint is-visible' : 'svc-enter-hint'}>{d.dirty ? 'Press Enter to apply' : ''}</span>
        <Counter length={d.shown.length} max={props.maxChars} />
      </div>
    </Field>
  )
}

export function TextArea({ node, props }: ElementProps<TextAreaProps>) {
  const w = useWidgetValue(node, props.value)
  const d = useDraft(w)
  const id = domId(node.id)
  const hintId = domId(node.id, '-hint')
  return (
    <Field node={node} base={props} controlId={id}>
      <textarea
        id={id}
        class="svc-input svc-textarea"
        value={d.shown}
        placeholder={props.placeholder}
        maxLength={props.maxChars ?? undefined}
        disabled={props.disabled}
        style={props.height ? { height: `${props.height}px` } : undefined}
        aria-describedby={hintId}
        onInput={(e) => d.input(e.currentTarget.value)}
        onBlur={() => d.commit()}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) d.commit()
        }}
      />
      <div class="svc-input-foot" id={hintId}>
        <span class={d.dirty ? 'svc-enter-hint is-visible' : 'svc-enter-hint'}>{d.dirty ? 'Press Ctrl+Enter to apply' : ''}</span>
        <Counter length={d.shown.length} max={props.maxChars} />
      </div>
    </Field>
  )
}

/** printf-like number formats: `%d`, `%.2f`, `%i`, `%u`, `%e`; anything else prints plainly. */
export function formatNumber(value: number, format: string | null): string {
  if (format) {
    const m = /(?<!%)%([+]?)(?:\.(\d+))?([dfieu])/.exec(format)
    if (m) {
      const decimals = m[2] === undefined ? (m[3] === 'f' ? 6 : 0) : Number(m[2])
      const body = m[3] === 'e' ? value.toExponential(decimals) : ['d', 'i', 'u'].includes(m[3]!) ? String(Math.round(value)) : value.toFixed(decimals)
      const signed = m[1] === '+' && value >= 0 ? `+${body}` : body
      const unescape = (t: string) => t.replace(/%%/g, '%')
      return unescape(format.slice(0, m.index)) + signed + unescape(format.slice(m.index + m[0].length))
    }
  }
  return String(value)
}

function decimalsOf(step: number): number {
  const s = String(step)
  return s.includes('.') ? s.length - s.indexOf('.') - 1 : 0
}

export function NumberInput({ node, props }: ElementProps<NumberInputProps>) {
  const w = useWidgetValue(node, props.value)
  const [draft, setDraft] = useLocal<string>(w)
  const id = domId(node.id)
  const shown = draft ?? (w.value === null ? '' : formatNumber(w.value, props.format))
  const clamp = (n: number) => Math.min(props.max ?? Infinity, Math.max(props.min ?? -Infinity, n))
  const commitText = (text: string) => {
    setDraft(null)
    const t = text.trim()
    if (t === '') {
      if (w.value !== null && props.min === null && props.max === null) w.commit(null)
      return
    }
    const n = Number(t.replace(/[^0-9eE+.-]/g, ''))
    if (Number.isFinite(n) && clamp(n) !== w.value) w.commit(clamp(n))
  }
  const step = (dir: 1 | -1) => {
    const base = draft !== null && Number.isFinite(Number(draft)) ? Number(draft) : (w.value ?? props.min ?? 0)
    const next = clamp(Number((base + dir * props.step).toFixed(Math.max(decimalsOf(props.step), decimalsOf(base)))))
    setDraft(null)
    if (next !== w.value) w.commit(next)
  }
  return (
    <Field node={node} base={props} controlId={id}>
      <div class="svc-number">
        <input
          id={id}
          class="svc-input"
          type="text"
          inputMode="decimal"
          role="spinbutton"
          aria-valuenow={w.value ?? undefined}
          aria-valuemin={props.min ?? undefined}
          aria-valuemax={props.max ?? undefined}
          value={shown}
          placeholder={props.placeholder}
          disabled={props.disabled}
          onInput={(e) => setDraft(e.currentTarget.value)}
          onBlur={(e) => commitText(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commitText(e.currentTarget.value)
            else if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
              e.preventDefault()
              step(e.key === 'ArrowUp' ? 1 : -1)
            }
          }}
        />
        <button type="button" class="svc-step" aria-label="Decrease" tabIndex={-1} disabled={props.disabled || (props.min !== null && (w.value ?? props.min) <= props.min)} onClick={() => step(-1)}>
          −
        </button>
        <button type="button" class="svc-step" aria-label="Increase" tabIndex={-1} disabled={props.disabled || (props.max !== null && (w.value ?? props.max) >= props.max)} onClick={() => step(1)}>
          +
        </button>
      </div>
    </Field>
  )
}

export function DateInput({ node, props }: ElementProps<DateInputProps>) {
  const w = useWidgetValue(node, props.value)
  const id = domId(node.id)
  const bounds = { min: props.min ?? undefined, max: props.max ?? undefined, disabled: props.disabled }
  const value = w.value
  // A day typed past min/max would be refused by the server: put the field back instead.
  const outside = (input: HTMLInputElement, shown: string): boolean => {
    const v = input.value
    if (v === '' || !((props.min !== null && v < props.min) || (props.max !== null && v > props.max))) return false
    input.value = shown
    return true
  }
  if (Array.isArray(value)) {
    // Two days, kept in order: moving one past the other moves the other along.
    const pick = (which: 0 | 1, v: string) => {
      if (v === '') return
      const [from, to] = value
      const next: [string, string] = which === 0 ? [v, v > to ? v : to] : [v < from ? v : from, v]
      if (next[0] !== from || next[1] !== to) w.commit(next)
    }
    return (
      <Field node={node} base={props} controlId={id}>
        <div class="svc-date-range" role="group" aria-labelledby={domId(node.id, '-label')}>
          <input id={id} class="svc-input svc-date" type="date" aria-label={`${props.label} (from)`} value={value[0]} {...bounds} onChange={(e) => outside(e.currentTarget, value[0]) || pick(0, e.currentTarget.value)} />
          <span class="svc-date-range-sep" aria-hidden="true">–</span>
          <input class="svc-input svc-date" type="date" aria-label={`${props.label} (to)`} value={value[1]} {...bounds} onChange={(e) => outside(e.currentTarget, value[1]) || pick(1, e.currentTarget.value)} />
        </div>
      </Field>
    )
  }
  return (
    <Field node={node} base={props} controlId={id}>
      <input
        id={id}
        class="svc-input svc-date"
        type="date"
        value={value ?? ''}
        {...bounds}
        onChange={(e) => {
          if (outside(e.currentTarget, value ?? '')) return
          const v = e.currentTarget.value
          w.commit(v === '' ? null : v)
        }}
      />
    </Field>
  )
}
