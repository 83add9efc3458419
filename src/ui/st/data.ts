import type { Cell, ColumnKind, ColumnSpec, SortSpec } from '../elements.js'
import type { TableData } from '../st-types.js'
import { toJsonSafe } from './values.js'
import { SvcError } from '../../errors.js'

/** Tabular input normalised once per element: named columns and JSON-safe row cells. */
export interface Tabular {
  columns: ColumnSpec[]
  rows: Cell[][]
}

function toCell(value: unknown): Cell {
  if (value === undefined) return null
  if (typeof value === 'number' && !Number.isFinite(value)) return null
  return toJsonSafe(value) as Cell
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/

function kindOf(values: unknown[]): ColumnKind {
  let kind: ColumnKind | null = null
  for (const v of values) {
    if (v === null || v === undefined) continue
    const k: ColumnKind =
      typeof v === 'number' || typeof v === 'bigint' ? 'number'
        : typeof v === 'boolean' ? 'boolean'
          : v instanceof Date ? 'date'
            : typeof v === 'string' ? (ISO_DATE.test(v) ? 'date' : 'string')
              : 'json'
    if (kind === null) kind = k
    else if (kind !== k) return 'string'
  }
  return kind ?? 'string'
}

export function normalizeTable(data: TableData, names?: string[]): Tabular {
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
      if (!names) for (const r of records) for (const k of Object.keys(r ?? {})) seen.add(k)
      columnNames = [...seen]
      raw = records.map((r) => columnNames.map((c) => (r ?? {})[c]))
    }
  } else if (typeof data === 'object' && data !== null) {
    const cols = data as Record<string, readonly unknown[]>
    columnNames = names ?? Object.keys(cols)
    const length = Math.max(0, ...columnNames.map((c) => cols[c]?.length ?? 0))
    raw = Array.from({ length }, (_v, i) => columnNames.map((c) => cols[c]?.[i]))
  } else {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', 'table data must be an array of records, an array of arrays, or an object of column arrays')
  }
  const columns = columnNames.map((name, i) => ({ name, kind: kindOf(raw.map((r) => r[i])) }))
  return { columns, rows: raw.map((r) => r.map(toCell)) }
}

function compareCells(a: Cell, b: Cell): number {
  if (a === null) return b === null ? 0 : 1
  if (b === null) return -1
  if (typeof a === 'number' && typeof b === 'number') return a - b
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b)
  const sa = typeof a === 'string' ? a : JSON.stringify(a)
  const sb = typeof b === 'string' ? b : JSON.stringify(b)
  return sa.localeCompare(sb)
}

/** One page of the table, sorted (stable; nulls last in both directions). */
export function pageOf(table: Tabular, page: number, pageSize: number, sort: SortSpec | null): { rows: Cell[][]; page: number } {
  let rows = table.rows
  const col = sort ? table.columns.findIndex((c) => c.name === sort.column) : -1
  if (sort && col >= 0) {
    const dir = sort.direction === 'desc' ? -1 : 1
    rows = rows
      .map((r, i) => [r, i] as const)
      .sort(([a, ia], [b, ib]) => {
        const x = a[col] ?? null
        const y = b[col] ?? null
        if (x === null || y === null) return x === y ? ia - ib : x === null ? 1 : -1
        return compareCells(x, y) * dir || ia - ib
      })
      .map(([r]) => r)
  }
  const pages = Math.max(1, Math.ceil(rows.length / pageSize))
  const p = Math.min(Math.max(0, Math.trunc(page)), pages - 1)
  return { rows: rows.slice(p * pageSize, (p + 1) * pageSize), page: p }
}
