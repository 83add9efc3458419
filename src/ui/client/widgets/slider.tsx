import { useState } from 'preact/hooks'
import type { SliderProps } from '../../elements.js'
import type { ElementProps } from '../elements/types.js'
import { domId, Field, useWidgetValue } from './field.js'
import { formatNumber } from './inputs.js'

/**
 * Native range inputs (keyboard and screen readers work as usual). The shown value follows the
 * drag; the value is sent once on release, like Streamlit.
 */
export function Slider({ node, props }: ElementProps<SliderProps>) {
  const w = useWidgetValue(node, props.value)
  const [drag, setDrag] = useState<number | [number, number] | null>(null)
  const shown = drag ?? w.value
  const id = domId(node.id)
  const fmt = (n: number) => formatNumber(n, props.format)
  const span = props.max - props.min || 1
  const pct = (n: number) => ((n - props.min) / span) * 100
  const commit = (v: number | [number, number]) => {
    setDrag(null)
    const same = Array.isArray(v) && Array.isArray(w.value) ? v[0] === w.value[0] && v[1] === w.value[1] : v === w.value
    if (!same) w.commit(v)
  }
  const common = { type: 'range', min: props.min, max: props.max, step: props.step, disabled: props.disabled, class: 'svc-range' }

  if (Array.isArray(shown)) {
    const [lo, hi] = shown
    const update = (which: 0 | 1, n: number) => {
      const next: [number, number] = which === 0 ? [Math.min(n, hi), hi] : [lo, Math.max(n, lo)]
      setDrag(next)
      return next
    }
    return (
      <Field node={node} base={props} controlId={id} aside={`${fmt(lo)} – ${fmt(hi)}`}>
        <div class="svc-slider is-range" style={{ '--lo': `${pct(lo)}%`, '--hi': `${pct(hi)}%` }}>
          <div class="svc-slider-track" aria-hidden="true" />
          <input {...common} id={id} value={lo} aria-label={`${props.label} (minimum)`} aria-valuetext={fmt(lo)} onInput={(e) => update(0, Number(e.currentTarget.value))} onChange={(e) => commit(update(0, Number(e.currentTarget.value)))} />
          <input {...common} value={hi} aria-label={`${props.label} (maximum)`} aria-valuetext={fmt(hi)} onInput={(e) => update(1, Number(e.currentTarget.value))} onChange={(e) => commit(update(1, Number(e.currentTarget.value)))} />
        </div>
        <SliderBounds text={[fmt(props.min), fmt(props.max)]} />
      </Field>
    )
  }
  return (
    <Field node={node} base={props} controlId={id} aside={fmt(shown)}>
      <div class="svc-slider" style={{ '--lo': '0%', '--hi': `${pct(shown)}%` }}>
        <div class="svc-slider-track" aria-hidden="true" />
        <input {...common} id={id} value={shown} aria-valuetext={fmt(shown)} onInput={(e) => setDrag(Number(e.currentTarget.value))} onChange={(e) => commit(Number(e.currentTarget.value))} />
      </div>
      <SliderBounds text={[fmt(props.min), fmt(props.max)]} />
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
