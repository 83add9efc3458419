import { SvcError } from '../../errors.js'
import type { Cell, DataColumn, ElementPropsMap, ExceptionProps, RowId, SortSpec, UiElement } from '../wire/elements.js'
import type { MediaStore } from '../media-store.js'
import type { QueryState } from './query-params.js'
import type { St, StBrowserStorage, StContainer, StContext, StCookies, StUserStorage } from '../st-types.js'
import type { RegisteredSecrets } from '../../secrets/register.js'
import type { PageIdentity, StUser } from '../../auth/user.js'
import { sameValue } from './values.js'
import { RunAborted } from './signals.js'
import type { UploadStore } from './upload-store.js'
import type { WidgetMeta, WidgetStore } from './widget-store.js'
import type { TaskDefinition, TaskHandle, TaskOptions } from '../tasks/task-types.js'

/** What a run needs from its session. */
export interface RunHost {
  /** The session's current run generation; a run with another one is stale. */
  readonly generation: number
  readonly widgets: WidgetStore
  readonly state: Record<string, unknown>
  readonly query: QueryState
  readonly context: StContext
  readonly media: MediaStore
  /** Files posted to the upload endpoint for this session (`fileUploader` takes them by reference). */
  readonly uploads: UploadStore
  readonly secrets: RegisteredSecrets
  /** `st.user` of this run. */
  readonly user: StUser
  /** The app's login, or null when it has none. */
  readonly identity: PageIdentity | null
  /** The page path and query of this run (where `st.login()` comes back to). */
  readonly path: string
  /** Send the browser to an app URL (a full page load). */
  redirect(url: string): void
  hasPage(path: string): boolean
  toast(body: string, icon: string | null): void
  dataframeView(id: string): { page: number; sort: SortSpec | null } | undefined
  /** How often the form was cleared on submit in this session. */
  formClears(formId: string): number
  /** Logs a page exception (thrown or passed to `st.exception`) and returns what the visitor may see of it. */
  exceptionProps(error: unknown): ExceptionProps
  readonly cookies: StCookies
  readonly localStore: StBrowserStorage
  readonly tabStore: StBrowserStorage
  readonly userStorage: StUserStorage
  /** `st.task(key, task, options)`: the key's task, started when `options.input` is given and the key has none. */
  task<I, R, P>(key: string, task: TaskDefinition<I, R, P>, options: TaskOptions<I>): TaskHandle<I, R, P>
}

export interface WidgetSpec<V> {
  type: string
  label: string
  key: string | undefined
  /** Parameters that, without a key, are part of the identity (options, defaults). */
  identity: unknown[]
  formId: string | null
  default: V
  trigger?: boolean
  /** Drawn disabled: the server takes no value for it from the browser. */
  disabled?: boolean | undefined
  /** Raw browser value → page value; throws when invalid. */
  deserialize: (raw: unknown) => V
  /** A value found in `st.sessionState[key]` → page value; throws when the widget cannot hold it. */
  fromState?: (value: unknown) => V
  onChange?: ((value: V) => void | Promise<void>) | undefined
}

/** 32-bit FNV-1a, twice with different seeds: short, stable widget ids without crypto cost. */
function hash(text: string): string {
  let a = 0x811c9dc5
  let b = 0x01000193 ^ 0x5bd1e995
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
  }
  return (a >>> 0).toString(36) + (b >>> 0).toString(36)
}

function stableJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'function' ? undefined : typeof v === 'bigint' ? v.toString() : v)) ?? ''
  } catch {
    return ''
  }
}

/** A download made when the visitor clicks: the page's function and what the file is called. */
export interface DeferredDownload {
  make: () => unknown
  mime: string | null
  fileName: string
}

export interface FragmentSpec {
  fn: (st: St) => unknown
  runEveryMs: number | null
}

/** What a widget needs from the container it is written into. */
export interface Emitter {
  readonly ctx: RunContext
  readonly formId: string | null
  emit<T extends keyof ElementPropsMap>(type: T, props: ElementPropsMap[T], id?: string, children?: UiElement[]): UiElement
}

/** A container as the helpers that draw into it and nest in it see it (chat, fragments, overlays; `Container` is one). */
export interface NestingContainer extends Emitter {
  /** The id path of the element it draws into. */
  readonly path: string
  nest<T extends keyof ElementPropsMap>(type: T, props: ElementPropsMap[T], id?: string, formId?: string | null): { node: UiElement; body: NestingContainer & StContainer }
}

/**
 * What a session keeps of a dataframe or data editor of the last run to answer `dataframe_page`
 * without a rerun: every row (edits applied), their ids and the shown columns. Sort orders are
 * computed once per column and direction, so paging a sorted 100k-row table only slices.
 */
export interface PagedTable {
  columns: DataColumn[]
  rows: Cell[][]
  /** Row id per row (see `RowId`; added rows follow). */
  ids: RowId[]
  visible: number[]
  pageSize: number
  sorted: Map<string, number[]>
}

