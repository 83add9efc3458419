import { SvcError } from '../../errors.js'
import type { Component } from '../components.js'
import type { ComponentOptions } from '../st-types.js'
import { toJsonSafe } from './values.js'
import { base, register } from './widgets.js'
import type { Emitter } from './run-context.js'

/**
 * `st.component(component, args, options)`: a widget whose value the component sets. The
 * browser's value is size-bounded and checked by the component's value schema before the page
 * sees it (`Component.parseValue`); a refused one is dropped and the page keeps the last good one.
 */
export function component<A, V, D>(em: Emitter, def: Component<A, V>, args: A, o: ComponentOptions<V, D> = {}): V | D {
  if (typeof def !== 'object' || def === null || typeof def.parseValue !== 'function') {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', 'st.component(component, args): pass a component returned by declareComponent()')
  }
  const sent = def.parseArgs(args ?? {})
  const height = o.height ?? null
  if (height !== null && (!Number.isInteger(height) || height < 0 || height > 10_000)) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `st.component(${def.name}): height must be a whole number of pixels from 0 to 10000, got ${String(o.height)}`)
  }
  const dflt = (o.default === undefined ? null : o.default) as V | D
  const { id, value } = register<V | D>(
    em,
    {
      type: 'component',
      label: def.name,
      key: o.key,
      identity: [sent],
      default: dflt,
      deserialize: (raw) => def.parseValue(raw),
      fromState: (v) => (v === dflt ? dflt : def.parseValue(v)),
      onChange: o.onChange,
    },
    toJsonSafe(dflt) ?? null,
  )
  em.emit(
    'component',
    {
      ...base(em, def.name, { ...(o.key !== undefined ? { key: o.key } : {}), disabled: o.disabled ?? false, labelVisibility: 'collapsed' }),
      name: def.name,
      src: def.src,
      args: toJsonSafe(sent) ?? null,
      value: toJsonSafe(value) ?? null,
      height,
      sameOrigin: def.sameOrigin,
      maxValueBytes: def.maxValueBytes,
    },
    id,
  )
  return value
}
