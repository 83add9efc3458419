import { z } from '../../internal/zod.js'
import { SvcError } from '../../errors.js'
import type { Cell, DataColumn, EditingState, SortSpec } from '../elements.js'
import type { DataEditorOptions, DataframeOptions, DataframeSelection, TableData } from '../st-types.js'
import { checkUrl } from '../url-policy.js'
import { resolveColumns } from './column-config.js'
import { normalizeRaw, sortOrder, tabularOf, toCell } from './data.js'
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
  /** Row id per row (index in the page's data; added rows follow). */
  ids: number[]
  visible: number[]
  pageSize: number
  sorted: Map<string, number[]>
}

export interface PageView {
  rows: Cell[][]
  rowIds: number[]
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

const Selection = z.object({ rows: z.array(z.number().int().min(0)).max(1_000_000) }).strict()

function tableOptions(o: DataframeOptions) {
  return { height: o.height ?? null, hideIndex: o.hideIndex ?? true, useContainerWidth: o.useContainerWidth ?? false }
}

export function dataframe(em: Emitter, data: TableData, o: DataframeOptions = {}): DataframeSelection | undefined {
  const { names, raw } = normalizeRaw(data, o.columns)
  const tab = tabularOf(names, raw)
  const { all, visible } = resolveColumns(tab.columns, o.columnConfig, o.columnOrder)
  const table: PagedTable = { columns: all, rows: tab.rows, ids: tab.rows.map((_r, i) => i), visible, pageSize: pageSizeOf(o), sorted: new Map() }
  const mode = o.selectionMode ?? null
  if (mode === null) {
    emitPaged(em, 'dataframe', table, { ...tableOptions(o), selectionMode: null, selection: [] }, o.key !== undefined ? `df-${o.key}` : undefined)
    return undefined
  }
  if (mode !== 'single-row' && mode !== 'multi-row') {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `dataframe(): selectionMode "${String(mode)}" is not supported; use 'single-row' or 'multi-row'`)
  }
  const n = raw.length
  const toRows = (value: unknown): number[] => {
    const parsed = Selection.safeParse(value)
    if (!parsed.success) throw new SvcError('SVC_ERR_UI_BAD_CALL', 'invalid widget value: expected { rows: number[] }')
    const rows = [...new Set(parsed.data.rows)].sort((a, b) => a - b)
    if (rows.some((r) => r >= n)) throw new SvcError('SVC_ERR_UI_BAD_CALL', `invalid widget value: row index out of range (${n} rows)`)
    if (mode === 'single-row' && rows.length > 1) throw new SvcError('SVC_ERR_UI_BAD_CALL', 'invalid widget value: single-row selection holds at most one row')
    return rows
  }
  const onSelect = o.onSelect
  const result = (rows: number[]): DataframeSelection => ({ selection: { rows }, rows: rows.map((i) => record(names, raw[i]!)) })
  const r = em.ctx.widget<number[]>({
    type: 'dataframe', label: '', key: o.key, identity: [names, mode, n], formId: em.formId, default: [],
    deserialize: toRows,
    fromState: (v) => toRows(Array.isArray(v) ? { rows: v } : (v as { selection?: unknown })?.selection ?? v),
    onChange: onSelect ? (rows) => onSelect(result(rows)) : undefined,
  })
  em.ctx.widgetDefaults.set(r.id, { rows: [] })
  // A kept value may predate the data shrinking: indexes past the end are gone.
  const rows = r.value.filter((i) => i < n)
  emitPaged(em, 'dataframe', table, { ...tableOptions(o), selectionMode: mode, selection: rows }, r.id)
  return result(rows)
}

// ---- data editor ---------------------------------------------------------------------------

const CellValue = z.union([z.string().max(MAX_CELL_CHARS), z.number().finite(), z.boolean(), z.null()])

/** The editor's wire value, validated once here before any cell is looked at. */
export const EditingStateSchema = z
  .object({
    editedRows: z.record(z.string().regex(/^\d{1,9}$/), z.record(z.string().max(512), CellValue)),
    addedRows: z.array(z.record(z.string().max(512), CellValue)).max(MAX_ADDED_ROWS),
    deletedRows: z.array(z.number().int().min(0)).max(1_000_000),
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
      return typeof value === 'string' && ISO_DAY.test(value) && !Number.isNaN(Date.parse(value)) ? null : 'expected a date (YYYY-MM-DD)'
    case 'datetime':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? null : 'expected a date and time (ISO 8601)'
    default:
      return 'the column is read-only'
  }
}

/**
 * Parse and check an editing state against the editor's columns: every edited cell names an
 * editable column and holds a value of its type, row ids exist, and a `fixed` editor neither
 * adds nor deletes. Throws a coded error naming the first problem.
 */