/** One execution of a page function: its element tree and the widgets it declared. */
export class RunContext {
  readonly main: UiElement[] = []
  readonly sidebar: UiElement[] = []
  readonly rendered = new Set<string>()
  readonly keys = new Map<string, string>()
  readonly forms = new Map<string, { clearOnSubmit: boolean }>()
  readonly dataframes = new Map<string, PagedTable>()
  /** Download buttons whose data is made on click (`data` a function), by widget id. */
  readonly downloads = new Map<string, DeferredDownload>()
  /** Serialized defaults of widgets, to reset a cleared form in the final render. */
  readonly widgetDefaults = new Map<string, unknown>()
  /** Widgets whose drawn node needs more than `props.value = default` to show their reset. */
  readonly nodeResets = new Map<string, (props: Record<string, unknown>) => void>()
  /** Keyed widgets whose `st.sessionState` key the page deleted after drawing them in this run. */
  readonly resetAfterDraw = new Set<string>()
  /** Bumped on every tree change; partial renders are sent only when it moved. */
  version = 0
  /** Fragments this run drew, by node id. */
  readonly fragments = new Map<string, FragmentSpec>()
  /** Task keys this run read (`st.task`), and where: null at page level, else the fragment's id. */
  readonly taskReads = new Map<string, Set<string | null>>()
  /** Makes the `st` of a fragment (set by `createSt`, which owns the `st` classes). */
  stFor: ((target: { id: string; list: UiElement[] }) => St) | null = null

  constructor(
    readonly generation: number,
    readonly host: RunHost,
    /** The fragment this run reruns alone, or null for a page run. */
    readonly scope: string | null = null,
  ) {}

  get current(): boolean {
    return this.host.generation === this.generation
  }

  /** Every element call starts here: a stale run stops at its next `st` call. */
  check(): void {
    if (!this.current) throw new RunAborted()
  }

  touch(): void {
    this.version++
  }

  /** Register a widget for this run and return its id and current value. */
  widget<V>(spec: WidgetSpec<V>): { id: string; value: V } {
    this.check()
    const key = spec.key ?? null
    if (key !== null && key.startsWith('$$')) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `${spec.type}("${spec.label}"): keys starting with "$$" are reserved; choose another key`)
    }
    const basis = key !== null ? [spec.type, key, spec.label] : [spec.type, spec.label, spec.formId, ...spec.identity]
    const id = `$$w-${hash(stableJson(basis))}${key !== null ? '-' + key : ''}`
    if (key !== null && this.keys.has(key)) {
      throw new SvcError('SVC_ERR_UI_DUPLICATE_WIDGET', `two widgets use the key "${key}" in one run (a ${spec.type} "${spec.label}" and an earlier widget); every key must be unique`)
    }
    if (this.rendered.has(id)) {
      throw new SvcError(
        'SVC_ERR_UI_DUPLICATE_WIDGET',
        `two ${spec.type} widgets with the label "${spec.label}" and the same options in one run; give each a unique key, e.g. st.${spec.type}(${JSON.stringify(spec.label)}, { key: "${spec.type}-2" })`,
      )
    }
    this.rendered.add(id)
    if (key !== null) this.keys.set(key, id)
    const store = this.host.widgets
    const meta: WidgetMeta = {
      type: spec.type,
      key,
      formId: spec.formId,
      trigger: spec.trigger === true,
      disabled: spec.disabled === true,
      default: spec.default,
      deserialize: spec.deserialize as (raw: unknown) => unknown,
      fromState: (spec.fromState ?? spec.deserialize) as (value: unknown) => unknown,
      onChange: spec.onChange as WidgetMeta['onChange'],
    }
    store.metas.set(id, meta)
    if (meta.trigger) return { id, value: store.activeTriggers.has(id) as V }
    const state = this.host.state
    const checked = (v: unknown): V => {
      try {
        return (spec.fromState ?? spec.deserialize)(v)
      } catch {
        return spec.default
      }
    }
    // A keyed widget's value lives in `st.sessionState[key]`: a deleted key is a reset.
    const held = store.values.has(id)
    const before = store.values.get(id)
    let value: V
    if (key !== null) value = key in state ? checked(state[key]) : spec.default
    else if (!held) value = spec.default
    else value = store.isRestored(id) ? checked(before) : (before as V)
    // The page set or reset it, or it could not hold what it held: not what the control shows.
    const written = key !== null && store.revisions.takeKeyWrite(key)
    if (held && (written || !sameValue(before, value))) store.revisions.bump(id)
    store.values.set(id, value)
    if (key !== null) state[key] = value
    return { id, value }
  }

  /** Replace the value a widget drawn in this run holds (a table dropping edits of rows that are gone). */
  replaceValue(id: string, value: unknown): void {
    if (!sameValue(this.host.widgets.values.get(id), value)) this.host.widgets.revisions.bump(id)
    this.host.widgets.values.set(id, value)
    const key = this.host.widgets.metas.get(id)?.key ?? null
    if (key !== null) this.host.state[key] = value
  }
}
