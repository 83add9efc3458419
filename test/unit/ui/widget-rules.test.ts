import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { createUiTestHandle, type UiTestHandle } from '../../../src/testing/app-test.js'
import type { ClientMessage } from '../../../src/ui/wire/protocol.js'
import { getClient } from '../../../src/client/api-client.js'
import { MediaStore } from '../../../src/ui/media-store.js'
import { PageDirectory } from '../../../src/ui/page-directory.js'
import { PageSession } from '../../../src/ui/runtime/page-session.js'
import type { St } from '../../../src/ui/st-types.js'
import { startCountedPage, widgetMessage } from '../../helpers/page-runs.js'

/**
 * The server holds every widget to what it drew (issue #27.3): raw page-protocol messages a
 * browser could not send are refused without a rerun, and values read back from a snapshot are
 * checked the same way. Also the reset of a widget (issue #22.1).
 */

/** Sends each message and expects none of them to cause a run. */
async function refused(at: UiTestHandle & { runs: () => number }, messages: ClientMessage[]): Promise<void> {
  const before = at.runs()
  for (const m of messages) await at.send(m)
  expect(at.runs()).toBe(before)
}

describe('widgets drawn disabled never fire', () => {
  it('buttons, checkboxes, inputs and chat inputs drawn disabled take nothing', async () => {
    const seen: string[] = []
    const at = await startCountedPage((st) => {
      if (st.button('Delete everything', { key: 'del', disabled: true })) seen.push('deleted')
      if (st.checkbox('Admin', { key: 'admin', disabled: true })) seen.push('admin')
      st.textInput('Name', { key: 'name', disabled: true })
      st.slider('Level', { key: 'lvl', disabled: true })
      if (st.chatInput('Ask', { key: 'chat', disabled: true })) seen.push('chat')
      st.downloadButton('Get', 'x', { key: 'dl', disabled: true })
    })
    await refused(at, [
      widgetMessage(at.button('del').id, true, true),
      widgetMessage(at.checkbox('admin').id, true),
      widgetMessage(at.textInput('name').id, 'Mallory'),
      widgetMessage(at.slider('lvl').id, 50),
      widgetMessage(at.chatInput('chat').id, 'hi', true),
      widgetMessage(at.downloadButton('dl').id, true, true),
    ])
    expect(seen).toEqual([])
    expect(at.sessionState).toMatchObject({ admin: false, name: '', lvl: 0 })
  })

  it('a click is exactly true; a form widget changes only through its own form submit', async () => {
    const seen: string[] = []
    const at = await startCountedPage((st) => {
      if (st.button('Go', { key: 'go' })) seen.push('go')
      const f = st.form('f')
      const name = f.textInput('Name', { key: 'name' })
      if (f.formSubmitButton('Send', { key: 'send' })) seen.push(`sent ${name}`)
      const g = st.form('g')
      g.textInput('Other', { key: 'other' })
      g.formSubmitButton('Send g', { key: 'sendg' })
    })
    const name = at.textInput('name').id
    await refused(at, [
      widgetMessage(at.button('go').id, 'yes', true),
      widgetMessage(at.button('go').id, 1, true),
      widgetMessage(name, 'outside the form'),
      { v: 1, type: 'form_submit', formId: 'g', values: { [name]: 'wrong form' } },
      { v: 1, type: 'form_submit', formId: 'g', values: { [at.formSubmitButton('send').id]: true } },
    ])
    await at.send({ v: 1, type: 'form_submit', formId: 'f', values: { [name]: 'Ada', [at.formSubmitButton('send').id]: true } })
    expect(seen).toEqual(['sent Ada'])
  })
})

