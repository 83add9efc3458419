import type { Cell, ColumnKind, ColumnSpec } from '../wire/elements.js'
import type { TableData } from '../st-types.js'
import { toJsonSafe } from './values.js'
import { SvcError } from '../../errors.js'

/** Tabular input normalised once per element: named columns and JSON-safe row cells. */
export interface Tabular {
  columns: ColumnSpec[]
  rows: Cell[][]
}

export function toCell(value: unknown): Cell {
  // Scalars first: a 100k-row table converts every cell on every run.
  if (value === undefined || value === null) return null
  if (typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  return toJsonSafe(value) as Cell
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/

function kindOfValue(v: unknown): ColumnKind {
  return typeof v === 'number' || typeof v === 'bigint' ? 'number'
    : typeof v === 'boolean' ? 'boolean'
      : v instanceof Date ? 'date'
        : typeof v === 'string' ? (ISO_DATE.test(v) ? 'date' : 'string')
          : 'json'
}

/** The kind of column `col`: one kind for all non-null values, else `string`. */
function kindOf(raw: readonly (readonly unknown[])[], col: number): ColumnKind {
  let kind: ColumnKind | null = null
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i]![col]
    if (v === null || v === undefined) continue
    const k = kindOfValue(v)
    if (kind === null) kind = k
    else if (kind !== k) return 'string'
  }
  return kind ?? 'string'
}

/** Column names and raw values (one array per row) of any `TableData` shape. */
export function normalizeRaw(data: TableData, names?: string[]): { names: string[]; raw: unknown[][] } {
  let columnNames: string[]
  let raw: unknown[][]
  if (Array.isArray(data)) {
    if (data.length > 0 && Array.isArray(data[0])) {
      const width = Math.max(...(data as unknown[][]).map((r) => r.length))
      columnNames = names ?? Array.from({ length: width }, (_v, i) => String(i))
      raw = (data as unknown[][]).map((r) => columnNames.map((_c, i) => r[i]))
    } else {
      const records = data as Record<string, unknown>[]
      const seen = new Set<string>(names ?? [])
      if (!names) for (const r of records) for (const k in r) if (Object.hasOwn(r, k)) seen.add(k)
      columnNames = [...seen]
      const width = columnNames.length
      // Plain loops: this runs over every row of every table on every rerun.
      raw = new Array<unknown[]>(records.length)
      for (let i = 0; i < records.length; i++) {
        const r = records[i] ?? {}
        const row = new Array<unknown>(width)
        for (let c = 0; c < width; c++) row[c] = r[columnNames[c]!]
        raw[i] = row
      }
    }
  } else if (typeof data === 'object' && data !== null) {
    const cols = data as Record<string, readonly unknown[]>
    columnNames = names ?? Object.keys(cols)
    const length = Math.max(0, ...columnNames.map((c) => cols[c]?.length ?? 0))
    raw = Array.from({ length }, (_v, i) => columnNames.map((c) => cols[c]?.[i]))
  } else {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', 'table data must be an array of records, an array of arrays, or an object of column arrays')
  }
  return { names: columnNames, raw }
}

/** Named, typed columns and JSON-safe cells from raw values. */
export function tabularOf(names: readonly string[], raw: readonly unknown[][]): Tabular {
  const columns = names.map((name, i) => ({ name, kind: kindOf(raw, i) }))
  const rows = new Array<Cell[]>(raw.length)
  for (let i = 0; i < raw.length; i++) {
    const r = raw[i]!
    const row = new Array<Cell>(r.length)
    for (let c = 0; c < r.length; c++) row[c] = toCell(r[c])
    rows[i] = row
  }
  return { columns, rows }
}

export function normalizeTable(data: TableData, names?: string[]): Tabular {
  const { names: columnNames, raw } = normalizeRaw(data, names)
  return tabularOf(columnNames, raw)
}

export function compareCells(a: Cell, b: Cell): number {
  if (a === null) return b === null ? 0 : 1
  if (b === null) return -1
  if (typeof a === 'number' && typeof b === 'number') return a - b
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b)
  const sa = typeof a === 'string' ? a : JSON.stringify(a)
  const sb = typeof b === 'string' ? b : JSON.stringify(b)
  return sa.localeCompare(sb)
}

/** Positions of `rows` sorted by one column (stable; nulls last in both directions). */
export function sortOrder(rows: readonly (readonly Cell[])[], col: number, direction: 'asc' | 'desc'): number[] {
  const dir = direction === 'desc' ? -1 : 1
  return rows
    .map((_r, i) => i)
    .sort((ia, ib) => {
      const x = rows[ia]![col] ?? null
      const y = rows[ib]![col] ?? null
      if (x === null || y === null) return x === y ? ia - ib : x === null ? 1 : -1
      return compareCells(x, y) * dir || ia - ib
    })
}
