import { useEffect, useReducer, useRef } from 'preact/hooks'
import type { Cell, ColumnSpec, DataframeProps, SortSpec, TableProps } from '../../elements.js'
import type { UiNode } from '../../protocol.js'
import { useRuntime } from '../context.js'
import type { ElementProps } from './types.js'

// No digit grouping in cells (ids and years read wrong as "1,239"), like pandas and Streamlit.
const cellNumber = new Intl.NumberFormat('en-US', { maximumFractionDigits: 4, useGrouping: false })
const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 4 })

/** One row's cells, as the table and the dataframe both render them. */
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

interface PageState {
  rows: Cell[][]
  page: number
  sort: SortSpec | null
  totalRows: number
  loading: boolean
}

function nextSort(current: SortSpec | null, column: string): SortSpec | null {
  if (current?.column !== column) return { column, direction: 'asc' }
  return current.direction === 'asc' ? { column, direction: 'desc' } : null
}

/** Server-paged, sortable table: page and sort changes ask the server (`dataframe_page`), no rerun. */
export function Dataframe({ node, props }: ElementProps<DataframeProps>) {
  const rt = useRuntime()
  const fromProps = (): PageState => ({ rows: props.rows, page: props.page, sort: props.sort, totalRows: props.totalRows, loading: false })
  // A new render resets to the server's page; `dataframe_rows` answers replace it in between.
  const current = useRef<PageState | null>(null)
  const seen = useRef<UiNode['props'] | null>(null)
  if (seen.current !== node.props) {
    seen.current = node.props
    current.current = fromProps()
  }
  const [, force] = useReducer((n: number) => n + 1, 0)
  const state = current.current!
  const setState = (next: PageState) => {
    current.current = next
    force(0)
  }
  useEffect(
    () =>
      rt.onDataframeRows(node.id, (m) =>
        setState({ rows: m.rows as Cell[][], page: m.page, sort: m.sort, totalRows: m.totalRows, loading: false }),
      ),
    [rt, node.id],
  )
  const pages = Math.max(1, Math.ceil(state.totalRows / props.pageSize))
  const ask = (page: number, sort: SortSpec | null) => {
    setState({ ...state, loading: true, page, sort })
    rt.requestDataframePage(node.id, page, sort)
  }
  const first = state.totalRows === 0 ? 0 : state.page * props.pageSize + 1
  const last = Math.min(state.totalRows, (state.page + 1) * props.pageSize)
  return (
    <div class={state.loading ? 'svc-dataframe is-loading' : 'svc-dataframe'} data-testid="dataframe">
      <div class="svc-table-wrap" style={props.height ? { maxHeight: `${props.height}px` } : undefined} tabIndex={0}>
        <table class="svc-table is-interactive">
          <thead>
            <tr>
              {props.hideIndex ? null : <th class="svc-index" scope="col" aria-label="Row" />}
              {props.columns.map((c) => {
                const dir = state.sort?.column === c.name ? state.sort.direction : null
                return (
                  <th key={c.name} scope="col" class={c.kind === 'number' ? 'is-num' : undefined} aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : 'none'}>
                    <button type="button" class="svc-sort" onClick={() => ask(0, nextSort(state.sort, c.name))} title={`Sort by ${c.name}`}>
                      <span>{c.name}</span>
                      <span class={dir ? 'svc-sort-icon is-active' : 'svc-sort-icon'} aria-hidden="true">
                        {dir === 'desc' ? '↓' : dir === 'asc' ? '↑' : '↕'}
                      </span>
                    </button>
                  </th>
                )
              })}
            </tr>
          </thead>
          <tbody>
            {state.rows.map((row, r) => (
              <tr key={state.page * props.pageSize + r}>
                {props.hideIndex ? null : <td class="svc-index">{state.page * props.pageSize + r}</td>}
                <RowCells row={row} columns={props.columns} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="svc-table-foot">
        <span class="svc-muted" aria-live="polite">
          {state.totalRows === 0 ? 'No rows' : `${numberFormat.format(first)}–${numberFormat.format(last)} of ${numberFormat.format(state.totalRows)} rows`}
        </span>
        {pages > 1 ? (
          <span class="svc-pager">
            <button type="button" class="svc-pager-button" aria-label="Previous page" disabled={state.page <= 0} onClick={() => ask(state.page - 1, state.sort)}>
              ‹
            </button>
            <span class="svc-pager-label">
              Page {state.page + 1} of {pages}
            </span>
            <button type="button" class="svc-pager-button" aria-label="Next page" disabled={state.page >= pages - 1} onClick={() => ask(state.page + 1, state.sort)}>
              ›
            </button>
          </span>
        ) : null}
      </div>
    </div>
  )
}
