import { SvcError } from '../../errors.js'
import type { ContainerGap, ContainerProps } from '../wire/elements.js'
import type { ContainerOptions } from '../st-types.js'

/** `st.container(options)` checked (issue #36 added horizontal layout, gap and alignment). */

const GAPS: readonly ContainerGap[] = ['xxsmall', 'xsmall', 'small', 'medium', 'large', 'xlarge', 'xxlarge']
const H_ALIGN = ['left', 'center', 'right', 'distribute'] as const
const V_ALIGN = ['top', 'center', 'bottom', 'distribute'] as const

function oneOf<T extends string>(name: string, value: T | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined || allowed.includes(value)) return value
  throw new SvcError('SVC_ERR_UI_BAD_CALL', `container(): ${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`)
}

export function containerProps(o: ContainerOptions): ContainerProps {
  const props: ContainerProps = { border: o.border ?? false, height: o.height ?? null }
  const gap = o.gap === null ? null : oneOf('gap', o.gap, GAPS)
  const h = oneOf('horizontalAlignment', o.horizontalAlignment, H_ALIGN)
  const v = oneOf('verticalAlignment', o.verticalAlignment, V_ALIGN)
  // Only what differs from a plain vertical stack travels.
  if (o.horizontal === true) props.horizontal = true
  if (gap !== undefined && gap !== 'small') props.gap = gap
  if (h !== undefined && h !== 'left') props.horizontalAlignment = h
  if (v !== undefined && v !== 'top') props.verticalAlignment = v
  return props
}
