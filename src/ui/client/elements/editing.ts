import type { Cell, DataColumn, EditingState, RowId } from '../../wire/elements.js'

/**
 * The data editor's delta, built in the browser: each user edit returns a new `EditingState`
 * (never the table). Rows of the data are named by their id (a row key string, or an index below
 * `baseRows`); numbers from `baseRows` on are added rows.
 */

const isAdded = (rowId: RowId, baseRows: number): rowId is number => typeof rowId === 'number' && rowId >= baseRows

export function editCell(state: EditingState, baseRows: number, rowId: RowId, column: string, value: Cell): EditingState {
  if (isAdded(rowId, baseRows)) {
    const addedRows = state.addedRows.map((r, j) => (j === rowId - baseRows ? { ...r, [column]: value } : r))
    return { ...state, addedRows }
  }
  const key = String(rowId)
  return { ...state, editedRows: { ...state.editedRows, [key]: { ...state.editedRows[key], [column]: value } } }
}

/** A new row holding each editable column's default (others come from the server's defaults). */
export function addRow(state: EditingState, columns: readonly DataColumn[]): EditingState {
  const row: Record<string, Cell> = {}
  for (const c of columns) if (!c.disabled && c.default !== null) row[c.name] = c.default
  return { ...state, addedRows: [...state.addedRows, row] }
}

export function deleteRow(state: EditingState, baseRows: number, rowId: RowId): EditingState {
  if (isAdded(rowId, baseRows)) return { ...state, addedRows: state.addedRows.filter((_r, j) => j !== rowId - baseRows) }
  if (state.deletedRows.includes(rowId)) return state
  const { [String(rowId)]: _dropped, ...editedRows } = state.editedRows
  return { ...state, editedRows, deletedRows: [...state.deletedRows, rowId] }
}

/** The value an edit leaves in a cell before the server's render arrives (null: no local edit). */
export function editedValue(state: EditingState, baseRows: number, rowId: RowId, column: string): { value: Cell } | null {
  const cells = isAdded(rowId, baseRows) ? state.addedRows[rowId - baseRows] : state.editedRows[String(rowId)]
  return cells && Object.hasOwn(cells, column) ? { value: cells[column]! } : null
}

/** An editor input's text → the cell value of the column's type (null: empty or unparseable number). */
export function parseInput(column: Pick<DataColumn, 'type'>, text: string): Cell {
  if (text === '') return null
  if (column.type === 'number') {
    const n = Number(text)
    return Number.isFinite(n) ? n : null
  }
  if (column.type === 'datetime') {
    const d = new Date(text)
    return Number.isNaN(d.getTime()) ? null : d.toISOString()
  }
  return text
}