export function parseEdits(value: unknown, columns: readonly DataColumn[], baseRows: number, numRows: 'fixed' | 'dynamic'): EditingState {
  const parsed = EditingStateSchema.safeParse(value)
  const fail = (why: string): never => {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `invalid dataEditor edits: ${why}`)
  }
  if (!parsed.success) return fail(parsed.error.issues.map((i) => `${i.path.join('.') || 'value'}: ${i.message}`).join('; '))
  const state = parsed.data
  const byName = new Map(columns.map((c) => [c.name, c]))
  const checkCells = (cells: Record<string, Cell>, where: string, added: boolean) => {
    for (const [name, v] of Object.entries(cells)) {
      const col = byName.get(name)
      if (!col) fail(`${where}: no column "${name}"`)
      else if (col.disabled && !(added && v === col.default)) fail(`${where}: column "${name}" is not editable`)
      else {
        const problem = cellProblem(col, v)
        if (problem) fail(`${where}, column "${name}": ${problem}`)
      }
    }
  }
  for (const [row, cells] of Object.entries(state.editedRows)) {
    if (Number(row) >= baseRows) fail(`edited row ${row} does not exist (${baseRows} rows)`)
    checkCells(cells, `row ${row}`, false)
  }
  state.addedRows.forEach((cells, i) => checkCells(cells, `added row ${i}`, true))
  if (numRows === 'fixed' && (state.addedRows.length || state.deletedRows.length)) fail('rows cannot be added or deleted (numRows is "fixed")')
  if (state.deletedRows.some((r) => r >= baseRows)) fail(`deleted row out of range (${baseRows} rows)`)
  return { editedRows: state.editedRows, addedRows: state.addedRows, deletedRows: [...new Set(state.deletedRows)].sort((a, b) => a - b) }
}

/** The value a page sees for an edited cell: dates come back as `Date` where the data had `Date`s. */
function fromWire(value: Cell, dates: boolean): unknown {
  return dates && typeof value === 'string' ? new Date(value) : value
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
  /** The page's own records, returned as they are for unedited rows (no copy of a 100k-row table per run). */
  originals?: readonly object[],
): { records: Record<string, unknown>[]; rows: Cell[][]; ids: number[] } {
  const deleted = new Set(state.deletedRows)
  const dateCols = columns.map((c, i) => (c.type === 'date' || c.type === 'datetime') && raw.some((r) => r[i] instanceof Date))
  const records: Record<string, unknown>[] = []
  const rows: Cell[][] = []
  const ids: number[] = []
  raw.forEach((values, id) => {
    if (deleted.has(id)) return
    const edits = state.editedRows[String(id)]
    const out = edits ? values.map((v, c) => (Object.hasOwn(edits, names[c]!) ? fromWire(edits[names[c]!]!, dateCols[c]!) : v)) : values
    records.push(!edits && originals ? (originals[id] as Record<string, unknown>) : record(names, out))
    rows.push(edits ? out.map(toCell) : cells[id]!)
    ids.push(id)
  })
  state.addedRows.forEach((cells, j) => {
    const out = columns.map((c, i) => (Object.hasOwn(cells, c.name) ? fromWire(cells[c.name]!, dateCols[i]!) : c.default))
    records.push(record(names, out))
    rows.push(out.map(toCell))
    ids.push(raw.length + j)
  })
  return { records, rows, ids }
}

export function dataEditor<R extends object>(em: Emitter, data: TableData, o: DataEditorOptions = {}): R[] {
  const { names, raw } = normalizeRaw(data, o.columns)
  const tab = tabularOf(names, raw)
  const numRows = o.numRows ?? 'fixed'
  if (numRows !== 'fixed' && numRows !== 'dynamic') {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `dataEditor(): numRows "${String(numRows)}" is not supported; use 'fixed' or 'dynamic'`)
  }
  const { all, visible } = resolveColumns(tab.columns, o.columnConfig, o.columnOrder, o.disabled ?? false)
  const parse = (v: unknown): EditingState => parseEdits(v, all, raw.length, numRows)
  const r = em.ctx.widget<EditingState>({
    type: 'dataEditor', label: '', key: o.key, identity: [names, numRows, raw.length], formId: em.formId, default: EMPTY_EDITS,
    deserialize: parse, onChange: o.onChange,
  })
  em.ctx.widgetDefaults.set(r.id, EMPTY_EDITS)
  const originals = o.columns === undefined && Array.isArray(data) && data.length > 0 && !Array.isArray(data[0]) ? (data as readonly object[]) : undefined
  const edited = applyEdits(names, raw, tab.rows, all, r.value, originals)
  const table: PagedTable = { columns: all, rows: edited.rows, ids: edited.ids, visible, pageSize: pageSizeOf(o), sorted: new Map() }
  emitPaged(em, 'dataEditor', table, {
    ...tableOptions(o), baseRows: raw.length, numRows, value: r.value, formId: em.formId, key: o.key ?? null,
  }, r.id)
  return edited.records as R[]
}
