import { sameValue } from '../st/values.js'
import { SvcError } from '../../errors.js'

/**
 * Widget values of one session, kept between runs. The browser sends raw values (an option
 * index, base64 files); `WidgetMeta.deserialize` of the widget's last render turns them into
 * the value the page sees. Triggers (button clicks) are true for exactly one completed run.
 */

export interface WidgetMeta {
  readonly type: string
  readonly key: string | null
  readonly formId: string | null
  readonly trigger: boolean
  /** Raw browser value → page value; throws on a value the widget cannot hold. */
  readonly deserialize: (raw: unknown) => unknown
  /** A page-side value (from `st.sessionState` or a test) → value; throws when invalid. */
  readonly fromState: (value: unknown) => unknown
  readonly onChange: ((value: unknown) => void | Promise<void>) | undefined
}

export interface ChangedWidget {
  id: string
  meta: WidgetMeta
  value: unknown
}

export class WidgetStore {
  readonly values = new Map<string, unknown>()
  readonly metas = new Map<string, WidgetMeta>()
  readonly #pending = new Map<string, unknown>()
  readonly #pendingTriggers = new Set<string>()
  /** Triggers the next completed run sees as true. */
  readonly activeTriggers = new Set<string>()

  /** Queue a browser value; false when the widget is unknown or the value invalid. */
  queue(id: string, raw: unknown, trigger: boolean): boolean {
    const meta = this.metas.get(id)
    if (!meta) return false
    if (meta.trigger) {
      if (raw === false) return false
      this.#pendingTriggers.add(id)
      return true
    }
    let value: unknown
    try {
      value = meta.deserialize(raw)
    } catch {
      return false
    }
    this.#pending.set(id, value)
    if (trigger) this.#pendingTriggers.add(id)
    return true
  }

  /** Queue a page-side value (the test handle's `setValue`); throws when the widget cannot hold it. */
  queueValue(id: string, value: unknown): void {
    const meta = this.metas.get(id)
    if (!meta) throw new SvcError('SVC_ERR_UI_WIDGET_STATE', `no widget with id ${id} was rendered in the last run`)
    if (meta.trigger) {
      if (value === true) this.#pendingTriggers.add(id)
      return
    }
    this.#pending.set(id, meta.fromState(value))
  }

  /**
   * Apply queued values (newer already replaced older per widget) and return the widgets whose
   * value changed or that were triggered: their callbacks run before the page.
   */
  applyPending(sessionState: Record<string, unknown>): ChangedWidget[] {
    const changed: ChangedWidget[] = []
    for (const [id, value] of this.#pending) {
      const meta = this.metas.get(id)
      if (!meta) continue
      const before = meta.key !== null && meta.key in sessionState ? sessionState[meta.key] : this.values.get(id)
      this.values.set(id, value)
      if (meta.key !== null) sessionState[meta.key] = value
      if (!sameValue(before, value)) changed.push({ id, meta, value })
    }
    for (const id of this.#pendingTriggers) {
      const meta = this.metas.get(id)
      this.activeTriggers.add(id)
      if (meta?.trigger) changed.push({ id, meta, value: true })
      // A value sent with a trigger (a chat submit) is news even when it repeats the last one.
      else if (meta && !changed.some((c) => c.id === id)) changed.push({ id, meta, value: this.values.get(id) })
    }
    this.#pending.clear()
    this.#pendingTriggers.clear()
    return changed
  }

  /** After a completed run: drop widgets it did not render (and their session-state keys). */
  dropUnrendered(rendered: ReadonlySet<string>, sessionState: Record<string, unknown>): void {
    for (const [id, meta] of this.metas) {
      if (rendered.has(id)) continue
      this.metas.delete(id)
      this.values.delete(id)
      if (meta.key !== null) delete sessionState[meta.key]
    }
  }

  /** Forget values of a form's widgets (clearOnSubmit). */
  clearForm(formId: string, sessionState: Record<string, unknown>): void {
    for (const [id, meta] of this.metas) {
      if (meta.formId !== formId || meta.trigger) continue
      this.values.delete(id)
      if (meta.key !== null) delete sessionState[meta.key]
    }
  }
}
