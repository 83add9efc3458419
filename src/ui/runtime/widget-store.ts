import { randomBytes } from 'node:crypto'
import type { Cell } from '../elements.js'
import { sameValue } from '../st/values.js'
import { SvcError } from '../../errors.js'

/**
 * Widget values of one session, kept between runs. The browser sends raw values (an option
 * index, base64 files); `WidgetMeta.deserialize` of the widget's last render turns them into
 * the value the page sees. Triggers (button clicks) are true for exactly one completed run.
 *
 * The server holds every widget to what it drew: a value for a widget drawn disabled, for a
 * widget of another form (or of a form, sent outside its submit), or a click that is not `true`
 * is refused like an invalid value, without a rerun.
 */

export interface WidgetMeta {
  readonly type: string
  readonly key: string | null
  readonly formId: string | null
  readonly trigger: boolean
  /** Drawn disabled: the browser cannot change it, so no value is taken for it. */
  readonly disabled: boolean
  /** The value a reset puts back. */
  readonly default: unknown
  /** Raw browser value → page value; throws on a value the widget cannot hold. */
  readonly deserialize: (raw: unknown) => unknown
  /** A page-side value (from `st.sessionState`, a test or a snapshot) → value; throws when invalid. */
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
  /** What a widget's last drawing computed for the next one (a table's row keys), dropped with it. */
  readonly memo = new Map<string, unknown>()
  /** Values read back from a snapshot, not yet checked by their widget. */
  readonly #restored = new Set<string>()
  /** Tables without a row key: the rows their selection or edits were made against. */
  readonly #rows = new Map<string, { rows: readonly (readonly Cell[])[]; version: string }>()
  /** Versions differ between sessions and processes, so a browser's stale one never matches by chance. */
  readonly #versionPrefix = randomBytes(6).toString('base64url')
  #versions = 0

  /**
   * Queue a browser value; false when the widget is unknown, was drawn disabled, belongs to
   * another form than `formId` (null: a widget message outside any form) or the value is invalid.
   */
  queue(id: string, raw: unknown, trigger: boolean, formId: string | null = null): boolean {
    const meta = this.metas.get(id)
    if (!meta || meta.disabled || meta.formId !== formId) return false
    if (meta.trigger) {
      if (raw !== true) return false
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

  /** A value read back from a snapshot: its widget checks it (`fromState`) before the page sees it. */
  restore(id: string, value: unknown): void {
    this.values.set(id, value)
    this.#restored.add(id)
  }

  isRestored(id: string): boolean {
    return this.#restored.has(id)
  }

  /**
   * The version of the rows a table without a row key shows, and whether they changed since the
   * widget was last drawn (then its selection or edits no longer point at the same rows). Rows of
   * a value restored from a snapshot are unknown, so they count as changed.
   */
  rowsVersion(id: string, rows: readonly (readonly Cell[])[]): { version: string; changed: boolean } {
    const before = this.#rows.get(id)
    if (before && sameRows(before.rows, rows)) {
      before.rows = rows
      return { version: before.version, changed: false }
    }
    const version = `${this.#versionPrefix}.${++this.#versions}`
    this.#rows.set(id, { rows, version })
    return { version, changed: before !== undefined || this.#restored.has(id) }
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
      this.#restored.delete(id)
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
    this.#restored.clear()
    for (const [id, meta] of this.metas) {
      if (rendered.has(id)) continue
      this.metas.delete(id)
      this.values.delete(id)
      this.#rows.delete(id)
      this.memo.delete(id)
      if (meta.key !== null) delete sessionState[meta.key]
    }
  }

  /** Put a widget back to its default (and its session-state key, which mirrors it). */
  reset(id: string, sessionState: Record<string, unknown>): void {
    const meta = this.metas.get(id)
    if (!meta) return
    this.values.set(id, meta.default)
    this.#restored.delete(id)
    if (meta.key !== null) sessionState[meta.key] = meta.default
  }

  /** Forget values of a form's widgets (clearOnSubmit); returns their ids. */
  clearForm(formId: string, sessionState: Record<string, unknown>): string[] {
    const cleared: string[] = []
    for (const [id, meta] of this.metas) {
      if (meta.formId !== formId || meta.trigger) continue
      this.reset(id, sessionState)
      cleared.push(id)
    }
    return cleared
  }
}

function sameRows(a: readonly (readonly Cell[])[], b: readonly (readonly Cell[])[]): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (x.length !== y.length) return false
    for (let c = 0; c < x.length; c++) if (x[c] !== y[c] && !sameValue(x[c], y[c])) return false
  }
  return true
}
