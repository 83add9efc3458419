import { SvcError } from '../../errors.js'
import type { StatusProps } from '../wire/elements.js'
import { isRunSignal, RerunRequested } from './signals.js'
import type { Dialog, DialogOptions, PopoverOptions, StatusContainer, StatusOptions, StContainer } from '../st-types.js'
import type { NestingContainer } from './run-context.js'

/** `st.dialog`, `st.popover`, `st.status`. */

export type DialogBody = (dialog: StContainer, handle: Dialog) => void | Promise<void>

/** Open dialogs per session (keyed by the session's widget store, which lives as long as the session). */
const openDialogs = new WeakMap<object, Set<string>>()

function openSet(c: NestingContainer): Set<string> {
  const owner = c.ctx.host.widgets
  let set = openDialogs.get(owner)
  if (!set) {
    set = new Set()
    openDialogs.set(owner, set)
  }
  return set
}

/**
 * A dialog is a trigger widget: ✕/Escape send a click on its id, which closes it for the run
 * that click causes. While open, the body runs wherever `st.dialog` (or `open()`) is called, as a
 * fragment: a widget inside it reruns the body alone.
 */
export async function dialog(c: NestingContainer, title: string, fn: DialogBody, o: DialogOptions = {}): Promise<Dialog> {
  const label = String(title)
  if (typeof fn !== 'function') throw new SvcError('SVC_ERR_UI_BAD_CALL', `dialog("${label}"): pass the body as a function, e.g. st.dialog("${label}", (d) => { d.write("…") })`)
  if (c.formId !== null) throw new SvcError('SVC_ERR_UI_BAD_CALL', `dialog("${label}") cannot be declared inside form "${c.formId}"; declare it on st`)
  const ctx = c.ctx
  const name = o.key ?? label
  const open = openSet(c)
  const onDismiss = o.onDismiss
  const { id, value: dismissed } = ctx.widget<boolean>({
    type: 'dialog', label, key: o.key, identity: [], formId: null, default: false, trigger: true,
    deserialize: (r) => r === true,
    onChange: onDismiss ? () => onDismiss() : undefined,
  })
  if (dismissed) open.delete(name)
  let shown = false
  // The run the handle belongs to: the page run, then each rerun of the body alone.
  let active = ctx
  const render = async (): Promise<void> => {
    shown = true
    const { node, body } = c.nest('dialog', { title: label, width: o.width ?? 'medium', dismissible: o.dismissible ?? true }, id, null)
    const inside = (f: string): boolean => c.path === f || c.path.startsWith(`${f}.`)
    // Inside a fragment the body already reruns with that fragment (fragments do not nest).
    if ((ctx.scope !== null && inside(ctx.scope)) || [...ctx.fragments.keys()].some(inside)) return fn(body, handle)
    // Otherwise the body is a fragment of its own: its widgets rerun the body alone, not the page.
    ctx.fragments.set(node.id, {
      fn: (st) => {
        active = (st as unknown as NestingContainer).ctx
        return fn(st, handle)
      },
      runEveryMs: null,
    })
    await fn(ctx.stFor!({ id: node.id, list: node.children! }), handle)
  }
  const handle: Dialog = {
    get isOpen() {
      return open.has(name)
    },
    async open() {
      active.check()
      open.add(name)
      if (!shown) await render()
    },
    close(): never {
      active.check()
      open.delete(name)
      throw new RerunRequested()
    },
  }
  if (open.has(name)) await render()
  return handle
}

export function popover(c: NestingContainer, label: string, o: PopoverOptions = {}): StContainer {
  return c.nest('popover', {
    label: String(label), icon: o.icon ?? null, disabled: o.disabled ?? false, useContainerWidth: o.useContainerWidth ?? false, help: o.help ?? null,
  }).body
}

export function status<T>(
  c: NestingContainer,
  label: string,
  fnOrOptions?: StatusOptions | ((s: StatusContainer) => T | Promise<T>),
  options?: StatusOptions,
): StatusContainer | Promise<T> {
  const fn = typeof fnOrOptions === 'function' ? fnOrOptions : null
  const o = (fn ? options : (fnOrOptions as StatusOptions | undefined)) ?? {}
  const props: StatusProps = { label: String(label), state: o.state ?? 'running', expanded: o.expanded ?? false }
  const { body } = c.nest('status', props)
  const s = Object.assign(body, {
    update(change: { label?: string; state?: StatusProps['state']; expanded?: boolean }): void {
      c.ctx.check()
      if (change.label !== undefined) props.label = String(change.label)
      if (change.state !== undefined) props.state = change.state
      if (change.expanded !== undefined) props.expanded = change.expanded
      c.ctx.touch()
    },
  }) as StatusContainer
  if (!fn) return s
  return (async () => {
    try {
      const result = await fn(s)
      if (c.ctx.current) s.update({ state: 'complete' })
      return result
    } catch (err) {
      if (c.ctx.current && !isRunSignal(err)) s.update({ state: 'error', expanded: true })
      throw err
    }
  })()
}
