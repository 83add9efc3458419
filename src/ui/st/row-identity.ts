import { SvcError } from '../../errors.js'
import type { RowId } from '../wire/elements.js'
import type { RowKey } from '../st-types.js'

/**
 * Which row a selection or an edit belongs to. With a `rowKey` every row has a key (a string on
 * the wire and in the page's state), so a held selection or edit follows its row through
 * filtering, re-sorting and data that changes between runs, and is dropped when the row is gone.
 * Without one a row is its index, which only means something for the rows it was made against:
 * the widget then holds a version of its rows (`WidgetStore.rowsVersion`) and clears when they change.
 */
export interface RowIdentity {
  /** Per data row: its id (the key as a string, or the index). */
  readonly ids: RowId[]
  /** Key → index in the data; null without a row key. */
  readonly byKey: Map<string, number> | null
}

/** A key value as the string rows are named by; null for a value that cannot be a key. */
export function keyString(v: unknown): string | null {
  if (typeof v === 'string') return v
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : null
  if (typeof v === 'bigint') return v.toString()
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.toISOString()
  return null
}

/** A table's row keys as the page gave them, and the identity built from them. */
export interface KeyedRows {
  readonly keys: readonly unknown[]
  readonly identity: RowIdentity
}

export function rowsByIndex(count: number): RowIdentity {
  // A plain loop: Array.from with a map function is several times slower on 100k rows.
  const ids = new Array<number>(count)
  for (let i = 0; i < count; i++) ids[i] = i
  return { ids, byKey: null }
}

/**
 * Ids of the rows of one table; throws naming the row when a key is missing or repeated. When the
 * keys are those of `previous` (the last run's drawing of the table), its identity is reused: a
 * rerun over unchanged data costs one pass over the keys, not a new map.
 */
export function rowIdentity(
  what: string,
  names: readonly string[],
  raw: readonly (readonly unknown[])[],
  rowKey: RowKey,
  /** The page's own records, handed to a key function as they are. */
  originals: readonly object[] | undefined,
  previous: KeyedRows | undefined,
): KeyedRows {
  let keyOf: (row: readonly unknown[], i: number) => unknown
  if (typeof rowKey === 'string') {
    const col = names.indexOf(rowKey)
    if (col < 0) throw new SvcError('SVC_ERR_UI_BAD_CALL', `${what}: rowKey "${rowKey}" is not a column of the data (columns: ${names.join(', ') || 'none'})`)
    keyOf = (row) => row[col]
  } else if (typeof rowKey === 'function') {
    keyOf = (row, i) => rowKey((originals?.[i] as Record<string, unknown> | undefined) ?? Object.fromEntries(names.map((n, c) => [n, row[c]])), i)
  } else {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `${what}: rowKey must be a column name or a function of the row, got ${typeof rowKey}`)
  }
  const keys = new Array<unknown>(raw.length)
  for (let i = 0; i < raw.length; i++) keys[i] = keyOf(raw[i]!, i)
  if (previous && previous.keys.length === keys.length && keys.every((k, i) => k === previous.keys[i])) return previous
  const ids = new Array<RowId>(raw.length)
  const byKey = new Map<string, number>()
  // One hash per row: a repeated key shows as a map that did not grow.
  for (let i = 0; i < raw.length; i++) {
    const value = keys[i]
    const key = typeof value === 'string' ? value : keyString(value)
    if (key === null) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `${what}: row ${i} has no usable row key (got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}); a row key is a string or a number`)
    }
    byKey.set(key, i)
    if (byKey.size !== i + 1) {
      const other = ids.indexOf(key)
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `${what}: rows ${other} and ${i} share the row key ${JSON.stringify(key)}; rowKey must name each row once`)
    }
    ids[i] = key
  }
  return { keys, identity: { ids, byKey } }
}

/** Index in the data of the row with this id (a key, or an index as number or digits), if there is one. */
export function positionOf(identity: RowIdentity, id: RowId): number | undefined {
  if (identity.byKey) return identity.byKey.get(String(id))
  const i = typeof id === 'number' ? id : /^\d{1,9}$/.test(id) ? Number(id) : -1
  return Number.isInteger(i) && i >= 0 && i < identity.ids.length ? i : undefined
}
