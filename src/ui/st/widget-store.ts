import { randomBytes } from 'node:crypto'
import type { Cell } from '../wire/elements.js'
import { sameValue } from './values.js'
import { SvcError } from '../../errors.js'
import { WidgetRevisions } from './widget-revisions.js'

/**
 * Widget values of one session, kept between runs. The browser sends raw values (an option
 * index, base64 files); `WidgetMeta.deserialize` of the widget's last render turns them into
 * the value the page sees. Triggers (button clicks) are true for exactly one completed run.
 *
 * The server holds every widget to what it drew: a value for a widget drawn disabled, for a
 * widget of another form (or of a form, sent outside its submit), or a click that is not `true`
 * is refused like an invalid value, without a rerun.
 *
 * Input is applied in the order it came: values and clicks queue in batches, one per run, and a
 * batch that holds a click (a button, a form submit, a chat message) takes nothing that came
 * after it. So a click's run never sees later input, and a run cut short by new input reruns
 * the same click, never one merged with what the user did after it.
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

interface Batch {
  values: Map<string, unknown>
  triggers: Set<string>
  /** Holds a click and its message ended: later input opens a new batch. */
  sealed: boolean
  /** The number of the client message that opened it. */
  seq: number
}

export class WidgetStore {
  readonly values = new Map<string, unknown>()
  readonly metas = new Map<string, WidgetMeta>()
  /** Input not yet applied by a run, oldest first; only the last batch may still take more. */
  readonly #batches: Batch[] = []
  /** Triggers of the batch the current run applied: true until a run completes. */
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
  /** When the server overrode what each widget's control shows (see `WidgetRevisions`). */
  readonly revisions = new WidgetRevisions()

  /**
   * Queue a browser value; false when the widget is unknown, was drawn disabled, belongs to
   * another form than `formId` (null: a widget message outside any form) or the value is invalid.
   */
  queue(id: string, raw: unknown, trigger: boolean, formId: string | null = null, seq = 0): boolean {
    const meta = this.metas.get(id)
    if (!meta) return false
    // The control may show the refused value: it must show the held one again.
    if (meta.disabled || meta.formId !== formId) return this.#refuse(id)
    if (meta.trigger) {
      if (raw !== true) return this.#refuse(id)
      this.#open(seq).triggers.add(id)
      return true
    }
    let value: unknown
    try {
      value = meta.deserialize(raw)
    } catch (err) {
      const reason = (err as { visitorReason?: unknown } | null)?.visitorReason
      return this.#refuse(id, typeof reason === 'string' ? reason : null)
    }
    const batch = this.#open(seq)
    batch.values.set(id, value)
    if (trigger) batch.triggers.add(id)
    return true
  }

  #refuse(id: string, reason: string | null = null): false {
    this.revisions.bump(id, reason)
    return false
  }

  #open(seq = 0): Batch {
    const last = this.#batches.at(-1)
    if (last && !last.sealed) return last
    const batch: Batch = { values: new Map(), triggers: new Set(), sealed: false, seq }
    this.#batches.push(batch)
    return batch
  }

  /** The end of one message's input: a batch holding a click takes nothing that comes after it. */
  seal(): void {
    const last = this.#batches.at(-1)
    if (last && last.triggers.size > 0) last.sealed = true
  }

  /**
   * Whether the input queued last waits behind a click: the click's run must complete first (a
   * new run would not change that, so the one under way goes on).
   */
  get waiting(): boolean {
    return this.#batches.length > 1 || (this.#batches.length === 1 && this.activeTriggers.size > 0)
  }

  /** The number of the first client message (`queue`'s `seq`) whose input no run has applied yet, or null. */
  get oldestQueuedSeq(): number | null {
    return this.#batches[0]?.seq ?? null
  }

  /** The widgets of the batch the next run applies, or null when nothing is queued. */
  nextBatch(): string[] | null {
    const batch = this.#batches[0]
    return batch ? [...batch.values.keys(), ...batch.triggers] : null
  }

  /** Queue a page-side value (the test handle's `setValue`); throws when the widget cannot hold it. */
  queueValue(id: string, value: unknown): void {
    const meta = this.metas.get(id)
    if (!meta) throw new SvcError('SVC_ERR_UI_WIDGET_STATE', `no widget with id ${id} was rendered in the last run`)
    if (meta.trigger) {
      if (value === true) this.#open().triggers.add(id)
      return
    }
    this.#open().values.set(id, meta.fromState(value))
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
   * Apply the oldest queued batch (newer values already replaced older per widget) and return
   * the widgets whose value changed or that were triggered: their callbacks run before the page.
   * While a click's run has not completed (it was cut short), nothing more is applied: the run
   * that replaces it sees the same click and no later input.
   */
  applyPending(sessionState: Record<string, unknown>): ChangedWidget[] {
    const changed: ChangedWidget[] = []
    if (this.activeTriggers.size > 0) return changed
    const batch = this.#batches.shift()
    if (!batch) return changed
    for (const [id, value] of batch.values) {
      const meta = this.metas.get(id)
      if (!meta) continue
      const before = meta.key !== null && meta.key in sessionState ? sessionState[meta.key] : this.values.get(id)
      this.values.set(id, value)
      this.#restored.delete(id)
      if (meta.key !== null) sessionState[meta.key] = value
      if (!sameValue(before, value)) changed.push({ id, meta, value })
    }
    for (const id of batch.triggers) {
      const meta = this.metas.get(id)
      this.activeTriggers.add(id)
      if (meta?.trigger) changed.push({ id, meta, value: true })
      // A value sent with a trigger (a chat submit) is news even when it repeats the last one.
      else if (meta && !changed.some((c) => c.id === id)) changed.push({ id, meta, value: this.values.get(id) })
    }
    return changed
  }

  /** After a completed run: drop widgets it did not render (and their session-state keys). */
  dropUnrendered(rendered: ReadonlySet<string>, sessionState: Record<string, unknown>): void {
    this.#restored.clear()
    this.revisions.clearKeyWrites()
    for (const [id, meta] of this.metas) {
      if (rendered.has(id)) continue
      this.metas.delete(id)
      this.values.delete(id)
      this.revisions.forget(id)
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
    this.revisions.bump(id)
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