describe('every bound is checked on the server', () => {
  it('slider: type, min/max and step; a range in order', async () => {
    let got: unknown
    let range: unknown
    const at = await startCountedPage((st) => {
      got = st.slider('Qty', { key: 'q', min: 0, max: 1, step: 0.1, value: 0.5 })
      range = st.slider('Span', { key: 'r', min: 0, max: 100, step: 5, value: [12, 40] })
    })
    const q = at.slider('q').id
    const r = at.slider('r').id
    await refused(at, [widgetMessage(q, '0.3'), widgetMessage(q, 0.35), widgetMessage(q, 1.1), widgetMessage(q, -0.1), widgetMessage(r, [40, 20]), widgetMessage(r, [13, 40]), widgetMessage(r, [5])])
    await at.send(widgetMessage(q, 0.3))
    expect(got).toBe(0.3)
    // The default may sit between steps: the untouched thumb sends it back as it was.
    await at.send(widgetMessage(r, [12, 35]))
    expect(range).toEqual([12, 35])
  })

  it('radio and selectbox take "nothing chosen" only when they started with nothing', async () => {
    const at = await startCountedPage((st) => {
      st.radio('Plan', ['Free', 'Team'], { key: 'plan' })
      st.selectbox('Owner', ['ada', 'grace'], { key: 'owner', index: null })
    })
    await refused(at, [widgetMessage(at.radio('plan').id, null), widgetMessage(at.radio('plan').id, 2)])
    await at.send(widgetMessage(at.selectbox('owner').id, 1))
    await at.send(widgetMessage(at.selectbox('owner').id, null))
    expect(at.sessionState).toMatchObject({ plan: 'Free', owner: null })
  })

  it('multiselect and pills refuse an option chosen twice or too many options', async () => {
    let tags: unknown
    const at = await startCountedPage((st) => {
      tags = st.multiselect('Tags', ['a', 'b', 'c'], { key: 't', maxSelections: 2 })
      st.pills('P', ['x', 'y'], { key: 'p', selectionMode: 'multi' })
    })
    await refused(at, [widgetMessage(at.multiselect('t').id, [0, 0]), widgetMessage(at.multiselect('t').id, [0, 1, 2]), widgetMessage(at.widget('pills', 'p').id, [1, 1])])
    await at.send(widgetMessage(at.multiselect('t').id, [2, 0]))
    expect(tags).toEqual(['c', 'a'])
  })

  it('dateInput: a day of the calendar within min and max; 2026-02-30 is refused, not rolled into March', async () => {
    let day: unknown
    const at = await startCountedPage((st) => {
      day = st.dateInput('Due', { key: 'due', value: '2026-02-10', min: '2026-02-01', max: '2026-03-31' })
    })
    const id = at.dateInput('due').id
    await refused(at, [widgetMessage(id, '2026-02-30'), widgetMessage(id, '2026-01-31'), widgetMessage(id, '2026-04-01'), widgetMessage(id, '2026-02-15T00:00:00Z'), widgetMessage(id, 20260215), widgetMessage(id, null)])
    expect((day as Date).toISOString()).toBe('2026-02-10T00:00:00.000Z')
    await at.send(widgetMessage(id, '2026-02-28'))
    expect((day as Date).toISOString()).toBe('2026-02-28T00:00:00.000Z')
    await expect(at.dateInput('due').setValue('2026-02-29').run()).rejects.toThrow(/2026-02-29 is not a day of the calendar/)
  })

  it('a dateInput range returns an ordered pair of days within min and max', async () => {
    let trip: [Date, Date] | undefined
    const at = await startCountedPage((st) => {
      // Typed by the overload: a pair in, a pair out.
      trip = st.dateInput('Trip', { key: 'trip', value: ['2026-03-02', new Date('2026-03-06T15:00:00Z')], min: '2026-03-01', max: '2026-03-31' })
    })
    const day = (d: Date) => d.toISOString().slice(0, 10)
    expect(trip!.map(day)).toEqual(['2026-03-02', '2026-03-06'])
    expect(at.dateInput('trip').props.value).toEqual(['2026-03-02', '2026-03-06'])
    const id = at.dateInput('trip').id
    await refused(at, [widgetMessage(id, ['2026-03-09', '2026-03-04']), widgetMessage(id, ['2026-02-28', '2026-03-04']), widgetMessage(id, ['2026-03-04', '2026-03-32']), widgetMessage(id, '2026-03-04'), widgetMessage(id, ['2026-03-04'])])
    await at.send(widgetMessage(id, ['2026-03-04', '2026-03-09']))
    expect(trip!.map(day)).toEqual(['2026-03-04', '2026-03-09'])
    expect(at.sessionState.trip.map(day)).toEqual(['2026-03-04', '2026-03-09'])
    const message = async (page: (st: St) => void) => (await startCountedPage(page)).exception[0]?.props.message
    expect(await message((st) => void st.dateInput('Bad', { value: ['2026-03-09', '2026-03-01'] }))).toMatch(/dateInput\("Bad"\): value .* does not fit \(2026-03-09 is after 2026-03-01\)/)
    expect(await message((st) => void st.dateInput('Bad', { value: '2026-02-30' }))).toMatch(/2026-02-30 is not a day of the calendar/)
  })

  it('text inputs refuse more than maxChars; number inputs refuse values outside min/max', async () => {
    const at = await startCountedPage((st) => {
      st.textInput('Code', { key: 'code', maxChars: 4 })
      st.numberInput('Seats', { key: 'seats', min: 1, max: 9, value: 2 })
    })
    await refused(at, [widgetMessage(at.textInput('code').id, 'ABCDE'), widgetMessage(at.numberInput('seats').id, 10), widgetMessage(at.numberInput('seats').id, 0)])
    await at.send(widgetMessage(at.textInput('code').id, 'ABCD'))
    expect(at.sessionState.code).toBe('ABCD')
  })

  it('a single-file uploader takes one file', async () => {
    const at = await startCountedPage((st) => void st.fileUploader('CSV', { key: 'csv', accept: '.csv' }))
    const file = (name: string) => ({ name, type: 'text/csv', size: 1, dataBase64: Buffer.from('a').toString('base64') })
    await refused(at, [widgetMessage(at.fileUploader('csv').id, [file('a.csv'), file('b.csv')]), widgetMessage(at.fileUploader('csv').id, [file('a.exe')])])
  })
})

