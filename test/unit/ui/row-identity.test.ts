import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { createUiTestHandle, type UiTestHandle } from '../../../src/testing/app-test.js'
import type { DataframeSelection, DroppedEdits, EditedRows, St } from '../../../src/ui/index.js'
import { columnConfig } from '../../../src/ui/column-config.js'

/**
 * Row identity of `st.dataframe` selections and `st.dataEditor` edits (issue #22.1): with a
 * `rowKey` they follow their rows through filtering, sorting and changing data and are dropped
 * (and reported) when the row is gone; without one they clear when the rows change. Never does a
 * selection or an edit move to the row that now sits at its old index.
 */

interface Order { id: number; customer: string; status: string; note: string }

const seed = (): Order[] => [
  { id: 10001, customer: 'Acme', status: 'open', note: '' },
  { id: 10002, customer: 'Globex', status: 'open', note: '' },
  { id: 10003, customer: 'Initech', status: 'open', note: '' },
  { id: 10004, customer: 'Umbrella', status: 'open', note: '' },
  { id: 10005, customer: 'Hooli', status: 'shipped', note: '' },
]

async function start(page: (st: St) => void | Promise<void>): Promise<UiTestHandle> {
  const app = new Svc({ title: 'T', log_level: 'fatal' })
  app.page('/', page)
  return createUiTestHandle(app).run()
}

const widgetMessage = (id: string, value: unknown) => ({ v: 1 as const, type: 'widget' as const, id, value })

