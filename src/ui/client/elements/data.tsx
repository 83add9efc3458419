import type { JSX } from 'preact'
import { useEffect, useLayoutEffect, useReducer, useRef } from 'preact/hooks'
import type { Cell, DataColumn, DataEditorProps, DataframeProps, EditingState, RowId, SortSpec, TableSelectionModes } from '../../wire/elements.js'
import type { UiNode } from '../../wire/protocol.js'
import { useRuntime } from '../context.js'
import type { DataframeRows } from '../runtime.js'
import { domId, useLocal, useWidgetValue } from '../widgets/field.js'
import { formatCell, formatNumber, progressFraction } from './cell-format.js'
import { safeUrl } from '../url.js'
import { addRow, deleteRow, editCell, editedValue, parseInput } from './editing.js'
import { Sparkline } from './metric.js'
import type { ElementProps } from './types.js'

/**
 * `dataframe` and `dataEditor`: server-paged tables. Only one page of rows is in the DOM; page and
 * sort changes ask the server (`dataframe_page`, answered by `dataframe_rows`, no rerun), so a
 * 100k-row table costs one page per interaction. Selection and edits are widget values holding
 * row ids (row keys, or indexes into the page's data sent with the rows' version), so they
 * survive sorting and paging and never land on another row when the data changes.
 */

const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 })
const WIDTHS = { small: 75, medium: 200, large: 400 } as const

interface View {
  rows: Cell[][]
  rowIds: RowId[]
  page: number
  sort: SortSpec | null
  totalRows: number
  loading: boolean
}

function nextSort(current: SortSpec | null, column: string): SortSpec | null {
  if (current?.column !== column) return { column, direction: 'asc' }
  return current.direction === 'asc' ? { column, direction: 'desc' } : null
}

/** The page shown: the server's on every render, `dataframe_rows` answers in between. */
function usePagedView(node: UiNode, props: DataframeProps | DataEditorProps) {
  const rt = useRuntime()
  const current = useRef<View | null>(null)
  const seen = useRef<UiNode['props'] | null>(null)
  if (seen.current !== node.props) {
    seen.current = node.props
    current.current = { rows: props.rows, rowIds: props.rowIds, page: props.page, sort: props.sort, totalRows: props.totalRows, loading: false }
  }
  const [, force] = useReducer((n: number) => n + 1, 0)
  const set = (next: View) => {
    current.current = next
    force(0)
  }
  // Answers come in request order: while newer requests are out, an older answer is stale.
  const pending = useRef(0)
  useEffect(
    () =>
      rt.onAnswer(node.id, (answer) => {
        const m = answer as DataframeRows
        pending.current = Math.max(0, pending.current - 1)
        if (pending.current === 0) set({ rows: m.rows as Cell[][], rowIds: m.rowIds, page: m.page, sort: m.sort, totalRows: m.totalRows, loading: false })
      }),
    [rt, node.id],
  )
  const view = current.current!
  const ask = (page: number, sort: SortSpec | null) => {
    pending.current++
    set({ ...view, loading: true, page, sort })
    rt.requestDataframePage(node.id, page, sort)
  }
  return { view, ask }
}

function widthStyle(c: DataColumn): JSX.CSSProperties | undefined {
  if (c.width === null) return undefined
  const px = typeof c.width === 'number' ? c.width : WIDTHS[c.width]
  return { width: `${px}px`, minWidth: `${px}px`, maxWidth: `${px}px` }
}

/**
 * Sticky columns (leading ones, then `pinned`; always the first columns) get their `left` from the
 * widths of the sticky header cells before them (widths do not change with horizontal scrolling).
 */
function usePinnedOffsets(deps: unknown[]) {
  const table = useRef<HTMLTableElement>(null)
  useLayoutEffect(() => {
    const t = table.current
    if (!t) return
    let left = 0
    t.querySelectorAll<HTMLElement>('thead th.is-sticky').forEach((th, k) => {
      t.style.setProperty(`--svc-pin-${k}`, `${left}px`)
      left += th.getBoundingClientRect().width
    })
  }, deps)
  return table
}

const sticky = (k: number): JSX.CSSProperties => ({ left: `var(--svc-pin-${k})` })

