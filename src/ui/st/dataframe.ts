import { z } from '../../internal/zod.js'
import { SvcError } from '../../errors.js'
import type { Cell, RowId, SortSpec, TableSelectionModes } from '../wire/elements.js'
import type { DataframeOptions, DataframeSelection, DataframeSelectionMode, TableData } from '../st-types.js'
import { CHART_COLUMN_KINDS, resolveColumns } from '../column-config.js'
import { sparkline, sparklineValues } from './sparkline.js'
import { normalizeRaw, sortOrder, tabularOf } from './data.js'
import { positionOf, rowIdentity, rowsByIndex, type KeyedRows, type RowIdentity } from './row-identity.js'
import type { Emitter, PagedTable } from './run-context.js'

export const DEFAULT_PAGE_SIZE = 25

/**
 * `st.dataframe`: server-paged tables and row selection. The data editor (`data-editor.ts`)
 * shares the paging and the row identity. What a session keeps of a table between runs is a
 * `PagedTable` (run-context.ts).
 */

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
  const shown = table.visible.map((c) => {
    const column = table.columns[c]!
    const kind = CHART_COLUMN_KINDS[column.type]
    if (column.type === 'time') return timeCell
    return kind === undefined ? null : (cell: Cell): Cell => (Array.isArray(cell) ? (sparkline(kind, sparklineValues('dataframe()', cell), column.min, column.max)?.d ?? null) : null)
  })
  return {
    // Chart cells go out as the paths of their sparklines, times as "HH:MM[:SS]"; other cells as they are.
    rows: positions.map((at) => table.visible.map((c, k) => (shown[k] ? shown[k](table.rows[at]![c] ?? null) : (table.rows[at]![c] ?? null)))),
    rowIds: positions.map((at) => table.ids[at]!),
    page: p,
    sort: s,
  }
}

