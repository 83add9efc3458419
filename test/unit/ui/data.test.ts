import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { createUiTestHandle } from '../../../src/testing/app-test.js'
import { formatCell, formatDate, formatNumber, linkText, progressFraction } from '../../../src/ui/client/elements/cell-format.js'
import { addRow, deleteRow, editCell, parseInput } from '../../../src/ui/client/elements/editing.js'
import type { Cell, DataColumn } from '../../../src/ui/wire/elements.js'
import type { EditingState, ServerMessage } from '../../../src/ui/index.js'
import { parseClientMessage } from '../../../src/ui/wire/protocol.js'
import { columnConfig, resolveColumns } from '../../../src/ui/column-config.js'
import { applyEdits, EMPTY_EDITS, parseEdits, type EditorShape } from '../../../src/ui/st/data-editor.js'
import { rowsByIndex } from '../../../src/ui/st/row-identity.js'
import type { St } from '../../../src/ui/st-types.js'

async function run(page: (st: St) => void | Promise<void>) {
  const app = new Svc({ title: 'T', log_level: 'fatal' })
  app.page('/', page)
  return createUiTestHandle(app).run()
}

/** The editor as drawn: every column shown, editable unless disabled; rows named by index. */
function editorShape(all: DataColumn[], numRows: 'fixed' | 'dynamic'): EditorShape {
  return { columns: all, editable: new Set(all.filter((c) => !c.disabled).map((c) => c.name)), keyed: false, numRows, keyProblem: null }
}

const lastRows = (messages: readonly ServerMessage[]) => {
  const m = messages.at(-1)!
  if (m.type !== 'dataframe_rows') throw new Error(`expected dataframe_rows, got ${m.type}`)
  return m
}

describe('cell formats', () => {
  it('named number formats', () => {
    expect(formatNumber(1234.5, 'dollar')).toBe('$1,234.50')
    expect(formatNumber(1234.5, 'euro')).toBe('€1,234.50')
    expect(formatNumber(1234, 'yen')).toBe('¥1,234')
    expect(formatNumber(0.256, 'percent')).toBe('25.60%')
    expect(formatNumber(-1234.5, 'accounting')).toBe('(1,234.50)')
    expect(formatNumber(1234567, 'compact')).toBe('1.2M')
    expect(formatNumber(1234.5, 'localized')).toMatch(/1.?234[.,]5/)
    expect(formatNumber(1239, null)).toBe('1239')
    expect(formatNumber(1239, 'plain')).toBe('1239')
  })

  it('printf formats', () => {
    expect(formatNumber(3.14159, '%.2f')).toBe('3.14')
    expect(formatNumber(12.7, '%d items')).toBe('12 items')
    expect(formatNumber(1234567.891, '$%,.2f')).toBe('$1,234,567.89')
    expect(formatNumber(42.5, '%.1f%%')).toBe('42.5%')
    expect(formatNumber(7, '%+d')).toBe('+7')
    expect(formatNumber(7, '%03d')).toBe('007')
    expect(formatNumber(1500, '%.1e')).toBe('1.5e+3')
  })

  it('date formats', () => {
    expect(formatDate('2026-03-07', 'YYYY/MM/DD', 'date')).toBe('2026/03/07')
    expect(formatDate('2026-03-07', 'DD MMM YYYY', 'date')).toBe('07 Mar 2026')
    expect(formatDate('2026-03-07T14:05:09Z', 'YYYY-MM-DD HH:mm:ss', 'datetime')).toBe('2026-03-07 14:05:09')
    expect(formatDate('2026-03-07T14:05:09Z', 'iso8601', 'date')).toBe('2026-03-07')
    expect(formatDate('2026-03-07', 'distance', 'date', Date.parse('2026-03-10T00:00:00Z'))).toBe('3 days ago')
    expect(formatDate('not a date', 'YYYY', 'date')).toBe('not a date')
    expect(formatDate('2026-03-07', null, 'date')).toBe('2026-03-07')
  })

  it('link text and progress', () => {
    expect(linkText('https://example.com/docs', null)).toBe('https://example.com/docs')
    expect(linkText('https://example.com/docs', 'Open')).toBe('Open')
    expect(linkText('https://roadmap.example.com/team', 'https://(.*?)\\.example\\.com')).toBe('roadmap')
    expect(progressFraction(50, 0, 100)).toBe(0.5)
    expect(progressFraction(2, 0, 1)).toBe(1)
    expect(progressFraction(1, 1, 1)).toBe(0)
    const col = { type: 'number' as const, format: 'dollar', displayText: null }
    expect(formatCell(9.5, col)).toBe('$9.50')
    expect(formatCell(null, col)).toBe('')
  })
})

