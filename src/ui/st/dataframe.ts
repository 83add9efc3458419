import { z } from '../../internal/zod.js'
import { SvcError } from '../../errors.js'
import type { Cell, DataColumn, RowId, SortSpec } from '../elements.js'
import type { DataframeOptions, DataframeSelection, TableData } from '../st-types.js'
import { resolveColumns } from './column-config.js'
import { normalizeRaw, sortOrder, tabularOf } from './data.js'
import { positionOf, rowIdentity, rowsByIndex, type KeyedRows, type RowIdentity } from './row-identity.js'
import type { Emitter } from './widgets.js'

export const DEFAULT_PAGE_SIZE = 25

/**
 * `st.dataframe`: server-paged tables and row selection. The data editor (`data-editor.ts`)
 * shares the paging and the row identity.
 *
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

export interface PageView {
  rows: Cell[][]
  rowIds: RowId[]
  page: number
  sort: SortSpec | null
}

/** One page of the table, sorted; cells of hidden columns are not included. */
export function pageView(table: PagedTable, page: number, sort: SortSpec | null): PageView {
  const col = sort ? table.columns.findIndex((c) => c.name === sort.column) : -1
  const s = sort && col >= 0 ? sort : null
  let order: number[] | null = null
  if (s) {
    const k = `${s.direction}:${s.column}`
    order = table.sorted.get(k) ?? sortOrder(table.rows, col, s.direction)
    table.sorted.set(k, order)
  }
  const pages = Math.max(1, Math.ceil(table.rows.length / table.pageSize))
  const p = Math.min(Math.max(0, Math.trunc(page)), pages - 1)
  const positions = Array.from({ length: Math.max(0, Math.min(table.pageSize, table.rows.length - p * table.pageSize)) }, (_v, i) => {
    const at = p * table.pageSize + i
    return order ? order[at]! : at
  })
  return {
    rows: positions.map((at) => table.visible.map((c) => table.rows[at]![c] ?? null)),
    rowIds: positions.map((at) => table.ids[at]!),
    page: p,
    sort: s,
  }
}

export function pageSizeOf(o: { pageSize?: number }): number {
  return Math.max(1, Math.trunc(o.pageSize ?? DEFAULT_PAGE_SIZE))
}

/** Emit the node, then fill in the page the session's view asks for (page/sort survive reruns). */
export function emitPaged(
  em: Emitter,
  type: 'dataframe' | 'dataEditor',
  table: PagedTable,
  props: Record<string, unknown>,
  id: string | undefined,
): void {
  const common = { columns: table.visible.map((i) => table.columns[i]!), rows: [], rowIds: [], totalRows: table.rows.length, page: 0, pageSize: table.pageSize, sort: null }
  const node = em.emit(type, { ...common, ...props } as never, id)
  const view = em.ctx.host.dataframeView(node.id)
  const { rows, rowIds, page, sort } = pageView(table, view?.page ?? 0, view?.sort ?? null)
  Object.assign(node.props, { rows, rowIds, page, sort })
  em.ctx.dataframes.set(node.id, table)
}

export function record(names: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (let i = 0; i < names.length; i++) out[names[i]!] = values[i]
  return out
}

export const WireRowId = z.union([z.number().int().min(0), z.string().max(512)])
export const RowsVersion = z.string().max(64).optional()
const Selection = z.object({ rows: z.array(WireRowId).max(1_000_000), rowsVersion: RowsVersion }).strict()

export function tableOptions(o: DataframeOptions) {
  return { height: o.height ?? null, hideIndex: o.hideIndex ?? true, useContainerWidth: o.useContainerWidth ?? false }
}

const fail = (what: string): never => {
  throw new SvcError('SVC_ERR_UI_BAD_CALL', `invalid widget value: ${what}`)
}

/** Records of the data: the page's own objects when it passed records (no copy per run). */
export function originalsOf(data: TableData, o: { columns?: string[] }): readonly object[] | undefined {
  return o.columns === undefined && Array.isArray(data) && data.length > 0 && !Array.isArray(data[0]) ? (data as readonly object[]) : undefined
}

/** A table as a run drew it: its rows' ids, and without a row key the version of its rows. */
export interface Drawn {
  identity: RowIdentity
  version: string | null
}

/**
 * Identify the rows of a table drawn as widget `id` (after `ctx.widget`, which the id comes
 * from). With a row key the keys of the last drawing are reused when they did not change;
 * without one the rows are compared with the last drawing's: `changed` means the held value
 * refers to rows that are not there any more.
 */
export function drawTable(em: Emitter, id: string, what: string, names: readonly string[], raw: readonly unknown[][], rows: readonly (readonly Cell[])[], o: { rowKey?: DataframeOptions['rowKey'] }, originals: readonly object[] | undefined): Drawn & { changed: boolean } {
  const store = em.ctx.host.widgets
  if (o.rowKey === undefined) return { identity: rowsByIndex(raw.length), ...store.rowsVersion(id, rows) }
  const keyed = rowIdentity(what, names, raw, o.rowKey, originals, store.memo.get(id) as KeyedRows | undefined)
  store.memo.set(id, keyed)
  return { identity: keyed.identity, version: null, changed: false }
}

