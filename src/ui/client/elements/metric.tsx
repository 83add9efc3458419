import type { MetricProps } from '../../elements.js'
import { Help } from '../widgets/field.js'
import type { ElementProps } from './types.js'

/** Good/bad colouring of a delta: `inverse` flips it (e.g. costs), `off` is always neutral. */
export function deltaTone(direction: MetricProps['deltaDirection'], color: MetricProps['deltaColor']): 'good' | 'bad' | 'neutral' {
  if (color === 'off' || direction === 'flat' || direction === null) return 'neutral'
  const up = direction === 'up'
  return up === (color === 'normal') ? 'good' : 'bad'
}

const ARROWS = { up: '▲', down: '▼', flat: '–' } as const

export function Metric({ props }: ElementProps<MetricProps>) {
  const tone = deltaTone(props.deltaDirection, props.deltaColor)
  return (
    <div class={props.border ? 'svc-metric has-border' : 'svc-metric'} data-testid="metric">
      <div class="svc-metric-label">
        <span>{props.label}</span>
        {props.help ? <Help text={props.help} /> : null}
      </div>
      <div class="svc-metric-value">{props.value}</div>
      {props.delta !== null ? (
        <div class={`svc-metric-delta is-${tone}`} data-direction={props.deltaDirection ?? undefined}>
          {props.deltaDirection ? (
            <span class="svc-metric-arrow" aria-hidden="true">
              {ARROWS[props.deltaDirection]}
            </span>
          ) : null}
          <span>{props.delta}</span>
        </div>
      ) : null}
    </div>
  )
}
