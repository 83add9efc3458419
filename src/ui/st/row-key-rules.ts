import type { Cell, DataColumn, EditingState } from '../wire/elements.js'
import type { RowKey } from '../st-types.js'
import { record } from './dataframe.js'
import { keyString, type RowIdentity } from './row-identity.js'

/**
 * A keyed data editor's rows keep unique keys whatever the browser sends: a page that saves by
 * key must never get two rows with one key, or a kept row under another row's key. So an edit
 * may not change an existing row's key (a key column is read-only on existing rows; with a key
 * function, no edit may change what it computes), and an added row's key must be new: not a key
 * of the data (deleted rows included) nor of another added row. An added row may have no key yet:
 * an empty key cell, or with a key function a row left at its defaults.
 */
export interface RowKeyRules {
  /** Why `state` breaks the rules (for the visitor), or null. */
  problem(state: Pick<EditingState, 'editedRows' | 'addedRows'>, identity: RowIdentity): string | null
  /** The key of added row `j` as a string, or null when it has none yet. */
  addedKey(cells: Readonly<Record<string, Cell>>, j: number): string | null
}

export function rowKeyRules(
  rowKey: RowKey,
  names: readonly string[],
  raw: readonly (readonly unknown[])[],
  columns: readonly DataColumn[],
  originals: readonly object[] | undefined,
): RowKeyRules {
  const keyColumn = typeof rowKey === 'string' ? rowKey : null
  const keyDefault = keyColumn === null ? null : (columns.find((c) => c.name === keyColumn)?.default ?? null)
  // A key function may throw on a row it was not written for (an added row with empty cells): no key.
  const computed = (row: Record<string, unknown>, index: number): string | null => {
    try {
      return keyString((rowKey as Exclude<RowKey, string>)(row, index))
    } catch {
      return null
    }
  }
  const addedKey = (cells: Readonly<Record<string, Cell>>, j: number): string | null => {
    if (keyColumn !== null) {
      const v = Object.hasOwn(cells, keyColumn) ? cells[keyColumn] : keyDefault
      return v === null || v === undefined ? null : keyString(v)
    }
    if (columns.every((c) => !Object.hasOwn(cells, c.name) || cells[c.name] === c.default)) return null
    return computed(record(names, columns.map((c) => (Object.hasOwn(cells, c.name) ? cells[c.name] : c.default))), raw.length + j)
  }
  const problem: RowKeyRules['problem'] = (state, identity) => {
    for (const [row, cells] of Object.entries(state.editedRows)) {
      if (keyColumn !== null) {
        if (Object.hasOwn(cells, keyColumn) && keyString(cells[keyColumn]) !== row) return `row ${row}: its key cannot be changed (column "${keyColumn}" names the row); add a new row instead`
        continue
      }
      const at = identity.byKey?.get(row)
      if (at === undefined) continue
      const base = (originals?.[at] as Record<string, unknown> | undefined) ?? record(names, raw[at]!)
      if (computed({ ...base, ...cells }, at) !== row) return `row ${row}: this edit would change the row's key`
    }
    const seen = new Set<string>()
    for (let j = 0; j < state.addedRows.length; j++) {
      const cells = state.addedRows[j]!
      if (keyColumn !== null && Object.hasOwn(cells, keyColumn) && cells[keyColumn] !== null && keyString(cells[keyColumn]) === null) {
        return `added row ${j + 1}: ${JSON.stringify(cells[keyColumn])} is not a usable row key`
      }
      const key = addedKey(cells, j)
      if (key === null) continue
      if (identity.byKey?.has(key) || seen.has(key)) return `added row ${j + 1}: the key ${JSON.stringify(key)} is already used by another row; each row needs its own key`
      seen.add(key)
    }
    return null
  }
  return { problem, addedKey }
}
