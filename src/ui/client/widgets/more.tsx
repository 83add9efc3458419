import type { ColorPickerProps, FeedbackProps, PillsProps, SegmentedControlProps, SelectSliderProps, TimeInputProps } from '../../wire/elements.js'
import type { ElementProps } from '../elements/types.js'
import { SvgIcon } from '../icons.js'
import { domId, Field, useWidgetValue } from './field.js'
import { SliderControl } from './slider.js'

export function TimeInput({ node, props }: ElementProps<TimeInputProps>) {
  const w = useWidgetValue(node, props.value)
  const id = domId(node.id)
  return (
    <Field node={node} base={props} controlId={id}>
      <input
        id={id}
        class="svc-input svc-time"
        type="time"
        step={props.step}
        value={w.value ?? ''}
        disabled={props.disabled}
        onChange={(e) => {
          const v = e.currentTarget.value
          w.commit(v === '' ? null : v)
        }}
      />
    </Field>
  )
}

export function ColorPicker({ node, props }: ElementProps<ColorPickerProps>) {
  const w = useWidgetValue(node, props.value)
  const id = domId(node.id)
  return (
    <Field node={node} base={props} controlId={id}>
      <div class="svc-color">
        <input id={id} class="svc-color-input" type="color" value={w.value} disabled={props.disabled} onChange={(e) => w.commit(e.currentTarget.value.toLowerCase())} />
        <code class="svc-color-value">{w.value}</code>
      </div>
    </Field>
  )
}

/** A slider over option labels: positions are option indices, the label shows the option. */
export function SelectSlider({ node, props }: ElementProps<SelectSliderProps>) {
  return (
    <SliderControl
      node={node}
      base={props}
      value={props.value}
      range={{ min: 0, max: props.options.length - 1, step: 1 }}
      format={(i) => props.options[i] ?? ''}
      endLabels={['from', 'to']}
    />
  )
}

/** Pills and the segmented control share behaviour; only their look differs. */
function Chips({ node, props, variant }: ElementProps<PillsProps> & { variant: 'pills' | 'segmented' }) {
  const w = useWidgetValue(node, props.value)
  const multi = props.selectionMode === 'multi'
  const toggle = (i: number) => {
    const on = w.value.includes(i)
    if (multi) w.commit(on ? w.value.filter((x) => x !== i) : [...w.value, i].sort((a, b) => a - b))
    else w.commit(on ? [] : [i])
  }
  return (
    <Field node={node} base={props} controlId={null}>
      <div class={`svc-chipset is-${variant}`} role="group" aria-labelledby={domId(node.id, '-label')}>
        {props.options.map((option, i) => {
          const on = w.value.includes(i)
          return (
            <button key={i} type="button" class={on ? 'svc-chipset-item is-selected' : 'svc-chipset-item'} aria-pressed={on} disabled={props.disabled} onClick={() => toggle(i)}>
              {option}
            </button>
          )
        })}
      </div>
    </Field>
  )
}

export function Pills(p: ElementProps<PillsProps>) {
  return <Chips {...p} variant="pills" />
}

export function SegmentedControl(p: ElementProps<SegmentedControlProps>) {
  return <Chips {...p} variant="segmented" />
}

const FACES = ['sentiment_very_dissatisfied', 'sentiment_dissatisfied', 'sentiment_neutral', 'sentiment_satisfied', 'sentiment_very_satisfied']
const FACE_NAMES = ['Very unhappy', 'Unhappy', 'Neutral', 'Happy', 'Very happy']

/** Thumbs, faces or stars as toggle buttons; clicking the chosen one again clears it. */
export function Feedback({ node, props }: ElementProps<FeedbackProps>) {
  const w = useWidgetValue(node, props.value)
  const items =
    props.options === 'thumbs'
      ? [
          { icon: 'thumb_down', name: 'Thumbs down' },
          { icon: 'thumb_up', name: 'Thumbs up' },
        ]
      : props.options === 'faces'
        ? FACES.map((icon, i) => ({ icon, name: FACE_NAMES[i]! }))
        : [1, 2, 3, 4, 5].map((n) => ({ icon: 'star', name: `${n} star${n > 1 ? 's' : ''}` }))
  return (
    <div class={`svc-feedback is-${props.options}`} role="group" aria-label="Feedback" data-testid="feedback">
      {items.map((item, i) => {
        const on = props.options === 'stars' ? w.value !== null && i <= w.value : w.value === i
        return (
          <button
            key={i}
            type="button"
            class={on ? 'svc-feedback-item is-selected' : 'svc-feedback-item'}
            aria-label={item.name}
            aria-pressed={w.value === i}
            disabled={props.disabled}
            onClick={() => w.commit(w.value === i ? null : i)}
          >
            <SvgIcon name={item.icon} class={on && props.options === 'stars' ? 'is-filled' : undefined} />
          </button>
        )
      })}
    </div>
  )
}
