import { useEffect, useRef, useState } from 'preact/hooks'
import type { DialogProps, PopoverProps, StatusProps } from '../../wire/elements.js'
import { useRuntime } from '../context.js'
import { Nodes } from '../render.js'
import { domId, Help } from '../widgets/field.js'
import type { ElementProps } from './types.js'

function CloseIcon() {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true">
      <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" stroke-width="2" stroke-linecap="round" fill="none" />
    </svg>
  )
}

/**
 * A native modal `<dialog>` (focus trap, Escape, top layer). Dismissing closes it at once and
 * tells the server, whose next render no longer has it; a render that still has it (the page
 * reopened it) shows it again.
 */
export function Dialog({ node, props }: ElementProps<DialogProps>) {
  const rt = useRuntime()
  const ref = useRef<HTMLDialogElement>(null)
  const dismissed = useRef(false)
  /** `data-id` of the element last focused inside, to focus it again after a re-show. */
  const focused = useRef<string | null>(null)
  /**
   * Moving an open modal in the DOM (the page opened it at another position, or elements before
   * it came or went) drops it out of the top layer but leaves it open: show it as a modal again,
   * focus where the user was. Unchanged nodes are not re-rendered (render diffs), so this watches
   * the DOM rather than waiting for a render of the dialog.
   */
  const keepModal = () => {
    const d = ref.current
    if (!d || !d.open || d.matches(':modal') || !d.isConnected) return
    const last = focused.current
    d.close()
    d.showModal()
    const was = last && d.querySelector(`[data-id="${CSS.escape(last)}"]`)
    if (was) was.querySelector<HTMLElement>('input, textarea, select, button')?.focus()
  }
  useEffect(() => {
    const observer = new MutationObserver(keepModal)
    observer.observe(document.body, { childList: true, subtree: true })
    return () => observer.disconnect()
  }, [])
  useEffect(() => {
    const d = ref.current
    if (!d || node.stale) return
    dismissed.current = false
    keepModal()
    if (!d.open) d.showModal()
  }, [node.props, node.stale])
  const dismiss = () => {
    if (!props.dismissible || dismissed.current) return
    dismissed.current = true
    ref.current?.close()
    rt.sendWidget(node.id, true, true)
  }
  const titleId = domId(node.id, '-title')
  return (
    <dialog
      ref={ref}
      class={`svc-dialog is-${props.width}`}
      aria-labelledby={titleId}
      data-testid="dialog"
      onCancel={(e) => {
        e.preventDefault()
        dismiss()
      }}
      onClick={(e) => {
        if (e.target === ref.current) dismiss()
      }}
      onFocusIn={(e) => {
        focused.current = (e.target as Element).closest('[data-id]')?.getAttribute('data-id') ?? null
      }}
    >
      <div class="svc-dialog-panel">
        <div class="svc-dialog-head">
          <h2 id={titleId} class="svc-dialog-title">
            {props.title}
          </h2>
          {props.dismissible ? (
            <button type="button" class="svc-dialog-close" aria-label="Close" onClick={dismiss}>
              <CloseIcon />
            </button>
          ) : null}
        </div>
        <div class="svc-dialog-body svc-stack">
          <Nodes nodes={node.children ?? []} />
        </div>
      </div>
    </dialog>
  )
}

/** The panel stays mounted while closed so edits inside survive; outside clicks and Escape close it. */
export function Popover({ node, props }: ElementProps<PopoverProps>) {
  const [open, setOpen] = useState(false)
  const wrap = useRef<HTMLDivElement>(null)
  const button = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (!open) return
    const onDown = (e: MouseEvent) => {
      if (!wrap.current?.contains(e.target as Node)) setOpen(false)
    }
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return
      setOpen(false)
      button.current?.focus()
    }
    document.addEventListener('mousedown', onDown)
    window.addEventListener('keydown', onKey)
    return () => {
      document.removeEventListener('mousedown', onDown)
      window.removeEventListener('keydown', onKey)
    }
  }, [open])
  const panelId = domId(node.id, '-panel')
  return (
    <div class={props.useContainerWidth ? 'svc-popover is-full' : 'svc-popover'} ref={wrap} data-testid="popover" data-label={props.label}>
      <div class="svc-button-row">
        <button
          ref={button}
          type="button"
          class={`svc-button is-secondary${props.useContainerWidth ? ' is-full' : ''}`}
          aria-expanded={open}
          aria-controls={panelId}
          disabled={props.disabled}
          onClick={() => setOpen((o) => !o)}
        >
          {props.icon ? (
            <span class="svc-button-icon" aria-hidden="true">
              {props.icon}
            </span>
          ) : null}
          <span>{props.label}</span>
          <span class={open ? 'svc-caret is-open' : 'svc-caret'} aria-hidden="true" />
        </button>
        {props.help ? <Help text={props.help} /> : null}
      </div>
      <div id={panelId} class="svc-popover-panel svc-stack" role="dialog" aria-label={props.label} hidden={!open}>
        <Nodes nodes={node.children ?? []} />
      </div>
    </div>
  )
}

const STATE_TEXT = { running: 'Running', complete: 'Complete', error: 'Error' } as const

function StateIcon({ state }: { state: StatusProps['state'] }) {
  if (state === 'running') return <span class="svc-dot-spinner" />
  if (state === 'complete') {
    return (
      <svg viewBox="0 0 24 24">
        <path d="M5 12.5l4.5 4.5L19 7.5" stroke="currentColor" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round" fill="none" />
      </svg>
    )
  }
  return <CloseIcon />
}

/** An expander whose header shows the state; a new `expanded` from the server opens or closes it. */
export function Status({ node, props }: ElementProps<StatusProps>) {
  const [open, setOpen] = useState(props.expanded)
  useEffect(() => setOpen(props.expanded), [props.expanded])
  return (
    <details
      class={`svc-expander svc-status is-${props.state}`}
      open={open}
      data-testid="status"
      data-state={props.state}
      onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}
    >
      <summary>
        <span class="svc-status-icon" aria-hidden="true">
          <StateIcon state={props.state} />
        </span>
        <span class="svc-expander-label">{props.label}</span>
        <span class="svc-visually-hidden" role="status">
          {STATE_TEXT[props.state]}
        </span>
        <span class="svc-caret" aria-hidden="true" />
      </summary>
      <div class="svc-expander-body svc-stack">
        <Nodes nodes={node.children ?? []} />
      </div>
    </details>
  )
}
