import { Fragment } from 'preact'
import { useMemo, useRef, useState } from 'preact/hooks'
import type { ColumnProps, ColumnsProps, ContainerProps, ExpanderProps, FormProps, TabsProps } from '../../wire/elements.js'
import type { UiNode } from '../../wire/protocol.js'
import { FormContext, useRuntime, type FormScope } from '../context.js'
import { Node, Nodes } from '../render.js'
import { domId } from '../widgets/field.js'
import type { ElementProps } from './types.js'
import { Icon } from '../icons.js'

const kids = (node: UiNode) => node.children ?? []

export function Columns({ node, props }: ElementProps<ColumnsProps>) {
  const children = kids(node)
  const weights = children.map((c) => Number((c.props as unknown as ColumnProps).weight) || 1)
  return (
    <div
      class={`svc-columns gap-${props.gap} align-${props.verticalAlign}${props.border ? ' has-border' : ''}`}
      style={{ gridTemplateColumns: weights.map((w) => `minmax(0, ${w}fr)`).join(' ') }}
    >
      {children.map((c) => (
        <Node key={c.id} node={c} />
      ))}
    </div>
  )
}

export function Column({ node }: ElementProps<ColumnProps>) {
  return (
    <div class="svc-column svc-stack">
      <Nodes nodes={kids(node)} />
    </div>
  )
}

/** WAI-ARIA tabs: arrow keys move between tabs; inactive panels stay mounted (hidden) so widget edits survive. */
export function Tabs({ node, props }: ElementProps<TabsProps>) {
  const [active, setActive] = useState(0)
  const list = useRef<HTMLDivElement>(null)
  const children = kids(node)
  const current = Math.min(active, Math.max(0, children.length - 1))
  const focusTab = (i: number) => {
    const n = (i + children.length) % children.length
    setActive(n)
    list.current?.querySelectorAll<HTMLButtonElement>('[role=tab]')[n]?.focus()
  }
  return (
    <div class="svc-tabs">
      <div class="svc-tablist" role="tablist" ref={list}>
        {children.map((c, i) => (
          <button
            key={c.id}
            type="button"
            role="tab"
            id={domId(c.id, '-tab')}
            aria-selected={i === current}
            aria-controls={domId(c.id, '-panel')}
            tabIndex={i === current ? 0 : -1}
            class={i === current ? 'svc-tab is-active' : 'svc-tab'}
            onClick={() => setActive(i)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowRight') focusTab(i + 1)
              else if (e.key === 'ArrowLeft') focusTab(i - 1)
              else if (e.key === 'Home') focusTab(0)
              else if (e.key === 'End') focusTab(children.length - 1)
              else return
              e.preventDefault()
            }}
          >
            {props.labels[i] ?? (c.props as { label?: string }).label}
          </button>
        ))}
      </div>
      {children.map((c, i) => (
        <div key={c.id} role="tabpanel" id={domId(c.id, '-panel')} aria-labelledby={domId(c.id, '-tab')} hidden={i !== current} class="svc-tabpanel svc-stack">
          <Nodes nodes={kids(c)} />
        </div>
      ))}
    </div>
  )
}

export function Tab({ node }: ElementProps<unknown>) {
  return (
    <div class="svc-stack">
      <Nodes nodes={kids(node)} />
    </div>
  )
}

export function Expander({ node, props }: ElementProps<ExpanderProps>) {
  const [open, setOpen] = useState(props.expanded)
  return (
    <details class="svc-expander" open={open} onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>
        {props.icon ? (
          <span class="svc-expander-icon" aria-hidden="true">
            <Icon value={props.icon} />
          </span>
        ) : null}
        <span class="svc-expander-label">{props.label}</span>
        <span class="svc-caret" aria-hidden="true" />
      </summary>
      <div class="svc-expander-body svc-stack">
        <Nodes nodes={kids(node)} />
      </div>
    </details>
  )
}

export function Container({ node, props }: ElementProps<ContainerProps>) {
  return (
    <div
      class={`svc-container svc-stack${props.border ? ' has-border' : ''}${props.height ? ' is-scroll' : ''}${props.horizontal ? ' is-row' : ''}${props.gap === undefined ? '' : ` gap-${props.gap ?? 'none'}`} h-${props.horizontalAlignment ?? 'left'} v-${props.verticalAlignment ?? 'top'}`}
      style={props.height ? { height: `${props.height}px` } : undefined}
      tabIndex={props.height ? 0 : undefined}
    >
      <Nodes nodes={kids(node)} />
    </div>
  )
}

function firstSubmitButton(nodes: UiNode[]): string | null {
  for (const n of nodes) {
    if (n.type === 'formSubmitButton') return n.id
    const inner = firstSubmitButton(n.children ?? [])
    if (inner) return inner
  }
  return null
}

/** Widgets inside record their edits here; the submit sends them together with the button's trigger. */
export function Form({ node, props }: ElementProps<FormProps>) {
  const rt = useRuntime()
  const values = useRef(new Map<string, unknown>())
  const [generation, setGeneration] = useState(0)
  const children = kids(node)
  const scope = useMemo<FormScope>(
    () => ({
      formId: props.formId,
      generation,
      set: (id, value) => values.current.set(id, value),
      forget: (id) => values.current.delete(id),
      submit: (buttonId) => {
        const button = buttonId ?? firstSubmitButton(children)
        const payload: Record<string, unknown> = Object.fromEntries(values.current)
        if (button) payload[button] = true
        values.current.clear()
        rt.submitForm(props.formId, payload)
        setGeneration((g) => g + 1)
      },
    }),
    [props.formId, generation, children, rt],
  )
  return (
    <FormContext.Provider value={scope}>
      <form
        class={`svc-form svc-stack${props.border ? ' has-border' : ''}`}
        data-testid="form"
        onSubmit={(e) => {
          e.preventDefault()
          scope.submit(null)
        }}
      >
        {/* A new `clears` count remounts the controls: they show the server's cleared values. */}
        <Fragment key={props.clears}>
          <Nodes nodes={children} />
        </Fragment>
      </form>
    </FormContext.Provider>
  )
}

export function Empty({ node }: ElementProps<unknown>) {
  return <Nodes nodes={kids(node)} />
}