describe('dataframe selection', () => {
  it('with a rowKey the selection follows its row through a filter change, then is dropped when the row goes', async () => {
    let db = seed()
    let picked!: DataframeSelection<Order>
    const at = await start((st) => {
      const hide = st.multiselect('Hide', db.map((o) => o.id), { key: 'hide' })
      picked = st.dataframe(db.filter((o) => !hide.includes(o.id)), { key: 'orders', selectionMode: 'single-row', rowKey: 'id' })
      st.text(`detail: ${picked.rows.map((r) => r.id).join(',') || 'none'}`)
    })
    const df = at.dataframe[0]!
    expect(df.props.rowIds).toEqual(['10001', '10002', '10003', '10004', '10005'])
    expect(df.props.rowsVersion).toBeNull()
    await at.send(widgetMessage(df.id, { rows: ['10002'] }))
    expect(picked).toEqual({ selection: { rows: [1], ids: ['10002'], columns: [], cells: [] }, rows: [db[1]], dropped: [] })
    // 10001 leaves the list: 10002 is now at index 0, and still the selected order.
    await at.multiselect('hide').setValue([10001]).run()
    expect(picked).toEqual({ selection: { rows: [0], ids: ['10002'], columns: [], cells: [] }, rows: [db[1]], dropped: [] })
    expect(at.text.at(-1)!.value).toBe('detail: 10002')
    expect(at.sessionState.orders).toEqual(['10002'])
    // 10002 leaves too: nothing is selected (never 10003), and the run says what went.
    await at.multiselect('hide').setValue([10001, 10002]).run()
    expect(picked).toEqual({ selection: { rows: [], ids: [], columns: [], cells: [] }, rows: [], dropped: ['10002'] })
    expect(at.text.at(-1)!.value).toBe('detail: none')
    expect(at.dataframe[0]!.props.selection).toEqual([])
    // It comes back: the selection was dropped for good.
    db = seed()
    await at.multiselect('hide').setValue([]).run()
    expect(picked.rows).toEqual([])
    expect(picked.dropped).toEqual([])
  })

  it('without a rowKey a change of the rows clears the selection instead of moving it', async () => {
    let rows = seed()
    let picked!: DataframeSelection<Order>
    const at = await start((st) => {
      picked = st.dataframe(rows, { key: 'orders', selectionMode: 'single-row' })
    })
    const id = at.dataframe[0]!.id
    await at.send(widgetMessage(id, { rows: [1], rowsVersion: at.dataframe[0]!.props.rowsVersion }))
    expect(picked.rows.map((r) => r.id)).toEqual([10002])
    await at.run()
    expect(picked.rows.map((r) => r.id)).toEqual([10002])
    rows = rows.slice(1)
    await at.run()
    // Index 1 is now order 10003: the old selection is gone, not moved there.
    expect(picked).toEqual({ selection: { rows: [], ids: [], columns: [], cells: [] }, rows: [], dropped: [1] })
  })

  it('a browser selection made for rows that changed meanwhile is refused; unknown keys select nothing', async () => {
    let rows = seed()
    let runs = 0
    let picked!: DataframeSelection<Order>
    const at = await start((st) => {
      runs++
      picked = st.dataframe(rows, { selectionMode: 'multi-row' })
      st.dataframe(rows, { key: 'keyed', selectionMode: 'multi-row', rowKey: (r) => `order-${String(r.id)}` })
    })
    const [plain, keyed] = at.dataframe
    const before = plain!.props.rowsVersion
    expect(before).toMatch(/^[\w-]+\.\d+$/)
    rows = rows.slice(1)
    await at.run()
    const after = at.dataframe[0]!.props.rowsVersion
    expect(after).not.toBe(before)
    const n = runs
    await at.send(widgetMessage(plain!.id, { rows: [0], rowsVersion: before }))
    await at.send(widgetMessage(plain!.id, { rows: [0, 0], rowsVersion: after }))
    await at.send(widgetMessage(keyed!.id, { rows: ['order-10002', 'order-10002'] }))
    await at.send(widgetMessage(keyed!.id, { rows: [3] }))
    expect(runs).toBe(n)
    await at.send(widgetMessage(plain!.id, { rows: [0], rowsVersion: after }))
    expect(picked.rows.map((r) => r.id)).toEqual([10002])
    await at.send(widgetMessage(keyed!.id, { rows: ['order-10001', 'order-10003'] }))
    expect(at.dataframe[1]!.props.selection).toEqual(['order-10003'])
  })

  it('sorting and paging do not change what is selected', async () => {
    const rows = Array.from({ length: 60 }, (_v, i) => ({ sku: `S${1000 + i}`, score: (i * 37) % 60 }))
    let picked!: DataframeSelection<(typeof rows)[number]>
    const at = await start((st) => {
      picked = st.dataframe(rows, { key: 'skus', selectionMode: 'multi-row', rowKey: 'sku' })
    })
    const id = at.dataframe[0]!.id
    await at.send({ v: 1, type: 'dataframe_page', id, page: 1, sort: { column: 'score', direction: 'desc' } })
    const m = at.messages.at(-1)!
    if (m.type !== 'dataframe_rows') throw new Error('expected rows')
    await at.send(widgetMessage(id, { rows: [m.rowIds[0], m.rowIds[2]] }))
    const chosen = [m.rowIds[0], m.rowIds[2]].map(String).sort()
    expect([...picked.selection.ids].sort()).toEqual(chosen)
    await at.send({ v: 1, type: 'dataframe_page', id, page: 0, sort: null })
    await at.run()
    expect([...picked.selection.ids].sort()).toEqual(chosen)
    expect(picked.rows.map((r) => r.sku).sort()).toEqual(chosen)
  })

  it('names a missing, repeated or unusable row key', async () => {
    const message = async (page: (st: St) => void) => (await start(page)).exception[0]?.props.message
    // @ts-expect-error a rowKey that names no column of the rows is a type error too
    expect(await message((st) => void st.dataframe(seed(), { selectionMode: 'single-row', rowKey: 'nope' }))).toMatch(/rowKey "nope" is not a column .*id, customer/)
    expect(await message((st) => void st.dataframe([{ k: 1 }, { k: 1 }], { selectionMode: 'single-row', rowKey: 'k' }))).toMatch(/rows 0 and 1 share the row key "1"/)
    expect(await message((st) => void st.dataEditor([{ k: null }], { rowKey: 'k' }))).toMatch(/row 0 has no usable row key \(got null\)/)
  })
})