describe('column configuration', () => {
  const cols = [
    { name: 'id', kind: 'number' as const },
    { name: 'name', kind: 'string' as const },
    { name: 'secret', kind: 'string' as const },
    { name: 'done', kind: 'boolean' as const },
  ]

  it('labels, hides (null or hidden), orders and pins', () => {
    const r = resolveColumns(cols, { id: null, name: 'Name', done: columnConfig.checkbox({ pinned: true, help: 'Finished?' }), secret: columnConfig.text({ hidden: true }) })
    expect(r.visible.map((i) => r.all[i]!.name)).toEqual(['done', 'name'])
    expect(r.all[1]!.label).toBe('Name')
    expect(r.all[3]).toMatchObject({ type: 'checkbox', pinned: true, help: 'Finished?' })
    const ordered = resolveColumns(cols, {}, ['name', 'id'])
    expect(ordered.visible.map((i) => ordered.all[i]!.name)).toEqual(['name', 'id'])
  })

  it('builders set the type; types follow the data otherwise', () => {
    expect(columnConfig.number({ format: 'dollar' })).toEqual({ format: 'dollar', type: 'number' })
    expect(columnConfig.progress({ max: 100 }).type).toBe('progress')
    const r = resolveColumns(cols, { id: columnConfig.progress() })
    expect(r.all.map((c) => c.type)).toEqual(['progress', 'text', 'text', 'checkbox'])
    expect(r.all[0]).toMatchObject({ min: 0, max: 1, disabled: true })
  })

  it('names the bad column', () => {
    expect(() => resolveColumns(cols, { nope: 'x' })).toThrow(/"nope" are not in the data/)
    expect(() => resolveColumns(cols, {}, ['id', 'gone'])).toThrow(/"gone"/)
    expect(() => resolveColumns(cols, { name: columnConfig.selectbox() })).toThrow(/needs options/)
  })

  it('st.dataframe sends only the shown columns, configured', async () => {
    const at = await run((st) => {
      st.dataframe([{ id: 1, price: 9.5, url: 'https://a.example', note: 'x' }], {
        columnConfig: { price: columnConfig.number({ label: 'Price', format: 'dollar', width: 'small' }), note: null, url: columnConfig.link({ displayText: 'Open' }) },
        columnOrder: ['url', 'price', 'note'],
        useContainerWidth: true,
      })
    })
    const p = at.dataframe[0]!.props
    expect(p.columns.map((c) => c.name)).toEqual(['url', 'price'])
    expect(p.columns[1]).toMatchObject({ label: 'Price', format: 'dollar', width: 'small', type: 'number' })
    expect(p.rows).toEqual([['https://a.example', 9.5]])
    expect(p.useContainerWidth).toBe(true)
    expect(p.selectionMode).toBeNull()
  })
})

