import type { MetricProps, Sparkline as SparklineProps } from '../../wire/elements.js'
import { Help } from '../widgets/field.js'
import type { ElementProps } from './types.js'

/** Good/bad colouring of a delta: `inverse` flips it (e.g. costs), `off` is always neutral. */
export function deltaTone(direction: MetricProps['deltaDirection'], color: MetricProps['deltaColor']): 'good' | 'bad' | 'neutral' {
  if (color === 'off' || direction === 'flat' || direction === null) return 'neutral'
  const up = direction === 'up'
  return up === (color === 'normal') ? 'good' : 'bad'
}

const ARROWS = { up: '▲', down: '▼', flat: '–' } as const

/** A sparkline the server drew as one path in a 100 × 30 box (`st/sparkline.ts`); stretched to its box. */
export function Sparkline({ chart, tone }: { chart: SparklineProps; tone?: string }) {
  return (
    <svg class={`svc-spark is-${chart.kind}${tone ? ` is-${tone}` : ''}`} viewBox="0 0 100 30" preserveAspectRatio="none" aria-hidden="true">
      {chart.kind === 'area' ? <path class="svc-spark-fill" d={`${chart.d}L100 30L0 30Z`} /> : null}
      <path d={chart.d} />
    </svg>
  )
}

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
      {props.chart ? <Sparkline chart={props.chart} tone={props.delta === null ? undefined : tone} /> : null}
    </div>
  )
}
