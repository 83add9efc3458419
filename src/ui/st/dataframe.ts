import { z } from '../../internal/zod.js'
import { SvcError } from '../../errors.js'
import type { Cell, DataColumn, EditingState, RowId, SortSpec } from '../elements.js'
import type { DataEditorOptions, DataframeOptions, DataframeSelection, DroppedEdits, EditedRows, TableData } from '../st-types.js'
import { checkUrl } from '../url-policy.js'
import { resolveColumns } from './column-config.js'
import { normalizeRaw, sortOrder, tabularOf, toCell } from './data.js'
import { positionOf, rowIdentity, rowsByIndex, type KeyedRows, type RowIdentity } from './row-identity.js'
import type { Emitter } from './widgets.js'

export const DEFAULT_PAGE_SIZE = 25
/** Upper bounds of what one editor message may carry (a browser cannot produce more by hand). */
export const MAX_ADDED_ROWS = 10_000
const MAX_CELL_CHARS = 100_000

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

function pageSizeOf(o: { pageSize?: number }): number {
  return Math.max(1, Math.trunc(o.pageSize ?? DEFAULT_PAGE_SIZE))
}

/** Emit the node, then fill in the page the session's view asks for (page/sort survive reruns). */
function emitPaged(
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

function record(names: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (let i = 0; i < names.length; i++) out[names[i]!] = values[i]
  return out
}

const WireRowId = z.union([z.number().int().min(0), z.string().max(512)])
const RowsVersion = z.string().max(64).optional()
const Selection = z.object({ rows: z.array(WireRowId).max(1_000_000), rowsVersion: RowsVersion }).strict()

function tableOptions(o: DataframeOptions) {
  return { height: o.height ?? null, hideIndex: o.hideIndex ?? true, useContainerWidth: o.useContainerWidth ?? false }
}

const fail = (what: string): never => {
  throw new SvcError('SVC_ERR_UI_BAD_CALL', `invalid widget value: ${what}`)
}

/** Records of the data: the page's own objects when it passed records (no copy per run). */
function originalsOf(data: TableData, o: { columns?: string[] }): readonly object[] | undefined {
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
function drawTable(em: Emitter, id: string, what: string, names: readonly string[], raw: readonly unknown[][], rows: readonly (readonly Cell[])[], o: { rowKey?: DataframeOptions['rowKey'] }, originals: readonly object[] | undefined): Drawn & { changed: boolean } {
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

// ---- data editor ---------------------------------------------------------------------------

const CellValue = z.union([z.string().max(MAX_CELL_CHARS), z.number().finite(), z.boolean(), z.null()])

/** The editor's wire value, validated once here before any cell is looked at. */
export const EditingStateSchema = z
  .object({
    editedRows: z.record(z.string().max(512), z.record(z.string().max(512), CellValue)),
    addedRows: z.array(z.record(z.string().max(512), CellValue)).max(MAX_ADDED_ROWS),
    deletedRows: z.array(WireRowId).max(1_000_000),
    rowsVersion: RowsVersion,
  })
  .strict()

export const EMPTY_EDITS: EditingState = Object.freeze({ editedRows: {}, addedRows: [], deletedRows: [] }) as EditingState

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/

/** Why `value` cannot go into `column`, or null when it can. */
export function cellProblem(column: DataColumn, value: Cell): string | null {
  if (value === null) return null
  switch (column.type) {
    case 'text':
      return typeof value === 'string' ? null : 'expected text'
    case 'link': {
      if (typeof value !== 'string') return 'expected text'
      const url = checkUrl(value, 'link')
      return url.ok ? null : `not a link: ${url.reason}`
    }
    case 'number':
      if (typeof value !== 'number') return 'expected a number'
      if (column.min !== null && value < column.min) return `below the minimum ${column.min}`
      if (column.max !== null && value > column.max) return `above the maximum ${column.max}`
      return null
    case 'checkbox':
      return typeof value === 'boolean' ? null : 'expected true or false'
    case 'selectbox':
      return column.options?.includes(value as string | number | boolean) ? null : 'not one of the options'
    case 'date':
      // Date.parse rolls 2026-02-30 over into March; a day must read back as itself.
      return typeof value === 'string' && ISO_DAY.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value) ? null : 'expected a date (YYYY-MM-DD)'
    case 'datetime':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? null : 'expected a date and time (ISO 8601)'
    default:
      return 'the column is read-only'
  }
}

export interface EditorShape {
  /** Every column of the data (hidden ones included). */
  columns: readonly DataColumn[]
  /** Names of the columns the browser shows and may edit: visible and not disabled. */
  editable: ReadonlySet<string>
  /** Rows are named by a row key (else by index). */
  keyed: boolean
  numRows: 'fixed' | 'dynamic'
}

/**
 * Parse and check an editing state against the editor as drawn: every edited cell names a column
 * the browser shows as editable and holds a value of its type, a `fixed` editor neither adds nor
 * deletes. From the browser (`drawn`) rows are checked too: without a row key every index exists
 * and the state was made for the drawn rows' version; with one, edits of keys no longer drawn are
 * left out (their rows went while the user typed). From the page or a snapshot the run drops edits
 * of gone rows and says so. Throws a coded error naming the first problem.
 */
export function parseEdits(value: unknown, shape: EditorShape, drawn: Drawn | null = null): EditingState {
  const parsed = EditingStateSchema.safeParse(value)
  const bad = (why: string): never => {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `invalid dataEditor edits: ${why}`)
  }
  if (!parsed.success) return bad(parsed.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; '))
  const { editedRows, addedRows, deletedRows, rowsVersion } = parsed.data
  const byName = new Map(shape.columns.map((c) => [c.name, c]))
  const checkCells = (cells: Record<string, Cell>, where: string, added: boolean) => {
    for (const [name, v] of Object.entries(cells)) {
      const col = byName.get(name)
      if (!col) bad(`${where}: no column "${name}"`)
      // An added row may name a locked column's default: that changes nothing.
      else if (!shape.editable.has(name) && !(added && v === col.default)) bad(`${where}: column "${name}" is not editable`)
      else {
        const problem = cellProblem(col, v)
        if (problem) bad(`${where}, column "${name}": ${problem}`)
      }
    }
  }
  const keyed = shape.keyed
  const rowOf = (id: RowId, where: string): RowId => {
    if (!keyed && (typeof id === 'number' ? false : !/^\d{1,9}$/.test(id))) bad(`${where}: ${JSON.stringify(id)} is not a row index`)
    if (drawn && keyed && typeof id !== 'string') bad(`${where}: ${JSON.stringify(id)} is not a row key`)
    if (drawn && !keyed && positionOf(drawn.identity, id) === undefined) bad(`${where} ${id} does not exist (${drawn.identity.ids.length} rows)`)
    return keyed ? String(id) : Number(id)
  }
  if (drawn && !keyed && rowsVersion !== undefined && rowsVersion !== drawn.version) bad('the rows changed since these edits were made')
  const known = (id: RowId): boolean => !drawn || !keyed || positionOf(drawn.identity, id) !== undefined
  const edited: EditingState['editedRows'] = {}
  for (const [row, cells] of Object.entries(editedRows)) {
    checkCells(cells, `row ${row}`, false)
    if (known(rowOf(row, 'edited row'))) edited[row] = cells
  }
  addedRows.forEach((cells, i) => checkCells(cells, `added row ${i}`, true))
  if (shape.numRows === 'fixed' && (addedRows.length || deletedRows.length)) bad('rows cannot be added or deleted (numRows is "fixed")')
  const deleted = [...new Set(deletedRows.map((r) => rowOf(r, 'deleted row')))].filter(known)
  if (!keyed) (deleted as number[]).sort((a, b) => a - b)
  return { editedRows: edited, addedRows, deletedRows: deleted }
}

/** The value a page sees for an edited cell: dates come back as `Date` where the data had `Date`s. */
function fromWire(value: Cell, dates: boolean): unknown {
  return dates && typeof value === 'string' ? new Date(value) : value
}

/** A cell the edit would leave as it is. */
function sameCell(column: DataColumn, edit: Cell, data: Cell | undefined): boolean {
  if (edit === data) return true
  return column.type === 'date' && typeof data === 'string' && typeof edit === 'string' && data === `${edit}T00:00:00.000Z`
}

/**
 * Fit held edits to this run's data: edits and deletions of rows that are gone are dropped
 * (without a row key, when the rows changed at all, everything is), and cells the data already
 * holds are spent (after a save they are no change any more). Returns `state` itself when it fits.
 */
export function reconcileEdits(
  state: EditingState,
  shape: EditorShape,
  identity: RowIdentity,
  rows: readonly (readonly Cell[])[],
  rowsChanged: boolean,
): { state: EditingState; dropped: DroppedEdits } {
  const dropped: DroppedEdits = { editedRows: {}, deletedRows: [], addedRows: [] }
  const empty = state.addedRows.length === 0 && state.deletedRows.length === 0 && Object.keys(state.editedRows).length === 0
  if (empty) return { state, dropped }
  if (rowsChanged) return { state: EMPTY_EDITS, dropped: { editedRows: { ...state.editedRows }, deletedRows: [...state.deletedRows], addedRows: [...state.addedRows] } }
  let touched = false
  const editedRows: EditingState['editedRows'] = {}
  const colAt = new Map(shape.columns.map((c, i) => [c.name, i]))
  for (const [row, cells] of Object.entries(state.editedRows)) {
    const at = positionOf(identity, row)
    if (at === undefined) {
      dropped.editedRows[row] = cells
      touched = true
      continue
    }
    const left = Object.entries(cells).filter(([name, v]) => !sameCell(shape.columns[colAt.get(name)!]!, v, rows[at]![colAt.get(name)!]))
    if (left.length === Object.keys(cells).length) editedRows[row] = cells
    else {
      touched = true
      if (left.length) editedRows[row] = Object.fromEntries(left)
    }
  }
  const deletedRows = state.deletedRows.filter((r) => positionOf(identity, r) !== undefined)
  if (deletedRows.length !== state.deletedRows.length) {
    dropped.deletedRows = state.deletedRows.filter((r) => positionOf(identity, r) === undefined)
    touched = true
  }
  return { state: touched ? { editedRows, addedRows: state.addedRows, deletedRows } : state, dropped }
}

/**
 * Apply an editing state to the data: kept rows in order with their edits, then added rows
 * (missing cells take the column default). Returns the page's records and the shown table.
 */
export function applyEdits(
  names: readonly string[],
  raw: readonly unknown[][],
  cells: readonly Cell[][],
  columns: readonly DataColumn[],
  state: EditingState,
  ids: readonly RowId[],
  /** The page's own records, returned as they are for unedited rows (no copy of a 100k-row table per run). */
  originals?: readonly object[],
): { records: Record<string, unknown>[]; rows: Cell[][]; ids: RowId[] } {
  const deleted = new Set(state.deletedRows.map(String))
  const dateCols = columns.map((c, i) => (c.type === 'date' || c.type === 'datetime') && raw.some((r) => r[i] instanceof Date))
  const records: Record<string, unknown>[] = []
  const rows: Cell[][] = []
  const outIds: RowId[] = []
  const edits = Object.keys(state.editedRows).length > 0 ? state.editedRows : null
  raw.forEach((values, i) => {
    const id = ids[i]!
    if (deleted.size > 0 && deleted.has(String(id))) return
    const cellEdits = edits?.[String(id)]
    const out = cellEdits ? values.map((v, c) => (Object.hasOwn(cellEdits, names[c]!) ? fromWire(cellEdits[names[c]!]!, dateCols[c]!) : v)) : values
    records.push(!cellEdits && originals ? (originals[i] as Record<string, unknown>) : record(names, out))
    rows.push(cellEdits ? out.map(toCell) : cells[i]!)
    outIds.push(id)
  })
  state.addedRows.forEach((added, j) => {
    const out = columns.map((c, i) => (Object.hasOwn(added, c.name) ? fromWire(added[c.name]!, dateCols[i]!) : c.default))
    records.push(record(names, out))
    rows.push(out.map(toCell))
    outIds.push(raw.length + j)
  })
  return { records, rows, ids: outIds }
}

export function dataEditor<R extends object>(em: Emitter, data: TableData, o: DataEditorOptions = {}): EditedRows<R> {
  const { names, raw } = normalizeRaw(data, o.columns)
  const tab = tabularOf(names, raw)
  const numRows = o.numRows ?? 'fixed'
  if (numRows !== 'fixed' && numRows !== 'dynamic') {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `dataEditor(): numRows "${String(numRows)}" is not supported; use 'fixed' or 'dynamic'`)
  }
  const { all, visible } = resolveColumns(tab.columns, o.columnConfig, o.columnOrder, o.disabled ?? false)
  const originals = originalsOf(data, o)
  // Hidden columns are never sent to the browser, so it cannot have edited them.
  const shape: EditorShape = { columns: all, editable: new Set(visible.map((i) => all[i]!).filter((c) => !c.disabled).map((c) => c.name)), keyed: o.rowKey !== undefined, numRows }
  // Set once the widget has its id; browser values arrive only after the run.
  let drawn: Drawn = { identity: rowsByIndex(0), version: null }
  const r = em.ctx.widget<EditingState>({
    type: 'dataEditor', label: '', key: o.key, identity: [names, numRows, typeof o.rowKey === 'function' ? 'fn' : (o.rowKey ?? null)], formId: em.formId,
    default: EMPTY_EDITS, disabled: o.disabled === true,
    deserialize: (v) => parseEdits(v, shape, drawn), fromState: (v) => parseEdits(v, shape), onChange: o.onChange,
  })
  const { changed, ...now } = drawTable(em, r.id, 'dataEditor()', names, raw, tab.rows, o, originals)
  drawn = now
  const fitted = reconcileEdits(r.value, shape, drawn.identity, tab.rows, changed)
  if (fitted.state !== r.value) em.ctx.replaceValue(r.id, fitted.state)
  const build = (state: EditingState) => {
    const edited = applyEdits(names, raw, tab.rows, all, state, drawn.identity.ids, originals)
    return { edited, table: { columns: all, rows: edited.rows, ids: edited.ids, visible, pageSize: pageSizeOf(o), sorted: new Map() } satisfies PagedTable }
  }
  const { edited, table } = build(fitted.state)
  emitPaged(em, 'dataEditor', table, {
    ...tableOptions(o), baseRows: raw.length, numRows, value: fitted.state, formId: em.formId, key: o.key ?? null, disabled: o.disabled === true, rowsVersion: drawn.version,
  }, r.id)
  em.ctx.widgetDefaults.set(r.id, EMPTY_EDITS)
  // A reset after drawing (cleared form, deleted key): show the data without the edits.
  em.ctx.nodeResets.set(r.id, (p) => {
    const reset = build(EMPTY_EDITS).table
    em.ctx.dataframes.set(r.id, reset)
    const view = pageView(reset, Number(p.page ?? 0), (p.sort as SortSpec | null) ?? null)
    Object.assign(p, { value: EMPTY_EDITS, rows: view.rows, rowIds: view.rowIds, page: view.page, sort: view.sort, totalRows: reset.rows.length })
  })
  return Object.defineProperty(edited.records as R[], 'dropped', { value: fitted.dropped, enumerable: false }) as EditedRows<R>
}