describe('row selection', () => {
  const data = Array.from({ length: 60 }, (_v, i) => ({ id: i, score: (i * 37) % 60 }))

  it('returns the selected indexes and rows; indexes survive sort and paging', async () => {
    const seen: unknown[] = []
    let selectedInCallback: number[] = []
    const at = await run((st) => {
      seen.push(st.dataframe(data, { selectionMode: 'multi-row', key: 'scores', onSelect: (s) => void (selectedInCallback = s.selection.rows) }))
    })
    const df = at.dataframe[0]!
    expect(seen.at(-1)).toEqual({ selection: { rows: [], ids: [], columns: [], cells: [] }, rows: [], dropped: [] })
    await at.send({ v: 1, type: 'dataframe_page', id: df.id, page: 1, sort: { column: 'score', direction: 'desc' } })
    const page = lastRows(at.messages)
    expect(page.rowIds).toHaveLength(25)
    const picked = [page.rowIds[0] as number, page.rowIds[3] as number]
    expect(page.rows[0]).toEqual([data[picked[0]!]!.id, data[picked[0]!]!.score])
    await at.send({ v: 1, type: 'widget', id: df.id, value: { rows: [picked[1], picked[0]] } })
    const sorted = [...picked].sort((a, b) => a - b)
    expect(seen.at(-1)).toEqual({ selection: { rows: sorted, ids: sorted, columns: [], cells: [] }, rows: sorted.map((i) => data[i]), dropped: [] })
    expect(selectedInCallback).toEqual(sorted)
    expect(at.dataframe[0]!.props).toMatchObject({ selection: sorted, page: 1, sort: { column: 'score', direction: 'desc' } })
    expect(at.sessionState.scores).toEqual(sorted)
  })

  it('a kept selection drops indexes the data no longer has', async () => {
    let rows = data
    let last: unknown
    const at = await run((st) => {
      last = st.dataframe(rows, { selectionMode: 'multi-row', key: 'keep' })
    })
    await at.send({ v: 1, type: 'widget', id: at.dataframe[0]!.id, value: { rows: [2, 50] } })
    rows = data.slice(0, 10)
    await at.run()
    expect(last).toMatchObject({ selection: { rows: expect.not.arrayContaining([50]) } })
    expect((last as { rows: unknown[] }).rows.every((r) => r !== undefined)).toBe(true)
  })

  it('rejects a selection it cannot hold without a rerun', async () => {
    let runs = 0
    const at = await run((st) => {
      runs++
      st.dataframe(data, { selectionMode: 'single-row' })
    })
    const id = at.dataframe[0]!.id
    for (const value of [{ rows: [1, 2] }, { rows: [60] }, { rows: ['1'] }, [1], { rows: [1], extra: true }]) {
      await at.send({ v: 1, type: 'widget', id, value })
    }
    expect(runs).toBe(1)
    await at.send({ v: 1, type: 'widget', id, value: { rows: [59] } })
    expect(runs).toBe(2)
    expect(at.dataframe[0]!.props.selection).toEqual([59])
  })
})

