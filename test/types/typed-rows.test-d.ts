import { describe, expectTypeOf, it } from 'vitest'
import { columnConfig, type EditingState } from '../../src/index.js'
import type { DataframeSelection, EditedRows, St } from '../../src/ui/index.js'

/**
 * Issue #33.2: `st.dataEditor` and `st.dataframe` take their row type from the data, so keys and
 * value types reach the result without annotations, and `rowKey`, `columnConfig`, `columnOrder`
 * and `disabled` are checked against the row's keys. Each `@ts-expect-error` must fail to compile.
 */
declare const st: St
declare function audit(edits: EditingState): void
const todo = [
  { id: 1, task: 'Write the docs', owner: 'ada', hours: 3, done: false, due: '2026-01-10' },
  { id: 2, task: 'Ship', owner: 'grace', hours: 5, done: true, due: '2026-01-12' },
]
type Task = (typeof todo)[number]

describe('st.dataEditor', () => {
  it("types the rows of pages.md's example from its data (the example, unchanged)", () => {
    const tasks = st.dataEditor(todo, {
      key: 'tasks',
      numRows: 'dynamic',                 // '+ Add row' and a delete button per row; default 'fixed'
      disabled: ['id'],                   // or true: nothing editable
      columnConfig: {
        owner: columnConfig.selectbox({ options: ['ada', 'grace', 'linus'] }),
        hours: columnConfig.number({ min: 0, max: 40, default: 1 }),
        done: columnConfig.checkbox({ default: false }),
        due: columnConfig.date(),
      },
      onChange: (edits) => audit(edits),
    })
    st.metric('Hours left', tasks.filter((t) => !t.done).reduce((n, t) => n + t.hours, 0))
    expectTypeOf(tasks).toEqualTypeOf<EditedRows<Task>>()
  })

  it('fails when a key is misspelt: in the result, the column config, disabled or rowKey', () => {
    const tasks = st.dataEditor(todo, { key: 'tasks' })
    // @ts-expect-error `hour` is not a column (`hours` is)
    st.metric('Hours left', tasks.filter((t) => !t.done).reduce((n, t) => n + t.hour, 0))
    // @ts-expect-error `hour` is not a column
    st.dataEditor(todo, { columnConfig: { hour: columnConfig.number() } })
    // @ts-expect-error `ids` is not a column
    st.dataEditor(todo, { disabled: ['ids'] })
    // @ts-expect-error `key` is not a column
    st.dataEditor(todo, { rowKey: 'key' })
    // @ts-expect-error `size` is not a column
    st.dataEditor(todo, { columnOrder: ['id', 'size'] })
  })

  it('types a rowKey function by the row', () => {
    st.dataEditor(todo, { rowKey: (t) => `${t.owner}/${t.id}` })
    // @ts-expect-error rows have no `region`
    st.dataEditor(todo, { rowKey: (t) => t.region })
  })

  it('types column-oriented data by its columns', () => {
    const edited = st.dataEditor({ region: ['North', 'South'], target: [1200, 900] }, { rowKey: 'region' })
    expectTypeOf(edited[0]!).toEqualTypeOf<{ region: string; target: number }>()
    // @ts-expect-error no `targets` column
    st.dataEditor({ region: ['North'], target: [1200] }, { columnConfig: { targets: 'Target' } })
  })

  it('keeps an explicit row type, and data known only as table data gives records', () => {
    interface Order { id: number; region: string }
    const orders: Order[] = [{ id: 1, region: 'North' }]
    expectTypeOf(st.dataEditor<Order>(orders, { rowKey: 'id' })).toEqualTypeOf<EditedRows<Order>>()
    const grid = st.dataEditor([[1, 'a'], [2, 'b']], { columns: ['n', 's'], rowKey: 'n' })
    expectTypeOf(grid).toEqualTypeOf<EditedRows<Record<string, unknown>>>()
  })
})

describe('st.dataframe selections', () => {
  it('types the selected rows from the data', () => {
    const picked = st.dataframe(todo, { key: 'pick', selectionMode: 'single-row', rowKey: 'id' })
    expectTypeOf(picked).toEqualTypeOf<DataframeSelection<Task>>()
    const first = picked.rows[0]
    if (first) expectTypeOf(first.hours).toEqualTypeOf<number>()
    st.dataframe(todo, { selectionMode: 'multi-row', onSelect: (s) => {
      expectTypeOf(s.rows).toEqualTypeOf<Task[]>()
    } })
  })

  it('checks rowKey and the column config against the row', () => {
    // @ts-expect-error `idd` is not a column
    st.dataframe(todo, { selectionMode: 'single-row', rowKey: 'idd' })
    // @ts-expect-error `owners` is not a column
    st.dataframe(todo, { columnConfig: { owners: 'Owner' } })
  })
})