describe('dataEditor edits', () => {
  /** The orders admin of issue #22: open orders, edit the status, save, the saved rows leave the filter. */
  function ordersAdmin(db: Order[], options: { rowKey?: 'id' } = {}) {
    const seen: { edited: EditedRows<Order>; label: string | null }[] = []
    const page = (st: St) => {
      const open = db.filter((o) => o.status === 'open')
      const edited = st.dataEditor<Order>(open, {
        key: 'orders', ...options, disabled: ['id', 'customer'],
        columnConfig: { status: columnConfig.selectbox({ options: ['open', 'shipped', 'cancelled'] }) },
      })
      const changes = Object.keys((st.sessionState.orders as { editedRows: object }).editedRows).length
      const label = changes ? `Save ${changes} change(s)` : null
      seen.push({ edited, label })
      if (label && st.button(label, { key: 'save' })) {
        for (const row of edited) Object.assign(db.find((o) => o.id === row.id)!, row)
        st.rerun()
      }
    }
    return { page, seen }
  }

  it('with a rowKey saved edits whose rows left the filter are dropped, never moved to other orders', async () => {
    const db = seed()
    const { page, seen } = ordersAdmin(db, { rowKey: 'id' })
    const at = await start(page)
    const id = at.dataEditor[0]!.id
    await at.send(widgetMessage(id, { editedRows: { 10001: { status: 'shipped' }, 10003: { status: 'cancelled' } }, addedRows: [], deletedRows: [] }))
    expect(seen.at(-1)!.label).toBe('Save 2 change(s)')
    expect(seen.at(-1)!.edited.map((o) => o.status)).toEqual(['shipped', 'open', 'cancelled', 'open'])
    await at.button('save').click().run()
    expect(db.map((o) => o.status)).toEqual(['shipped', 'open', 'cancelled', 'open', 'shipped'])
    const last = seen.at(-1)!
    expect(last.label).toBeNull()
    expect(last.edited.map((o) => o.id)).toEqual([10002, 10004])
    expect(last.edited.every((o) => o.status === 'open')).toBe(true)
    expect(last.edited.dropped).toEqual<DroppedEdits>({ editedRows: { 10001: { status: 'shipped' }, 10003: { status: 'cancelled' } }, deletedRows: [], addedRows: [] })
    expect(at.sessionState.orders).toEqual({ editedRows: {}, addedRows: [], deletedRows: [] })
    expect(at.get('button')).toHaveLength(0)
    // The next run has nothing more to say.
    await at.run()
    expect(seen.at(-1)!.edited.dropped.editedRows).toEqual({})
  })

  it('without a rowKey the edits are cleared when the rows change, not re-applied by position', async () => {
    const db = seed()
    const { page, seen } = ordersAdmin(db)
    const at = await start(page)
    const ed = at.dataEditor[0]!
    await at.send(widgetMessage(ed.id, { editedRows: { 0: { status: 'shipped' }, 2: { status: 'cancelled' } }, addedRows: [], deletedRows: [], rowsVersion: ed.props.rowsVersion }))
    expect(seen.at(-1)!.label).toBe('Save 2 change(s)')
    await at.button('save').click().run()
    expect(db.map((o) => o.status)).toEqual(['shipped', 'open', 'cancelled', 'open', 'shipped'])
    const last = seen.at(-1)!
    expect(last.label).toBeNull()
    expect(last.edited.map((o) => `${o.id}:${o.status}`)).toEqual(['10002:open', '10004:open'])
    expect(last.edited.dropped.editedRows).toEqual({ 0: { status: 'shipped' }, 2: { status: 'cancelled' } })
  })

  it('cells the data already holds are spent; a stale or out-of-range browser state is refused', async () => {
    const db = seed()
    let runs = 0
    let edited!: EditedRows<Order>
    const at = await start((st) => {
      runs++
      edited = st.dataEditor<Order>(db.slice(0, 3), { key: 'notes', rowKey: 'id' })
      st.dataEditor(db.slice(0, 3), { key: 'plain' })
    })
    const [keyed, plain] = at.dataEditor
    await at.send(widgetMessage(keyed!.id, { editedRows: { 10002: { note: 'call back', customer: 'Globex Corp' } }, addedRows: [], deletedRows: [] }))
    expect(edited[1]).toMatchObject({ note: 'call back', customer: 'Globex Corp' })
    db[1]!.note = 'call back'
    await at.run()
    expect(at.sessionState.notes).toEqual({ editedRows: { 10002: { customer: 'Globex Corp' } }, addedRows: [], deletedRows: [] })
    expect(edited.dropped).toEqual({ editedRows: {}, deletedRows: [], addedRows: [] })
    const version = plain!.props.rowsVersion
    const n = runs
    await at.send(widgetMessage(plain!.id, { editedRows: { 3: { note: 'x' } }, addedRows: [], deletedRows: [], rowsVersion: at.dataEditor[1]!.props.rowsVersion }))
    await at.send(widgetMessage(plain!.id, { editedRows: { 0: { note: 'x' } }, addedRows: [], deletedRows: [], rowsVersion: `${version}-old` }))
    await at.send(widgetMessage(plain!.id, { editedRows: { k: { note: 'x' } }, addedRows: [], deletedRows: [] }))
    expect(runs).toBe(n)
  })

  it('with a rowKey, deletions of rows that are gone are reported and added rows stay', async () => {
    let db = seed()
    let edited!: EditedRows<Order>
    const at = await start((st) => {
      edited = st.dataEditor<Order>(db, { key: 'o', rowKey: 'id', numRows: 'dynamic' })
    })
    await at.send(widgetMessage(at.dataEditor[0]!.id, { editedRows: {}, addedRows: [{ id: 1, customer: 'New' }], deletedRows: ['10004', '10005'] }))
    expect(edited.map((o) => o.id)).toEqual([10001, 10002, 10003, 1])
    db = db.filter((o) => o.id !== 10005)
    await at.run()
    expect(edited.map((o) => o.id)).toEqual([10001, 10002, 10003, 1])
    expect(edited.dropped).toEqual({ editedRows: {}, deletedRows: ['10005'], addedRows: [] })
    expect(at.sessionState.o).toEqual({ editedRows: {}, addedRows: [{ id: 1, customer: 'New' }], deletedRows: ['10004'] })
    expect(JSON.stringify(edited)).not.toContain('dropped')
  })

  it('with a key function: an edit that changes the key it computes, or an added row under a key in use, is refused; a blank added row has no key yet', async () => {
    const db = seed().slice(0, 2)
    let edited!: EditedRows<Order>
    const at = await start((st) => {
      edited = st.dataEditor<Order>(db, { key: 'o', rowKey: (o) => `${String(o.customer)}/${String(o.id)}`, numRows: 'dynamic' })
    })
    const id = at.dataEditor[0]!.id
    const n = (at.dataEditor[0]!.props as { rev?: number }).rev ?? 0
    await at.send(widgetMessage(id, { editedRows: { 'Acme/10001': { customer: 'Globex', id: 10002 } }, addedRows: [], deletedRows: [] }))
    expect(at.dataEditor[0]!.props).toMatchObject({ rev: n + 1, refused: "row Acme/10001: this edit would change the row's key" })
    await at.send(widgetMessage(id, { editedRows: {}, addedRows: [{ customer: 'Acme', id: 10001 }], deletedRows: [] }))
    expect(at.dataEditor[0]!.props.refused).toMatch(/^added row 1: the key "Acme\/10001" is already used/)
    expect(edited.map((o) => o.id)).toEqual([10001, 10002])
    await at.send(widgetMessage(id, { editedRows: { 'Acme/10001': { note: 'ok' } }, addedRows: [{}, {}, { customer: 'Stark', id: 7 }], deletedRows: [] }))
    expect(edited.map((o) => `${String(o.customer)}/${String(o.id)}:${o.note}`)).toEqual(['Acme/10001:ok', 'Globex/10002:', 'null/null:null', 'null/null:null', 'Stark/7:null'])
    expect(at.dataEditor[0]!.props.refused).toBeUndefined()
  })

  it('an added row whose key the data now holds (saved, the editor not cleared) is dropped, so the page never gets one key twice', async () => {
    const db = seed().slice(0, 2)
    let edited!: EditedRows<Order>
    const at = await start((st) => {
      edited = st.dataEditor<Order>(db, { key: 'o', rowKey: 'id', numRows: 'dynamic' })
    })
    await at.send(widgetMessage(at.dataEditor[0]!.id, { editedRows: {}, addedRows: [{ id: 7, customer: 'Stark' }, { customer: 'No key yet' }], deletedRows: [] }))
    expect(edited.map((o) => o.id)).toEqual([10001, 10002, 7, null])
    db.push({ id: 7, customer: 'Stark', status: 'open', note: '' })
    await at.run()
    expect(edited.map((o) => o.id)).toEqual([10001, 10002, 7, null])
    expect(edited.dropped.addedRows).toEqual([{ id: 7, customer: 'Stark' }])
    expect(at.sessionState.o).toEqual({ editedRows: {}, addedRows: [{ customer: 'No key yet' }], deletedRows: [] })
  })
})
