import { z } from '../../internal/zod.js'
import { SvcError } from '../../errors.js'
import type { Cell, DataColumn, EditingState, RowId, SortSpec } from '../wire/elements.js'
import type { DataEditorOptions, DroppedEdits, EditedRows, TableData } from '../st-types.js'
import { checkUrl } from '../wire/url-policy.js'
import { resolveColumns } from '../column-config.js'
import { normalizeRaw, tabularOf, toCell } from './data.js'
import { drawTable, emitPaged, originalsOf, pageSizeOf, pageView, record, RowsVersion, tableOptions, WireRowId, type Drawn } from './dataframe.js'
import { positionOf, rowsByIndex, type RowIdentity } from './row-identity.js'
import { rowKeyRules, type RowKeyRules } from './row-key-rules.js'
import type { Emitter, PagedTable } from './run-context.js'

/**
 * `st.dataEditor`: the browser sends an editing state (a delta to the data, never the table);
 * it is checked against the editor as drawn, fitted to each run's data by row identity, and
 * applied to give the page its rows.
 */

/** Upper bounds of what one editor message may carry (a browser cannot produce more by hand). */
export const MAX_ADDED_ROWS = 10_000
const MAX_CELL_CHARS = 100_000

const Scalar = z.union([z.string().max(MAX_CELL_CHARS), z.number().finite(), z.boolean()])
/** A multiselect cell is a list of its options. */
const CellValue = z.union([Scalar, z.null(), z.array(Scalar).max(1000)])

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
    case 'multiselect':
      if (!Array.isArray(value)) return 'expected a list of options'
      if (new Set(value).size !== value.length) return 'an option is chosen twice'
      return value.every((v) => column.options?.includes(v as string | number | boolean)) ? null : 'not one of the options'
    case 'time': {
      const m = typeof value === 'string' ? /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/.exec(value) : null
      if (!m) return 'expected a time (HH:MM or HH:MM:SS)'
      const seconds = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0)
      if (column.min !== null && seconds < column.min) return 'before the earliest time'
      if (column.max !== null && seconds > column.max) return 'after the latest time'
      return column.step !== null && seconds % column.step !== 0 ? `not a step of ${column.step} seconds` : null
    }
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
  /** With a row key: why an editing state would change a row's key or repeat one (row-key-rules.ts). */
  keyProblem: ((state: EditingState) => string | null) | null
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
    // The reason goes back to the browser with the refusal (the editor shows it).
    throw Object.assign(new SvcError('SVC_ERR_UI_BAD_CALL', `invalid dataEditor edits: ${why}`), { visitorReason: why })
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
  addedRows.forEach((cells, i) => checkCells(cells, `added row ${i + 1}`, true))
  if (shape.numRows === 'fixed' && (addedRows.length || deletedRows.length)) bad('rows cannot be added or deleted (numRows is "fixed")')
  const deleted = [...new Set(deletedRows.map((r) => rowOf(r, 'deleted row')))].filter(known)
  if (!keyed) (deleted as number[]).sort((a, b) => a - b)
  const state = { editedRows: edited, addedRows, deletedRows: deleted }
  // From the page or a snapshot the run fits the state to its data instead (reconcileEdits).
  const keyProblem = drawn ? shape.keyProblem?.(state) : null
  if (keyProblem) bad(keyProblem)
  return state
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
 * holds are spent (after a save they are no change any more). With a row key, an edit that
 * would change its row's key and an added row whose key the data now holds (saved, or set by
 * the page) are dropped too, so the rows a page gets never share a key. Returns `state` itself
 * when it fits.
 */