describe('data editor', () => {
  const data = [
    { item: 'Pen', qty: 2, done: false, kind: 'office', due: '2026-01-05' },
    { item: 'Ink', qty: 5, done: true, kind: 'office', due: '2026-02-01' },
    { item: 'Mug', qty: 1, done: false, kind: 'kitchen', due: '2026-03-09' },
  ]
  const config = { kind: columnConfig.selectbox({ options: ['office', 'kitchen'] }), qty: columnConfig.number({ min: 0, default: 1 }) }

  it('applies an editing state: edits, deletions, added rows with defaults', () => {
    const { all } = resolveColumns([{ name: 'a', kind: 'string' }, { name: 'n', kind: 'number' }], { n: columnConfig.number({ default: 7 }) }, undefined, false)
    const raw = [['x', 1], ['y', 2], ['z', 3]]
    const state: EditingState = { editedRows: { 0: { a: 'X' }, 1: { n: 20 } }, addedRows: [{ a: 'new' }], deletedRows: [1] }
    const out = applyEdits(['a', 'n'], raw, raw as Cell[][], all, state, [0, 1, 2])
    expect(out.records).toEqual([{ a: 'X', n: 1 }, { a: 'z', n: 3 }, { a: 'new', n: 7 }])
    expect(out.ids).toEqual([0, 2, 3])
    expect(raw[0]).toEqual(['x', 1])
  })

  it('client helpers build the delta the server accepts', () => {
    const { all } = resolveColumns([{ name: 'a', kind: 'string' }, { name: 'n', kind: 'number' }], {}, undefined, false)
    let s: EditingState = EMPTY_EDITS
    s = editCell(s, 3, 1, 'n', parseInput(all[1]!, '42'))
    s = addRow(s, all)
    s = editCell(s, 3, 3, 'a', 'added')
    s = deleteRow(s, 3, 0)
    s = editCell(s, 3, 2, 'a', parseInput(all[0]!, ''))
    expect(s).toEqual({ editedRows: { 1: { n: 42 }, 2: { a: null } }, addedRows: [{ a: 'added' }], deletedRows: [0] })
    expect(parseEdits(JSON.parse(JSON.stringify(s)), editorShape(all, 'dynamic'), { identity: rowsByIndex(3), version: null })).toEqual(s)
    expect(deleteRow(s, 3, 3).addedRows).toEqual([])
  })

  it('returns the edited rows on the rerun and keeps the edits in widget state', async () => {
    const returned: unknown[] = []
    const at = await run((st) => {
      returned.push(st.dataEditor(data, { key: 'todo', numRows: 'dynamic', columnConfig: config, disabled: ['item'] }))
      st.button('again')
    })
    const ed = at.get('dataEditor')[0]!
    expect(ed.props).toMatchObject({ baseRows: 3, numRows: 'dynamic', value: EMPTY_EDITS })
    expect(ed.props.columns.find((c) => c.name === 'item')!.disabled).toBe(true)
    expect(returned.at(-1)).toEqual(data)
    const state = { editedRows: { 0: { qty: 9, done: true }, 2: { kind: 'office' } }, addedRows: [{ item: null, kind: 'kitchen' }], deletedRows: [1] }
    await at.send({ v: 1, type: 'widget', id: ed.id, value: state })
    const expected = [
      { ...data[0], qty: 9, done: true },
      { ...data[2], kind: 'office' },
      { item: null, qty: 1, done: null, kind: 'kitchen', due: null },
    ]
    expect(returned.at(-1)).toEqual(expected)
    expect(at.get('dataEditor')[0]!.props.rows).toEqual(expected.map((r) => Object.values(r)))
    expect(at.get('dataEditor')[0]!.props.rowIds).toEqual([0, 2, 3])
    expect(at.sessionState.todo).toEqual(state)
    await at.button('again').click().run()
    expect(returned.at(-1)).toEqual(expected)
  })

  it('rejects edits of the wrong type, on read-only columns, or adding to a fixed editor', async () => {
    let runs = 0
    const at = await run((st) => {
      runs++
      st.dataEditor(data, { columnConfig: config, disabled: ['item'] })
    })
    const id = at.get('dataEditor')[0]!.id
    const bad: unknown[] = [
      { editedRows: { 0: { qty: 'many' } }, addedRows: [], deletedRows: [] },
      { editedRows: { 0: { qty: -1 } }, addedRows: [], deletedRows: [] },
      { editedRows: { 0: { done: 'yes' } }, addedRows: [], deletedRows: [] },
      { editedRows: { 0: { kind: 'garage' } }, addedRows: [], deletedRows: [] },
      { editedRows: { 0: { due: '07/03/2026' } }, addedRows: [], deletedRows: [] },
      { editedRows: { 0: { item: 'Pencil' } }, addedRows: [], deletedRows: [] },
      { editedRows: { 0: { nope: 1 } }, addedRows: [], deletedRows: [] },
      { editedRows: { 9: { qty: 1 } }, addedRows: [], deletedRows: [] },
      { editedRows: {}, addedRows: [{ qty: 1 }], deletedRows: [] },
      { editedRows: {}, addedRows: [], deletedRows: [0] },
      { editedRows: { 0: { qty: { $gt: 1 } } }, addedRows: [], deletedRows: [] },
      { editedRows: {}, addedRows: [] },
      'everything',
    ]
    for (const value of bad) await at.send({ v: 1, type: 'widget', id, value })
    expect(runs).toBe(1)
    expect(() => parseEdits(bad[0], editorShape(resolveColumns([{ name: 'qty', kind: 'number' }], {}, undefined, false).all, 'fixed'))).toThrow(/row 0, column "qty": expected a number/)
    await at.send({ v: 1, type: 'widget', id, value: { editedRows: { 1: { due: '2026-12-24', qty: 0 } }, addedRows: [], deletedRows: [] } })
    expect(runs).toBe(2)
  })

  it('the protocol boundary takes an editing state as a widget value', () => {
    const text = JSON.stringify({ v: 1, type: 'widget', id: '$$w-x', value: { editedRows: { 0: { a: 1 } }, addedRows: [], deletedRows: [] } })
    expect(parseClientMessage(text)).toMatchObject({ type: 'widget' })
  })
})