/** A time column's cell: `"HH:MM[:SS]"` as it is, the time of an ISO date-time (a `Date` in the data), else as it is. */
function timeCell(cell: Cell): Cell {
  return typeof cell === 'string' ? (/(?:^|T)(\d{2}:\d{2}(?::\d{2})?)/.exec(cell)?.[1] ?? cell) : cell
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

/** What a selection holds: row ids, column names and cells as [row id, column name]. */
interface Held {
  rows: RowId[]
  columns: string[]
  cells: [RowId, string][]
}

const SELECTION_MODES: Readonly<Record<DataframeSelectionMode, [keyof TableSelectionModes, 'single' | 'multi']>> = {
  'single-row': ['rows', 'single'],
  'multi-row': ['rows', 'multi'],
  'single-column': ['columns', 'single'],
  'multi-column': ['columns', 'multi'],
  'single-cell': ['cells', 'single'],
  'multi-cell': ['cells', 'multi'],
}

/** `selectionMode` as one mode per kind (rows, columns, cells); at most one of each, as in Streamlit. */
export function selectionModes(mode: DataframeSelectionMode | readonly DataframeSelectionMode[]): TableSelectionModes {
  const modes: TableSelectionModes = { rows: null, columns: null, cells: null }
  const list: readonly unknown[] = typeof mode === 'string' ? [mode] : mode
  if (!Array.isArray(list) || list.length === 0) throw new SvcError('SVC_ERR_UI_BAD_CALL', `dataframe(): selectionMode must be a mode or a list of modes, got ${JSON.stringify(mode)}`)
  for (const m of list) {
    const entry = typeof m === 'string' && Object.hasOwn(SELECTION_MODES, m) ? SELECTION_MODES[m as DataframeSelectionMode] : undefined
    if (!entry) throw new SvcError('SVC_ERR_UI_BAD_CALL', `dataframe(): selectionMode "${String(m)}" is not supported; use ${Object.keys(SELECTION_MODES).map((k) => `'${k}'`).join(', ')}`)
    if (modes[entry[0]] !== null) throw new SvcError('SVC_ERR_UI_BAD_CALL', `dataframe(): selectionMode lists two modes for ${entry[0]}; give one of single-/multi-`)
    modes[entry[0]] = entry[1]
  }
  return modes
}

const CellSelection = z.array(z.tuple([WireRowId, z.string().max(512)])).max(1_000_000)
const FullSelection = z.object({ rows: z.array(WireRowId).max(1_000_000), columns: z.array(z.string().max(512)).max(10_000), cells: CellSelection, rowsVersion: RowsVersion }).strict()

/**
 * A selection, checked. From the browser (`drawn`): ids of the table as drawn, made for its rows'
 * version, and columns it shows; a key that is no longer drawn (the data changed under the click)
 * selects nothing. From the page or a snapshot: any ids of the right kind; the run drops the gone
 * ones. A table that selects only rows holds (and sends) just the row ids, as before issue #36.
 */
function parseHeld(value: unknown, keyed: boolean, modes: TableSelectionModes, shown: readonly string[], drawn: Drawn | null): Held {
  const rowsOnly = modes.columns === null && modes.cells === null
  const parsed = rowsOnly ? Selection.safeParse(value) : FullSelection.safeParse(value)
  if (!parsed.success) return fail(rowsOnly ? 'expected { rows: row ids }' : 'expected { rows, columns, cells }')
  const { rowsVersion } = parsed.data
  const full = parsed.data as { rows: RowId[]; columns?: string[]; cells?: [RowId, string][] }
  const checkIds = (ids: readonly RowId[], what: string): RowId[] => {
    if (keyed) {
      if (drawn && ids.some((r) => typeof r !== 'string')) fail(`expected row keys in ${what}`)
      const keys = ids.map(String)
      return drawn ? keys.filter((k) => positionOf(drawn.identity, k) !== undefined) : keys
    }
    if (ids.some((r) => typeof r !== 'number')) fail(`expected row indexes in ${what}`)
    if (drawn && rowsVersion !== undefined && rowsVersion !== drawn.version) fail('the rows changed since this selection was made')
    if (drawn && ids.some((r) => positionOf(drawn.identity, r) === undefined)) fail(`row index out of range (${drawn.identity.ids.length} rows)`)
    return [...ids]
  }
  const rows = full.rows
  const columns = full.columns ?? []
  const cells = full.cells ?? []
  if (new Set(rows.map(String)).size !== rows.length) fail('a row is selected twice')
  if (new Set(columns).size !== columns.length) fail('a column is selected twice')
  if (new Set(cells.map(([r, c]) => JSON.stringify([String(r), c]))).size !== cells.length) fail('a cell is selected twice')
  const limit = (kind: keyof TableSelectionModes, n: number): void => {
    if (modes[kind] === null && n > 0) fail(`this table does not select ${kind}`)
    if (modes[kind] === 'single' && n > 1) fail(`single-${kind.slice(0, -1)} selection holds at most one`)
  }
  limit('rows', rows.length)
  limit('columns', columns.length)
  limit('cells', cells.length)
  // Columns and cells name the columns the table shows; the page's own value may name any.
  if (drawn && [...columns, ...cells.map(([, c]) => c)].some((c) => !shown.includes(c))) fail('a selected column is not shown')
  const cellIds = checkIds(cells.map(([r]) => r), 'cells')
  const keptCells = keyed && drawn ? cells.filter(([r]) => cellIds.includes(String(r))).map(([r, c]): [RowId, string] => [String(r), c]) : cells.map(([r, c]): [RowId, string] => [keyed ? String(r) : r, c])
  return { rows: checkIds(rows, 'rows'), columns: [...columns], cells: keptCells }
}

export function dataframe(em: Emitter, data: TableData, o: DataframeOptions = {}): DataframeSelection | undefined {
  const { names, raw } = normalizeRaw(data, o.columns)
  const tab = tabularOf(names, raw)
  const { all, visible } = resolveColumns(tab.columns, o.columnConfig, o.columnOrder)
  const table = (ids: RowId[]): PagedTable => ({ columns: all, rows: tab.rows, ids, visible, pageSize: pageSizeOf(o), sorted: new Map() })
  if (o.selectionMode === undefined || o.selectionMode === null) {
    emitPaged(em, 'dataframe', table(rowsByIndex(raw.length).ids), { ...tableOptions(o), selectionMode: null, selection: [], rowsVersion: null }, o.key !== undefined ? `df-${o.key}` : undefined)
    return undefined
  }
  const modes = selectionModes(o.selectionMode)
  const rowsOnly = modes.columns === null && modes.cells === null
  const shown = visible.map((i) => all[i]!.name)
  const keyed = o.rowKey !== undefined
  // Set once the widget has its id; browser values arrive only after the run.
  let drawn: Drawn = { identity: rowsByIndex(0), version: null }
  // Row-only tables hold row ids, as before; the others hold { rows, columns, cells }.
  const toHeld = (v: unknown): Held => (Array.isArray(v) ? { rows: v as RowId[], columns: [], cells: [] } : (v as Held))
  const fromHeld = (h: Held): unknown => (rowsOnly ? h.rows : h)
  const fromState = (v: unknown): unknown => {
    const s = v as { selection?: { ids?: unknown; rows?: unknown; columns?: unknown; cells?: unknown }; rows?: unknown; columns?: unknown; cells?: unknown } | null
    const sel = s?.selection
    const rows = Array.isArray(v) ? v : (sel?.ids ?? sel?.rows ?? s?.rows ?? [])
    // A `DataframeSelection` names cells by row index; held cells name rows by id.
    const cells = (sel?.cells as [number, string][] | undefined)?.map(([r, c]) => [drawn.identity.ids[r] ?? r, c]) ?? s?.cells ?? []
    const value = rowsOnly ? { rows } : { rows, columns: sel?.columns ?? s?.columns ?? [], cells }
    return fromHeld(parseHeld(value, keyed, modes, shown, null))
  }
  const result = (h: Held, dropped: RowId[]): DataframeSelection => {
    const at = h.rows.flatMap((id) => positionOf(drawn.identity, id) ?? []).sort((a, b) => a - b)
    const columns = shown.filter((c) => h.columns.includes(c))
    const cells = h.cells
      .flatMap(([id, c]): [number, string][] => {
        const p = positionOf(drawn.identity, id)
        return p === undefined ? [] : [[p, c]]
      })
      .sort((a, b) => a[0] - b[0] || shown.indexOf(a[1]) - shown.indexOf(b[1]))
    return { selection: { rows: at, ids: at.map((p) => drawn.identity.ids[p]!), columns, cells }, rows: at.map((p) => record(names, raw[p]!)), dropped }
  }
  const onSelect = o.onSelect
  const r = em.ctx.widget<unknown>({
    type: 'dataframe', label: '', key: o.key, identity: [names, o.selectionMode, typeof o.rowKey === 'function' ? 'fn' : (o.rowKey ?? null)], formId: em.formId, default: rowsOnly ? [] : { rows: [], columns: [], cells: [] },
    deserialize: (v) => fromHeld(parseHeld(v, keyed, modes, shown, drawn)),
    fromState,
    onChange: onSelect ? (v) => onSelect(result(toHeld(v), [])) : undefined,
  })
  const { changed, ...now } = drawTable(em, r.id, 'dataframe()', names, raw, tab.rows, o, originalsOf(data, o))
  drawn = now
  const held = toHeld(r.value)
  // Selected rows and cells whose rows are gone are dropped, never moved to the row now at their place.
  const present = (id: RowId): boolean => !changed && positionOf(drawn.identity, id) !== undefined
  const kept: Held = { rows: held.rows.filter(present), columns: held.columns.filter((c) => shown.includes(c)), cells: held.cells.filter(([id, c]) => present(id) && shown.includes(c)) }
  const dropped = [...new Set([...held.rows, ...held.cells.map(([id]) => id)].filter((id) => !present(id)))]
  const selected = result(kept, dropped)
  // Held in the table's order, so an equal selection is the same value however it was made.
  const ordered: Held = {
    rows: selected.selection.ids,
    columns: selected.selection.columns,
    cells: selected.selection.cells.map(([p, c]) => [drawn.identity.ids[p]!, c]),
  }
  if (JSON.stringify(ordered) !== JSON.stringify(held)) em.ctx.replaceValue(r.id, fromHeld(ordered))
  em.ctx.widgetDefaults.set(r.id, [])
  em.ctx.nodeResets.set(r.id, (props) => Object.assign(props, { selection: [] }, rowsOnly ? {} : { selectedColumns: [], selectedCells: [] }))
  const extra = rowsOnly ? {} : { selectionModes: modes, selectedColumns: ordered.columns, selectedCells: ordered.cells }
  emitPaged(em, 'dataframe', table(drawn.identity.ids), { ...tableOptions(o), selectionMode: modes.rows === null ? null : `${modes.rows}-row`, selection: ordered.rows, rowsVersion: drawn.version, ...extra }, r.id)
  return selected
}