export function reconcileEdits(
  state: EditingState,
  shape: EditorShape,
  identity: RowIdentity,
  rows: readonly (readonly Cell[])[],
  rowsChanged: boolean,
  keys: RowKeyRules | null = null,
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
    if (at === undefined || keys?.problem({ editedRows: { [row]: cells }, addedRows: [] }, identity)) {
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
  let addedRows = state.addedRows
  if (keys) {
    const seen = new Set<string>()
    addedRows = state.addedRows.filter((cells, j) => {
      const key = keys.addedKey(cells, j)
      if (key === null) return true
      if (identity.byKey?.has(key) || seen.has(key)) {
        dropped.addedRows.push(cells)
        return false
      }
      seen.add(key)
      return true
    })
    if (addedRows.length !== state.addedRows.length) touched = true
  }
  return { state: touched ? { editedRows, addedRows, deletedRows } : state, dropped }
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

export function dataEditor(em: Emitter, data: TableData, o: DataEditorOptions = {}): EditedRows<Record<string, unknown>> {
  const { names, raw } = normalizeRaw(data, o.columns)
  const tab = tabularOf(names, raw)
  const numRows = o.numRows ?? 'fixed'
  if (numRows !== 'fixed' && numRows !== 'dynamic') {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `dataEditor(): numRows "${String(numRows)}" is not supported; use 'fixed' or 'dynamic'`)
  }
  const { all, visible } = resolveColumns(tab.columns, o.columnConfig, o.columnOrder, o.disabled ?? false)
  const originals = originalsOf(data, o)
  const keys = o.rowKey === undefined ? null : rowKeyRules(o.rowKey, names, raw, all, originals)
  // Set once the widget has its id; browser values arrive only after the run.
  let drawn: Drawn = { identity: rowsByIndex(0), version: null }
  // Hidden columns are never sent to the browser, so it cannot have edited them.
  const shape: EditorShape = {
    columns: all, editable: new Set(visible.map((i) => all[i]!).filter((c) => !c.disabled).map((c) => c.name)), keyed: o.rowKey !== undefined, numRows,
    keyProblem: keys && ((state) => keys.problem(state, drawn.identity)),
  }
  const r = em.ctx.widget<EditingState>({
    type: 'dataEditor', label: '', key: o.key, identity: [names, numRows, typeof o.rowKey === 'function' ? 'fn' : (o.rowKey ?? null)], formId: em.formId,
    default: EMPTY_EDITS, disabled: o.disabled === true,
    deserialize: (v) => parseEdits(v, shape, drawn), fromState: (v) => parseEdits(v, shape), onChange: o.onChange,
  })
  const { changed, ...now } = drawTable(em, r.id, 'dataEditor()', names, raw, tab.rows, o, originals)
  drawn = now
  const fitted = reconcileEdits(r.value, shape, drawn.identity, tab.rows, changed, keys)
  if (fitted.state !== r.value) em.ctx.replaceValue(r.id, fitted.state)
  const build = (state: EditingState) => {
    const edited = applyEdits(names, raw, tab.rows, all, state, drawn.identity.ids, originals)
    return { edited, table: { columns: all, rows: edited.rows, ids: edited.ids, visible, pageSize: pageSizeOf(o), sorted: new Map() } satisfies PagedTable }
  }
  const { edited, table } = build(fitted.state)
  emitPaged(em, 'dataEditor', table, {
    ...tableOptions(o), baseRows: raw.length, numRows, value: fitted.state, formId: em.formId, key: o.key ?? null, disabled: o.disabled === true, rowsVersion: drawn.version,
    keyColumn: typeof o.rowKey === 'string' ? o.rowKey : null,
  }, r.id)
  em.ctx.widgetDefaults.set(r.id, EMPTY_EDITS)
  // A reset after drawing (cleared form, deleted key): show the data without the edits.
  em.ctx.nodeResets.set(r.id, (p) => {
    const reset = build(EMPTY_EDITS).table
    em.ctx.dataframes.set(r.id, reset)
    const view = pageView(reset, Number(p.page ?? 0), (p.sort as SortSpec | null) ?? null)
    Object.assign(p, { value: EMPTY_EDITS, rows: view.rows, rowIds: view.rowIds, page: view.page, sort: view.sort, totalRows: reset.rows.length })
  })
  return Object.defineProperty(edited.records, 'dropped', { value: fitted.dropped, enumerable: false }) as EditedRows<Record<string, unknown>>
}
