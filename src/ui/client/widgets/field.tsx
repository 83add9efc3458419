import type { ComponentChildren } from 'preact'
import { useReducer, useRef, useState } from 'preact/hooks'
import type { UiNode } from '../../wire/protocol.js'
import type { WidgetBase } from '../../wire/elements.js'
import { useForm, useRuntime } from '../context.js'

/** A DOM id from a node id (ids may hold any character; DOM ids must stay unambiguous). */
export function domId(nodeId: string, suffix = ''): string {
  return `svc-${nodeId.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}${suffix}`
}

export interface WidgetValue<V> {
  value: V
  /** Update the shown value; inside a form it is also recorded for the next submit. */
  set(value: V): void
  /** Set and send now (outside a form); inside a form the same as `set`. */
  commit(value: V): void
  inForm: boolean
  /**
   * When the server last overrode what the control shows, as the number of messages its render
   * had seen (-1: never). Local state begun before then (a draft) goes; begun after, it stays.
   */
  overriddenAt: number
}

/** The server's revision of a widget node (`rev` in its props; absent until the server first overrides it). */
export function revisionOf(node: UiNode): number {
  const rev = (node.props as { rev?: unknown }).rev
  return typeof rev === 'number' ? rev : 0
}

/**
 * The value a widget shows: what the user made of it until a render that has seen it arrives,
 * then the server's value. A render that has not seen the user's last edit (it was under way
 * when the edit was sent) does not replace it. Inside a form, unsubmitted edits stay across
 * reruns (as in Streamlit) until the server overrides the widget (a new `rev`: a reset, a value
 * the page set) in a run caused by something the user did after the edit.
 */
export function useWidgetValue<V>(node: UiNode, serverValue: V): WidgetValue<V> {
  const rt = useRuntime()
  const form = useForm()
  const [, force] = useReducer((n: number) => n + 1, 0)
  const state = useRef({ value: serverValue, props: node.props, rev: revisionOf(node), dirtyGeneration: -1, editedAt: -1, overriddenAt: -1 })
  const s = state.current
  if (s.props !== node.props) {
    s.props = node.props
    const seen = rt.seenBy(node.props)
    // The server has seen a message sent after the user's last edit of this control.
    const newer = seen > s.editedAt
    const rev = revisionOf(node)
    if (s.rev !== rev) {
      s.rev = rev
      if (newer) {
        s.overriddenAt = seen
        s.dirtyGeneration = -1
        form?.forget(node.id)
      }
    }
    if (newer && !(form && s.dirtyGeneration === form.generation)) s.value = serverValue
  }
  const set = (value: V) => {
    s.value = value
    s.editedAt = rt.sentCount
    if (form) {
      s.dirtyGeneration = form.generation
      form.set(node.id, value)
    }
    force(0)
  }
  return {
    value: s.value,
    set,
    commit(value: V) {
      set(value)
      if (!form) rt.sendWidget(node.id, value)
    },
    inForm: form !== null,
    overriddenAt: s.overriddenAt,
  }
}

/**
 * Local state of a control between the user's input and the server's answer (a draft, a drag,
 * an open cell editor). A server override decided after it began discards it; one decided
 * before (a render still under way when the user started) leaves it.
 */
export function useLocal<T>(w: WidgetValue<unknown>): [T | null, (value: T | null) => void] {
  const rt = useRuntime()
  const [local, setLocal] = useState<{ value: T; since: number } | null>(null)
  const live = local !== null && local.since >= w.overriddenAt ? local : null
  return [live?.value ?? null, (value) => setLocal(value === null ? null : { value, since: live?.since ?? rt.sentCount })]
}

interface FieldProps {
  node: UiNode
  base: WidgetBase
  /** Id of the labelled control; null for groups (radio, multiselect) that use a fieldset-like role. */
  controlId: string | null
  children: ComponentChildren
  /** Extra content right of the label (e.g. the slider's value). */
  aside?: ComponentChildren
}

/** Label, help and control of one widget. */
export function Field({ node, base, controlId, children, aside }: FieldProps) {
  const labelId = domId(node.id, '-label')
  const labelClass = `svc-label ${base.labelVisibility === 'collapsed' ? 'svc-visually-hidden' : base.labelVisibility === 'hidden' ? 'is-hidden' : ''}`
  return (
    <div class={base.disabled ? 'svc-field is-disabled' : 'svc-field'} data-testid={node.type} data-label={base.label}>
      <div class="svc-label-row">
        {controlId ? (
          <label id={labelId} class={labelClass} for={controlId}>
            {base.label}
          </label>
        ) : (
          <span id={labelId} class={labelClass}>
            {base.label}
          </span>
        )}
        {base.help && base.labelVisibility === 'visible' ? <Help text={base.help} /> : null}
        {aside ? <span class="svc-label-aside">{aside}</span> : null}
      </div>
      {children}
    </div>
  )
}

/** A "?" badge with a tooltip that keyboard users reach too. */
export function Help({ text }: { text: string }) {
  return (
    <span class="svc-help" tabIndex={0} role="note" aria-label={text} data-tip={text}>
      ?
    </span>
  )
}
