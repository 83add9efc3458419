import type { CheckboxProps, MultiselectProps, RadioProps, SelectboxProps, ToggleProps } from '../../wire/elements.js'
import type { ElementProps } from '../elements/types.js'
import { domId, Field, Help, useWidgetValue } from './field.js'

function CheckLike({ node, props, variant }: ElementProps<CheckboxProps> & { variant: 'checkbox' | 'toggle' }) {
  const w = useWidgetValue(node, props.value)
  const id = domId(node.id)
  return (
    <div class={`svc-check ${variant === 'toggle' ? 'is-toggle' : ''}${props.disabled ? ' is-disabled' : ''}`} data-testid={variant} data-label={props.label}>
      <input
        id={id}
        type="checkbox"
        role={variant === 'toggle' ? 'switch' : undefined}
        checked={w.value}
        disabled={props.disabled}
        onChange={(e) => w.commit(e.currentTarget.checked)}
      />
      <label for={id} class={props.labelVisibility === 'visible' ? '' : 'svc-visually-hidden'}>
        {variant === 'toggle' ? <span class="svc-switch" aria-hidden="true" /> : null}
        {props.label}
      </label>
      {props.help ? <Help text={props.help} /> : null}
    </div>
  )
}

export function Checkbox(p: ElementProps<CheckboxProps>) {
  return <CheckLike {...p} variant="checkbox" />
}

export function Toggle(p: ElementProps<ToggleProps>) {
  return <CheckLike {...p} variant="toggle" />
}

export function Radio({ node, props }: ElementProps<RadioProps>) {
  const w = useWidgetValue(node, props.value)
  const name = domId(node.id)
  return (
    <Field node={node} base={props} controlId={null}>
      <div class={props.horizontal ? 'svc-radio-group is-horizontal' : 'svc-radio-group'} role="radiogroup" aria-labelledby={domId(node.id, '-label')}>
        {props.options.map((option, i) => (
          <label key={i} class="svc-radio">
            <input type="radio" name={name} checked={w.value === i} disabled={props.disabled} onChange={() => w.commit(i)} />
            <span class="svc-radio-text">
              <span>{option}</span>
              {props.captions?.[i] ? <span class="svc-radio-caption">{props.captions[i]}</span> : null}
            </span>
          </label>
        ))}
      </div>
    </Field>
  )
}

export function Selectbox({ node, props }: ElementProps<SelectboxProps>) {
  const w = useWidgetValue(node, props.value)
  const id = domId(node.id)
  return (
    <Field node={node} base={props} controlId={id}>
      <div class="svc-select">
        <select
          id={id}
          class="svc-input"
          disabled={props.disabled}
          value={w.value === null ? '' : String(w.value)}
          onChange={(e) => {
            const v = e.currentTarget.value
            w.commit(v === '' ? null : Number(v))
          }}
        >
          {w.value === null ? (
            <option value="" disabled>
              {props.placeholder || 'Choose an option'}
            </option>
          ) : null}
          {props.options.map((option, i) => (
            <option key={i} value={String(i)}>
              {option}
            </option>
          ))}
        </select>
      </div>
    </Field>
  )
}

/** Chips for the chosen options plus a native select to add one: keyboard and screen-reader friendly. */
export function Multiselect({ node, props }: ElementProps<MultiselectProps>) {
  const w = useWidgetValue(node, props.value)
  const id = domId(node.id)
  const chosen = w.value
  const full = props.maxSelections !== null && chosen.length >= props.maxSelections
  const remaining = props.options.map((o, i) => [o, i] as const).filter(([, i]) => !chosen.includes(i))
  return (
    <Field node={node} base={props} controlId={id}>
      <div class={props.disabled ? 'svc-multi is-disabled' : 'svc-multi'}>
        {chosen.length > 0 ? (
          <ul class="svc-chips" role="list" aria-label={`${props.label}: selected`}>
            {chosen.map((i) => (
              <li key={i} class="svc-chip">
                <span>{props.options[i]}</span>
                <button
                  type="button"
                  class="svc-chip-remove"
                  aria-label={`Remove ${props.options[i] ?? ''}`}
                  disabled={props.disabled}
                  onClick={() => w.commit(chosen.filter((c) => c !== i))}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        ) : null}
        <div class="svc-select">
          <select
            id={id}
            class="svc-input"
            value=""
            disabled={props.disabled || full || remaining.length === 0}
            onChange={(e) => {
              const v = e.currentTarget.value
              e.currentTarget.value = ''
              if (v !== '') w.commit([...chosen, Number(v)])
            }}
          >
            <option value="" disabled>
              {full ? `Maximum of ${props.maxSelections} reached` : remaining.length === 0 ? 'All options selected' : props.placeholder || 'Add an option'}
            </option>
            {remaining.map(([o, i]) => (
              <option key={i} value={String(i)}>
                {o}
              </option>
            ))}
          </select>
        </div>
      </div>
    </Field>
  )
}