/** A read-only cell, drawn by its column type. */
function CellContent({ value, column }: { value: Cell | undefined; column: DataColumn }) {
  if (value === null || value === undefined) return <span class="svc-cell-null">—</span>
  switch (column.type) {
    case 'checkbox':
      // A read-only box in the accent colour (a disabled input would be greyed out).
      return (
        <span class={value === true ? 'svc-cell-box is-true' : 'svc-cell-box'} role="checkbox" aria-checked={value === true} aria-readonly="true" aria-label={`${column.label}: ${String(value)}`}>
          {value === true ? '✓' : ''}
        </span>
      )
    case 'progress': {
      if (typeof value !== 'number') break
      const f = progressFraction(value, column.min, column.max)
      return (
        <span class="svc-cell-progress" role="progressbar" aria-valuenow={value} aria-valuemin={column.min ?? 0} aria-valuemax={column.max ?? 1}>
          <span class="svc-cell-progress-bar">
            <span style={{ width: `${(f * 100).toFixed(1)}%` }} />
          </span>
          <span class="svc-cell-progress-text">{column.format === null ? `${Math.round(f * 100)}%` : formatNumber(value, column.format)}</span>
        </span>
      )
    }
    case 'link': {
      const href = typeof value === 'string' ? safeUrl(value, 'link') : undefined
      if (href !== undefined) {
        return (
          <a href={href} target="_blank" rel="noopener noreferrer">
            {formatCell(value, column)}
          </a>
        )
      }
      break
    }
    case 'image': {
      const src = typeof value === 'string' ? safeUrl(value, 'image') : undefined
      if (src !== undefined) return <img class="svc-cell-image" src={src} alt="" loading="lazy" />
      break
    }
    // Issue #36: chart cells arrive as the path of their sparkline; lists as chips.
    case 'lineChart':
    case 'barChart':
    case 'areaChart':
      if (typeof value === 'string') return <Sparkline chart={{ kind: column.type.slice(0, -5) as 'line', d: value }} />
      break
    case 'list':
    case 'multiselect':
      if (Array.isArray(value)) {
        return (
          <span class="svc-cell-chips">
            {value.map((v, i) => (
              <span key={i}>{String(v)}</span>
            ))}
          </span>
        )
      }
      break
    default:
      break
  }
  return <>{formatCell(value, column)}</>
}

function cellClass(c: DataColumn, k: number | null, extra = ''): string {
  const num = c.type === 'number' || c.type === 'progress' ? ' is-num' : ''
  return `svc-cell is-${c.type}${num}${k !== null ? ' is-sticky' : ''}${c.pinned ? ' is-pinned' : ''}${extra}`
}

interface Editing {
  rowId: RowId
  column: string
}

/** The input of one cell being edited; commits on Enter, change or blur, cancels on Escape. */
function CellEditor({ column, value, onCommit, onCancel }: { column: DataColumn; value: Cell; onCommit: (v: Cell) => void; onCancel: () => void }) {
  const done = useRef(false)
  const commit = (v: Cell) => {
    if (done.current) return
    done.current = true
    onCommit(v)
  }
  const keys = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      done.current = true
      onCancel()
    } else if (e.key === 'Enter') (e.currentTarget as HTMLElement).blur()
  }
  const label = `Edit ${column.label}`
  if (column.type === 'selectbox' || column.type === 'multiselect') {
    // A multiselect cell picks several options and saves when the list loses focus.
    const multi = column.type === 'multiselect'
    const options = column.options ?? []
    const chosen = Array.isArray(value) ? value : [value]
    return (
      <select
        class="svc-cell-input"
        aria-label={label}
        autoFocus
        multiple={multi}
        onChange={
          multi
            ? undefined
            : (e) => {
                const i = (e.currentTarget as HTMLSelectElement).value
                commit(i === '' ? null : options[Number(i)]!)
              }
        }
        onBlur={multi ? (e) => commit([...(e.currentTarget as HTMLSelectElement).selectedOptions].map((o) => options[Number(o.value)]!)) : onCancel}
        onKeyDown={keys}
      >
        {multi ? null : <option value="">—</option>}
        {options.map((o, i) => (
          <option key={i} value={String(i)} selected={chosen.includes(o)}>
            {String(o)}
          </option>
        ))}
      </select>
    )
  }
  const type = column.type === 'number' ? 'number' : column.type === 'date' ? 'date' : column.type === 'datetime' ? 'datetime-local' : column.type === 'time' ? 'time' : 'text'
  const initial = value === null ? '' : column.type === 'datetime' && typeof value === 'string' ? value.slice(0, 16) : String(value)
  return (
    <input
      class="svc-cell-input"
      type={type}
      aria-label={label}
      autoFocus
      value={initial}
      step={column.step ?? 'any'}
      min={column.min ?? undefined}
      max={column.max ?? undefined}
      onBlur={(e) => commit(parseInput(column, (e.currentTarget as HTMLInputElement).value))}
      onKeyDown={keys}
    />
  )
}