/**
 * A selection as ids, checked. From the browser (`drawn`): ids of the table as drawn, made for
 * its rows' version; a key that is no longer drawn (the data changed under the click) selects
 * nothing. From the page or a snapshot: any ids of the right kind; the run drops the gone ones.
 */
function selectionIds(value: unknown, keyed: boolean, single: boolean, drawn: Drawn | null): RowId[] {
  const parsed = Selection.safeParse(value)
  if (!parsed.success) return fail('expected { rows: row ids }')
  const { rows, rowsVersion } = parsed.data
  if (new Set(rows.map(String)).size !== rows.length) fail('a row is selected twice')
  let ids: RowId[]
  if (keyed) {
    if (drawn && rows.some((r) => typeof r !== 'string')) fail('expected row keys')
    const keys = rows.map(String)
    ids = drawn ? keys.filter((k) => positionOf(drawn.identity, k) !== undefined) : keys
  } else {
    if (rows.some((r) => typeof r !== 'number')) fail('expected row indexes')
    if (drawn && rowsVersion !== undefined && rowsVersion !== drawn.version) fail('the rows changed since this selection was made')
    if (drawn && rows.some((r) => positionOf(drawn.identity, r) === undefined)) fail(`row index out of range (${drawn.identity.ids.length} rows)`)
    ids = rows
  }
  if (single && ids.length > 1) fail('single-row selection holds at most one row')
  return ids
}

export function dataframe(em: Emitter, data: TableData, o: DataframeOptions = {}): DataframeSelection | undefined {
  const { names, raw } = normalizeRaw(data, o.columns)
  const tab = tabularOf(names, raw)
  const { all, visible } = resolveColumns(tab.columns, o.columnConfig, o.columnOrder)
  const mode = o.selectionMode ?? null
  const table = (ids: RowId[]): PagedTable => ({ columns: all, rows: tab.rows, ids, visible, pageSize: pageSizeOf(o), sorted: new Map() })
  if (mode === null) {
    emitPaged(em, 'dataframe', table(rowsByIndex(raw.length).ids), { ...tableOptions(o), selectionMode: null, selection: [], rowsVersion: null }, o.key !== undefined ? `df-${o.key}` : undefined)
    return undefined
  }
  if (mode !== 'single-row' && mode !== 'multi-row') {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `dataframe(): selectionMode "${String(mode)}" is not supported; use 'single-row' or 'multi-row'`)
  }
  const single = mode === 'single-row'
  const keyed = o.rowKey !== undefined
  // Set once the widget has its id; browser values arrive only after the run.
  let drawn: Drawn = { identity: rowsByIndex(0), version: null }
  const fromState = (v: unknown): RowId[] => {
    const s = v as { selection?: { ids?: unknown; rows?: unknown }; rows?: unknown } | null
    return selectionIds({ rows: Array.isArray(v) ? v : (s?.selection?.ids ?? s?.selection?.rows ?? s?.rows) }, keyed, single, null)
  }
  const result = (ids: readonly RowId[], dropped: RowId[]): DataframeSelection => {
    const at = ids.flatMap((id) => positionOf(drawn.identity, id) ?? []).sort((a, b) => a - b)
    return { selection: { rows: at, ids: at.map((p) => drawn.identity.ids[p]!) }, rows: at.map((p) => record(names, raw[p]!)), dropped }
  }
  const onSelect = o.onSelect
  const r = em.ctx.widget<RowId[]>({
    type: 'dataframe', label: '', key: o.key, identity: [names, mode, typeof o.rowKey === 'function' ? 'fn' : (o.rowKey ?? null)], formId: em.formId, default: [],
    deserialize: (v) => selectionIds(v, keyed, single, drawn),
    fromState,
    onChange: onSelect ? (ids) => onSelect(result(ids, [])) : undefined,
  })
  const { changed, ...now } = drawTable(em, r.id, 'dataframe()', names, raw, tab.rows, o, originalsOf(data, o))
  drawn = now
  // Selected rows that are gone are dropped, never moved to the row now at their place.
  const kept = changed ? [] : r.value.filter((id) => positionOf(drawn.identity, id) !== undefined)
  const dropped = r.value.filter((id) => !kept.includes(id))
  const selected = result(kept, dropped)
  if (dropped.length > 0 || kept.some((id, i) => id !== selected.selection.ids[i])) em.ctx.replaceValue(r.id, selected.selection.ids)
  em.ctx.widgetDefaults.set(r.id, [])
  em.ctx.nodeResets.set(r.id, (props) => void (props.selection = []))
  emitPaged(em, 'dataframe', table(drawn.identity.ids), { ...tableOptions(o), selectionMode: mode, selection: selected.selection.ids, rowsVersion: drawn.version }, r.id)
  return selected
}