describe('the data editor takes only what the browser could edit', () => {
  const users = [
    { id: 1, name: 'Ada', role: 'user' },
    { id: 2, name: 'Grace', role: 'user' },
  ]

  it('hidden and disabled columns cannot be edited or set on added rows; a disabled editor takes nothing', async () => {
    let rows: unknown
    const at = await startCountedPage((st) => {
      rows = st.dataEditor(users, { key: 'u', rowKey: 'id', numRows: 'dynamic', disabled: ['id'], columnConfig: { role: null } })
      st.dataEditor(users, { key: 'ro', numRows: 'dynamic', disabled: true })
    })
    const [editor, locked] = at.dataEditor
    const state = (s: object) => ({ editedRows: {}, addedRows: [], deletedRows: [], ...s })
    await refused(at, [
      widgetMessage(editor!.id, state({ editedRows: { 1: { role: 'admin' } } })),
      widgetMessage(editor!.id, state({ editedRows: { 1: { id: 7 } } })),
      widgetMessage(editor!.id, state({ addedRows: [{ name: 'Eve', role: 'admin' }] })),
      widgetMessage(locked!.id, state({ editedRows: { 0: { name: 'Eve' } } })),
      widgetMessage(locked!.id, state({ deletedRows: [0] })),
      widgetMessage(locked!.id, state({ addedRows: [{}] })),
    ])
    expect(editor!.props.columns.map((c) => c.name)).toEqual(['id', 'name'])
    await at.send(widgetMessage(editor!.id, state({ editedRows: { 1: { name: 'Ada L.' } }, addedRows: [{ name: 'Eve' }] })))
    expect(rows).toEqual([{ id: 1, name: 'Ada L.', role: 'user' }, users[1], { id: null, name: 'Eve', role: null }])
  })
})

