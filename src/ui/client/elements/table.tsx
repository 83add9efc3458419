import type { Cell, ColumnSpec, TableProps } from '../../wire/elements.js'
import type { ElementProps } from './types.js'

// No digit grouping in cells (ids and years read wrong as "1,239"), like pandas and Streamlit.
const cellNumber = new Intl.NumberFormat('en-US', { maximumFractionDigits: 4, useGrouping: false })

/** One row's cells. */
function RowCells({ row, columns }: { row: readonly Cell[]; columns: readonly ColumnSpec[] }) {
  return (
    <>
      {columns.map((c, i) => (
        <CellView key={c.name} value={row[i]} kind={c.kind} />
      ))}
    </>
  )
}

export function formatCell(value: Cell | undefined, kind: ColumnSpec['kind']): string {
  if (value === null || value === undefined) return ''
  if (kind === 'number' && typeof value === 'number') return cellNumber.format(value)
  if (typeof value === 'object') return JSON.stringify(value)
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  return String(value)
}

function CellView({ value, kind }: { value: Cell | undefined; kind: ColumnSpec['kind'] }) {
  if (value === null || value === undefined) return <td class="is-null">—</td>
  if (typeof value === 'boolean') {
    return (
      <td class="is-bool">
        <span class={value ? 'svc-bool is-true' : 'svc-bool'} aria-label={String(value)}>
          {value ? '✓' : '✗'}
        </span>
      </td>
    )
  }
  return <td class={kind === 'number' ? 'is-num' : kind === 'json' ? 'is-json' : undefined}>{formatCell(value, kind)}</td>
}

export function Table({ props }: ElementProps<TableProps>) {
  return (
    <div class="svc-table-wrap" tabIndex={0}>
      <table class="svc-table">
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c.name} scope="col" class={c.kind === 'number' ? 'is-num' : undefined}>
                {c.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row, r) => (
            <tr key={r}>
              <RowCells row={row} columns={props.columns} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
