import type { SliderProps, WidgetBase } from '../../wire/elements.js'
import type { UiNode } from '../../wire/protocol.js'
import type { ElementProps } from '../elements/types.js'
import { domId, Field, useLocal, useWidgetValue } from './field.js'
import { formatNumber } from './inputs.js'

/**
 * Native range inputs (keyboard and screen readers work as usual). The shown value follows the
 * drag; the value is sent once on release, like Streamlit.
 */
export function Slider({ node, props }: ElementProps<SliderProps>) {
  return (
    <SliderControl
      node={node}
      base={props}
      value={props.value}
      range={{ min: props.min, max: props.max, step: props.step }}
      format={(n) => formatNumber(n, props.format)}
      endLabels={['minimum', 'maximum']}
    />
  )
}

/**
 * The control both `Slider` and `SelectSlider` draw: one thumb for a number, two for a
 * `[lo, hi]` pair; `format` names a position (the number, or the option label at that index),
 * `endLabels` tell a screen reader which thumb is which.
 */
export function SliderControl({ node, base, value, range, format, endLabels }: {
  node: UiNode
  base: WidgetBase
  value: number | [number, number]
  range: { min: number; max: number; step: number }
  format: (n: number) => string
  endLabels: [string, string]
}) {
  const w = useWidgetValue(node, value)
  const [drag, setDrag] = useLocal<number | [number, number]>(w)
  const shown = drag ?? w.value
  const id = domId(node.id)
  const span = range.max - range.min || 1
  const pct = (n: number) => ((n - range.min) / span) * 100
  const commit = (v: number | [number, number]) => {
    setDrag(null)
    const same = Array.isArray(v) && Array.isArray(w.value) ? v[0] === w.value[0] && v[1] === w.value[1] : v === w.value
    if (!same) w.commit(v)
  }
  const common = { type: 'range', min: range.min, max: range.max, step: range.step, disabled: base.disabled, class: 'svc-range' }
  const bounds = <SliderBounds text={[format(range.min), format(range.max)]} />

  if (Array.isArray(shown)) {
    const [lo, hi] = shown
    const update = (which: 0 | 1, n: number) => {
      const next: [number, number] = which === 0 ? [Math.min(n, hi), hi] : [lo, Math.max(n, lo)]
      setDrag(next)
      return next
    }
    return (
      <Field node={node} base={base} controlId={id} aside={`${format(lo)} – ${format(hi)}`}>
        <div class="svc-slider is-range" style={{ '--lo': `${pct(lo)}%`, '--hi': `${pct(hi)}%` }}>
          <div class="svc-slider-track" aria-hidden="true" />
          <input {...common} id={id} value={lo} aria-label={`${base.label} (${endLabels[0]})`} aria-valuetext={format(lo)} onInput={(e) => update(0, Number(e.currentTarget.value))} onChange={(e) => commit(update(0, Number(e.currentTarget.value)))} />
          <input {...common} value={hi} aria-label={`${base.label} (${endLabels[1]})`} aria-valuetext={format(hi)} onInput={(e) => update(1, Number(e.currentTarget.value))} onChange={(e) => commit(update(1, Number(e.currentTarget.value)))} />
        </div>
        {bounds}
      </Field>
    )
  }
  return (
    <Field node={node} base={base} controlId={id} aside={format(shown)}>
      <div class="svc-slider" style={{ '--lo': '0%', '--hi': `${pct(shown)}%` }}>
        <div class="svc-slider-track" aria-hidden="true" />
        <input {...common} id={id} value={shown} aria-valuetext={format(shown)} onInput={(e) => setDrag(Number(e.currentTarget.value))} onChange={(e) => commit(Number(e.currentTarget.value))} />
      </div>
      {bounds}
    </Field>
  )
}

/** The min and max shown under both the single and the range slider. */
function SliderBounds({ text }: { text: [string, string] }) {
  return (
    <div class="svc-slider-bounds" aria-hidden="true">
      <span>{text[0]}</span>
      <span>{text[1]}</span>
    </div>
  )
}