describe('snapshot values are checked before the page sees them', () => {
  it('a resumed table keeps a keyed selection; one by index cannot know its rows and starts afresh', async () => {
    const app = new Svc({ title: 'T', log_level: 'fatal' })
    const rows = [{ k: 'a' }, { k: 'b' }]
    const seen: unknown[] = []
    app.page('/', (st) => {
      seen.push([st.dataframe(rows, { selectionMode: 'multi-row', rowKey: 'k' }), st.dataframe(rows, { key: 'plain', selectionMode: 'multi-row' })])
    })
    const first = await createUiTestHandle(app).run()
    const [keyed, plain] = first.dataframe
    const session = new PageSession({ id: 's', directory: () => new PageDirectory(app.pages), client: getClient(app), media: new MediaStore(), logger: app.logger, overrides: {}, showErrorDetails: true })
    session.widgets.restore(keyed!.id, ['b'])
    session.widgets.restore(plain!.id, [1])
    session.state.plain = [1]
    session.attach(() => undefined, { headers: {}, cookies: {}, requestId: undefined })
    session.start('/', '')
    await new Promise((r) => setImmediate(r))
    await session.idle()
    expect(seen.at(-1)).toEqual([
      { selection: { rows: [1], ids: ['b'], columns: [], cells: [] }, rows: [{ k: 'b' }], dropped: [] },
      { selection: { rows: [], ids: [], columns: [], cells: [] }, rows: [], dropped: [1] },
    ])
    await session.close()
  })

  it('a restored value the widget cannot hold starts at the default; a good one is kept', async () => {
    const app = new Svc({ title: 'T', log_level: 'fatal' })
    const seen: unknown[] = []
    app.page('/', (st) => {
      seen.push([st.slider('Level', { min: 0, max: 10 }), st.selectbox('Pick', ['a', 'b']), st.checkbox('On'), st.slider('Keyed', { key: 'k', value: 5 })])
    })
    const first = await createUiTestHandle(app).run()
    const ids = [first.slider('Level').id, first.selectbox('Pick').id, first.checkbox('On').id]
    // A session resumed from a snapshot (what SessionManager does with one read from Redis).
    const session = new PageSession({ id: 's', directory: () => new PageDirectory(app.pages), client: getClient(app), media: new MediaStore(), logger: app.logger, overrides: {}, showErrorDetails: true })
    session.widgets.restore(ids[0]!, '7')
    session.widgets.restore(ids[1]!, 'b')
    session.widgets.restore(ids[2]!, true)
    session.state.k = 'many'
    session.attach(() => undefined, { headers: {}, cookies: {}, requestId: undefined })
    session.start('/', '')
    await new Promise((r) => setImmediate(r))
    await session.idle()
    expect(seen.at(-1)).toEqual([0, 'b', true, 5])
    expect(session.state.k).toBe(5)
    await session.close()
  })
})

describe('resetting a widget', () => {
  it('delete st.sessionState[key] resets a widget drawn later in the run, or already drawn', async () => {
    const values: unknown[] = []
    const at = await startCountedPage((st) => {
      if (st.button('Reset first', { key: 'r1' })) delete st.sessionState.name
      values.push(st.textInput('Name', { key: 'name' }))
      if (st.button('Reset after', { key: 'r2' })) delete st.sessionState.name
    })
    await at.textInput('name').setValue('Ada').run()
    expect(values.at(-1)).toBe('Ada')
    await at.button('r1').click().run()
    expect(values.at(-1)).toBe('')
    await at.textInput('name').setValue('Grace').run()
    await at.button('r2').click().run()
    // This run saw Grace; its render and the state already show the reset.
    expect(values.at(-1)).toBe('Grace')
    expect(at.textInput('name').props.value).toBe('')
    expect(at.textInput('name').value).toBe('')
    expect(at.sessionState.name).toBe('')
    await at.run()
    expect(values.at(-1)).toBe('')
    // From a test, deleting the key of the handle's state does the same.
    await at.textInput('name').setValue('Linus').run()
    delete at.sessionState.name
    await at.run()
    expect(values.at(-1)).toBe('')
  })

  it('st.resetWidget clears an editor after a save, and names an unknown key', async () => {
    let rows: unknown
    const at = await startCountedPage((st) => {
      rows = st.dataEditor([{ id: 1, n: 1 }], { key: 'ed', rowKey: 'id' })
      if (st.button('Discard', { key: 'discard' })) st.resetWidget('ed')
      if (st.button('Typo', { key: 'typo' })) st.resetWidget('eb')
    })
    await at.send(widgetMessage(at.dataEditor[0]!.id, { editedRows: { 1: { n: 5 } }, addedRows: [], deletedRows: [] }))
    expect(rows).toEqual([{ id: 1, n: 5 }])
    await at.button('discard').click().run()
    expect(at.dataEditor[0]!.props).toMatchObject({ value: { editedRows: {}, addedRows: [], deletedRows: [] }, rows: [[1, 1]] })
    await at.run()
    expect(rows).toEqual([{ id: 1, n: 1 }])
    await at.button('typo').click().run()
    expect(at.exception[0]!.props.message).toMatch(/st.resetWidget\("eb"\): no widget with that key .*keys: ed/)
  })
})