/** Column and cell selection (issue #36): what is selected and how to change it. */
interface Picks {
  modes: TableSelectionModes
  columns: string[]
  cells: [RowId, string][]
  set(columns: string[], cells: [RowId, string][]): void
}

/** One pick more or less: `single` keeps at most one. */
function togglePick<T>(list: T[], item: T, same: (a: T) => boolean, mode: 'single' | 'multi' | null): T[] {
  if (list.some(same)) return list.filter((x) => !same(x))
  return mode === 'single' ? [item] : [...list, item]
}

interface TableProps {
  node: UiNode
  props: DataframeProps | DataEditorProps
  selection?: { mode: 'single-row' | 'multi-row'; rows: RowId[]; set: (rows: RowId[]) => void }
  picks?: Picks
  editor?: { state: EditingState; baseRows: number; dynamic: boolean; locked: boolean; keyColumn: string | null; commit: (next: EditingState) => void; editing: Editing | null; setEditing: (e: Editing | null) => void }
  onAdd?: () => void
}

function DataTable({ node, props, selection, picks, editor, onAdd }: TableProps) {
  const { view, ask } = usePagedView(node, props)
  const jumpToEnd = useRef(false)
  useEffect(() => {
    if (!jumpToEnd.current) return
    jumpToEnd.current = false
    const last = Math.max(0, Math.ceil(props.totalRows / props.pageSize) - 1)
    if (last !== view.page) ask(last, view.sort)
  }, [node.props])
  const tableRef = usePinnedOffsets([node.props, view])
  const pages = Math.max(1, Math.ceil(view.totalRows / props.pageSize))
  const first = view.totalRows === 0 ? 0 : view.page * props.pageSize + 1
  const last = Math.min(view.totalRows, (view.page + 1) * props.pageSize)
  const cols = props.columns
  // Sticky slots, left to right: leading columns, then pinned ones.
  let slot = 0
  const selectSlot = selection ? slot++ : null
  const deleteSlot = editor?.dynamic && !editor.locked ? slot++ : null
  const indexSlot = props.hideIndex ? null : slot++
  const colSlots = cols.map((c) => (c.pinned ? slot++ : null))
  const selected = new Set(selection?.rows ?? [])
  const toggle = (rowId: RowId) => {
    if (!selection) return
    if (selection.mode === 'single-row') selection.set(selected.has(rowId) ? [] : [rowId])
    else selection.set(selected.has(rowId) ? selection.rows.filter((r) => r !== rowId) : [...selection.rows, rowId])
  }
  const allOnPage = view.rowIds.length > 0 && view.rowIds.every((r) => selected.has(r))
  const togglePage = () => {
    if (!selection) return
    const page = new Set(view.rowIds)
    selection.set(allOnPage ? selection.rows.filter((r) => !page.has(r)) : [...new Set([...selection.rows, ...view.rowIds])])
  }
  const wrapStyle: JSX.CSSProperties = props.height ? { maxHeight: `${props.height}px` } : {}
  const kind = editor ? 'dataEditor' : 'dataframe'
  return (
    <div class={`svc-dataframe${view.loading ? ' is-loading' : ''}${props.useContainerWidth ? ' is-wide' : ''}`} data-testid={kind} id={domId(node.id)}>
      <div class="svc-table-wrap" style={wrapStyle} tabIndex={0}>
        <table class="svc-table is-interactive svc-data-table" ref={tableRef}>
          <thead>
            <tr>
              {selectSlot !== null ? (
                <th class="svc-select-col is-sticky" style={sticky(selectSlot)} scope="col">
                  {selection!.mode === 'multi-row' ? (
                    <input type="checkbox" aria-label="Select all rows on this page" checked={allOnPage} onChange={togglePage} />
                  ) : (
                    <span class="svc-visually-hidden">Select</span>
                  )}
                </th>
              ) : null}
              {deleteSlot !== null ? (
                <th class="svc-select-col is-sticky" style={sticky(deleteSlot)} scope="col">
                  <span class="svc-visually-hidden">Delete</span>
                </th>
              ) : null}
              {indexSlot !== null ? <th class="svc-index is-sticky" style={sticky(indexSlot)} scope="col" aria-label="Row" /> : null}
              {cols.map((c, i) => {
                const dir = view.sort?.column === c.name ? view.sort.direction : null
                const k = colSlots[i]!
                return (
                  <th
                    key={c.name}
                    scope="col"
                    class={cellClass(c, k)}
                    style={{ ...widthStyle(c), ...(k !== null ? sticky(k) : {}) }}
                    aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : 'none'}
                    title={c.help ?? undefined}
                  >
                    {picks?.modes.columns ? (
                      <input
                        type="checkbox"
                        class="svc-col-select"
                        aria-label={`Select column ${c.label}`}
                        checked={picks.columns.includes(c.name)}
                        onChange={() => picks.set(togglePick(picks.columns, c.name, (x) => x === c.name, picks.modes.columns), picks.cells)}
                      />
                    ) : null}
                    <button type="button" class="svc-sort" onClick={() => ask(0, nextSort(view.sort, c.name))} title={c.help ?? `Sort by ${c.label}`}>
                      <span>{c.label}</span>
                      {c.help ? <span class="svc-col-help" aria-hidden="true">?</span> : null}
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
            {view.rows.map((row, r) => {
              const rowId = view.rowIds[r]!
              const isSelected = selected.has(rowId)
              return (
                <tr key={rowId} data-row={rowId} class={isSelected ? 'is-selected' : undefined} aria-selected={selection ? isSelected : undefined}>
                  {selectSlot !== null ? (
                    <td class="svc-select-col is-sticky" style={sticky(selectSlot)}>
                      <input type="checkbox" aria-label={`Select row ${rowId}`} checked={isSelected} onChange={() => toggle(rowId)} />
                    </td>
                  ) : null}
                  {deleteSlot !== null ? (
                    <td class="svc-select-col is-sticky" style={sticky(deleteSlot)}>
                      <button type="button" class="svc-row-delete" aria-label={`Delete row ${rowId}`} title="Delete row" onClick={() => editor!.commit(deleteRow(editor!.state, editor!.baseRows, rowId))}>
                        ×
                      </button>
                    </td>
                  ) : null}
                  {indexSlot !== null ? <td class="svc-index is-sticky" style={sticky(indexSlot)}>{rowId}</td> : null}
                  {cols.map((c, i) => {
                    const k = colSlots[i]!
                    const local = editor ? editedValue(editor.state, editor.baseRows, rowId, c.name) : null
                    const value = local ? local.value : row[i]
                    // A row's key names it: set on an added row, never changed on an existing one.
                    const editable = editor !== undefined && !c.disabled && !(c.name === editor.keyColumn && !(typeof rowId === 'number' && rowId >= editor.baseRows))
                    const isEditing = editable && editor.editing?.rowId === rowId && editor.editing.column === c.name
                    // Cells with an editor open it on click or Enter (checkboxes are edited in place).
                    const opens = editable && c.type !== 'checkbox' && !isEditing
                    const cellPick = picks?.modes.cells ? (): void => picks.set(picks.columns, togglePick(picks.cells, [rowId, c.name], ([r, n]) => r === rowId && n === c.name, picks.modes.cells)) : null
                    const picked = picks ? `${picks.cells.some(([r, n]) => r === rowId && n === c.name) ? ' is-picked' : ''}${picks.columns.includes(c.name) ? ' is-col-picked' : ''}` : ''
                    const commit = (v: Cell) => {
                      editor!.setEditing(null)
                      if (v !== (value ?? null)) editor!.commit(editCell(editor!.state, editor!.baseRows, rowId, c.name, v))
                    }
                    return (
                      <td
                        key={c.name}
                        class={cellClass(c, k, `${value === null || value === undefined ? ' is-null' : ''}${editable ? ' is-editable' : ''}${picked}`)}
                        style={{ ...widthStyle(c), ...(k !== null ? sticky(k) : {}) }}
                        data-col={c.name}
                        tabIndex={opens || cellPick ? 0 : undefined}
                        aria-selected={cellPick ? picked.includes('is-picked') : undefined}
                        onClick={opens ? () => editor.setEditing({ rowId, column: c.name }) : (cellPick ?? undefined)}
                        onKeyDown={opens ? (e) => e.key === 'Enter' && editor.setEditing({ rowId, column: c.name }) : cellPick ? (e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), cellPick()) : undefined}
                      >
                        {isEditing ? (
                          <CellEditor column={c} value={value ?? null} onCommit={commit} onCancel={() => editor.setEditing(null)} />
                        ) : editable && c.type === 'checkbox' ? (
                          <input type="checkbox" class="svc-cell-check" aria-label={`${c.label} of row ${rowId}`} checked={value === true} onChange={(e) => commit((e.currentTarget as HTMLInputElement).checked)} />
                        ) : (
                          <CellContent value={value} column={c} />
                        )}
                      </td>
                    )
                  })}
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
      <div class="svc-table-foot">
        <span class="svc-muted" aria-live="polite">
          {view.totalRows === 0 ? 'No rows' : `${numberFormat.format(first)}–${numberFormat.format(last)} of ${numberFormat.format(view.totalRows)} rows`}
          {selection && selection.rows.length ? ` · ${numberFormat.format(selection.rows.length)} selected` : ''}
        </span>
        <span class="svc-table-actions">
          {onAdd ? (
            <button
              type="button"
              class="svc-button is-secondary svc-add-row"
              onClick={() => {
                jumpToEnd.current = true
                onAdd()
              }}
            >
              + Add row
            </button>
          ) : null}
          {pages > 1 ? (
            <span class="svc-pager">
              <button type="button" class="svc-pager-button" aria-label="Previous page" disabled={view.page <= 0} onClick={() => ask(view.page - 1, view.sort)}>
                ‹
              </button>
              <span class="svc-pager-label">
                Page {view.page + 1} of {numberFormat.format(pages)}
              </span>
              <button type="button" class="svc-pager-button" aria-label="Next page" disabled={view.page >= pages - 1} onClick={() => ask(view.page + 1, view.sort)}>
                ›
              </button>
            </span>
          ) : null}
        </span>
      </div>
    </div>
  )
}

/** The rows' version goes back with a value made for them (tables without a row key). */
function withVersion<T extends object>(value: T, rowsVersion: string | null): T {
  return rowsVersion === null ? value : { ...value, rowsVersion }
}

type Selected = { rows: RowId[]; columns?: string[]; cells?: [RowId, string][] }

function SelectableDataframe({ node, props }: ElementProps<DataframeProps>) {
  const modes = props.selectionModes ?? null
  const w = useWidgetValue<Selected>(node, modes ? { rows: props.selection, columns: props.selectedColumns ?? [], cells: props.selectedCells ?? [] } : { rows: props.selection })
  const v = w.value
  const commit = (next: Selected) => w.commit(withVersion(next, props.rowsVersion))
  return (
    <DataTable
      node={node}
      props={props}
      selection={props.selectionMode ? { mode: props.selectionMode, rows: v.rows, set: (rows) => commit({ ...v, rows }) } : undefined}
      picks={modes ? { modes, columns: v.columns ?? [], cells: v.cells ?? [], set: (columns, cells) => commit({ rows: v.rows, columns, cells }) } : undefined}
    />
  )
}

export function Dataframe({ node, props }: ElementProps<DataframeProps>) {
  return props.selectionMode || props.selectionModes ? <SelectableDataframe node={node} props={props} /> : <DataTable node={node} props={props} />
}

export function DataEditor({ node, props }: ElementProps<DataEditorProps>) {
  const w = useWidgetValue<EditingState>(node, props.value)
  const [editing, setEditing] = useLocal<Editing>(w)
  const dynamic = props.numRows === 'dynamic'
  const commit = (next: EditingState) => w.commit(withVersion(next, props.rowsVersion))
  const editor = { state: w.value, baseRows: props.baseRows, dynamic, locked: props.disabled, keyColumn: props.keyColumn ?? null, commit, editing, setEditing }
  return (
    <>
      <DataTable node={node} props={props} editor={editor} onAdd={dynamic && !props.disabled ? () => commit(addRow(w.value, props.columns)) : undefined} />
      {props.refused ? (
        <p class="svc-field-error svc-editor-refused" role="alert">
          Not saved: {props.refused}
        </p>
      ) : null}
    </>
  )
}