describe('100,000 rows', () => {
  const big = Array.from({ length: 100_000 }, (_v, i) => ({ id: i, city: `city-${(i * 7919) % 1000}`, amount: (i * 104729) % 100_000 / 100 }))

  it('render, page, sort, select and edit move one page of rows', async () => {
    const at = await run((st) => {
      st.dataframe(big, { selectionMode: 'multi-row', key: 'big', columnConfig: { amount: columnConfig.number({ format: 'dollar' }) } })
      st.dataEditor(big, { key: 'bigEdit' })
    })
    const size = (m: unknown) => Buffer.byteLength(JSON.stringify(m))
    const render = at.messages.findLast((m) => m.type === 'render')!
    expect(size(render)).toBeLessThan(16_000)
    const id = at.dataframe[0]!.id
    await at.send({ v: 1, type: 'dataframe_page', id, page: 1999, sort: null })
    expect(lastRows(at.messages).rows).toHaveLength(25)
    expect(size(at.messages.at(-1))).toBeLessThan(4_000)
    const t0 = performance.now()
    await at.send({ v: 1, type: 'dataframe_page', id, page: 0, sort: { column: 'amount', direction: 'desc' } })
    const sortedMs = performance.now() - t0
    expect(lastRows(at.messages).rows[0]![2]).toBe(999.99)
    const t1 = performance.now()
    await at.send({ v: 1, type: 'dataframe_page', id, page: 1, sort: { column: 'amount', direction: 'desc' } })
    // The sort order is kept: the next page only slices.
    expect(performance.now() - t1).toBeLessThan(Math.max(20, sortedMs))
    await at.send({ v: 1, type: 'widget', id, value: { rows: [99_999, 5] } })
    const afterSelect = at.messages.findLast((m) => m.type === 'render')!
    expect(size(afterSelect)).toBeLessThan(16_000)
    const edId = at.get('dataEditor')[0]!.id
    await at.send({ v: 1, type: 'widget', id: edId, value: { editedRows: { 99_999: { city: 'edited' } }, addedRows: [], deletedRows: [] } })
    expect(size(at.messages.findLast((m) => m.type === 'render'))).toBeLessThan(16_000)
    await at.send({ v: 1, type: 'dataframe_page', id: edId, page: 3999, sort: null })
    expect(lastRows(at.messages).rows.at(-1)![1]).toBe('edited')
    expect(at.dataframe[0]!.props).toMatchObject({ selection: [5, 99_999], sort: { column: 'amount', direction: 'desc' }, page: 1 })
  }, 30_000)
})

describe('types on the wire', () => {
  it('DataColumn is what the client formats with', () => {
    const c: DataColumn = resolveColumns([{ name: 'p', kind: 'number' }], { p: columnConfig.number({ format: 'percent' }) }).all[0]!
    expect(formatCell(0.5, c)).toBe('50.00%')
  })
})
