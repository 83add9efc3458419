import { describe, expect, it } from 'vitest'
import type { UiTestHandle } from '../../../src/testing/app-test.js'
import type { ClientMessage, ServerMessage, UiNode } from '../../../src/ui/wire/protocol.js'
import { RenderEncoder } from '../../../src/ui/server/render-diff.js'
import { startCountedPage, widgetMessage } from '../../helpers/page-runs.js'

/**
 * What the browser shows must be what the server holds: whenever the server's value departs from
 * what a widget's control may show, the widget's revision (`rev` in its props) goes up, and every
 * render says how many client messages it reflects (`seen`). The browser side is covered in
 * chromium (test/e2e/widget-agreement*.test.ts); these check what the session sends.
 */

type Render = Extract<ServerMessage, { type: 'render' }>

const renders = (at: UiTestHandle): Render[] => at.messages.filter((m): m is Render => m.type === 'render' && !m.partial)
const lastRender = (at: UiTestHandle): Render => renders(at).at(-1)!
const rev = (at: UiTestHandle, type: Parameters<UiTestHandle['widget']>[0], key: string): number | undefined => (at.widget(type, key).props as { rev?: number }).rev

/** Delivers messages as one socket read would: all handled before the run they cause starts. */
async function together(at: UiTestHandle, messages: ClientMessage[]): Promise<void> {
  await Promise.all(messages.map((m) => at.send(m)))
}

function find(nodes: UiNode[], id: string): UiNode | undefined {
  for (const n of nodes) {
    if (n.id === id) return n
    const inner = find(n.children ?? [], id)
    if (inner) return inner
  }
  return undefined
}

describe('a widget the server overrides carries a new revision', () => {
  it('a value and a reset in one run: the render repeats the last value, but the node changes, so it is sent', async () => {
    const at = await startCountedPage((st) => {
      if (st.button('Reset', { key: 'reset' })) delete st.sessionState.name
      st.textInput('Name', { key: 'name' })
    })
    const encoder = new RenderEncoder()
    encoder.encode(lastRender(at))
    const id = at.textInput('name').id
    expect(rev(at, 'textInput', 'name')).toBeUndefined()
    await together(at, [widgetMessage(id, 'typed'), widgetMessage(at.button('reset').id, true, true)])
    expect(at.textInput('name').props.value).toBe('')
    expect(rev(at, 'textInput', 'name')).toBe(1)
    const wire = JSON.parse(encoder.encode(lastRender(at))) as { main: { id: string; same?: true; props?: { value: string; rev: number } }[] }
    expect(wire.main.find((n) => n.id === id)).toMatchObject({ props: { value: '', rev: 1 } })
  })

  it('a value the page sets, even the one it held, and a key deleted in a callback', async () => {
    const at = await startCountedPage((st) => {
      if (st.button('Set', { key: 'set' })) st.sessionState.plan = 'Team'
      st.button('Clear', { key: 'clear', onClick: () => void delete st.sessionState.plan })
      st.radio('Plan', ['Free', 'Team'], { key: 'plan' })
      st.checkbox('Other', { key: 'other' })
    })
    await at.button('set').click().run()
    expect(rev(at, 'radio', 'plan')).toBe(1)
    // Already Team: the browser may show another (unsubmitted) choice, so the page's write still counts.
    await at.button('set').click().run()
    expect(rev(at, 'radio', 'plan')).toBe(2)
    // The callback holds the `st` of an earlier run; its delete is a reset all the same.
    await at.button('clear').click().run()
    expect([at.radio('plan').value, rev(at, 'radio', 'plan')]).toEqual(['Free', 3])
    await at.checkbox('other').check().run()
    expect(rev(at, 'radio', 'plan')).toBe(3)
    expect(rev(at, 'checkbox', 'other')).toBeUndefined()
  })

  it('a value the widget cannot hold, a reset drawn after the widget, and a cleared form', async () => {
    const at = await startCountedPage((st) => {
      if (st.button('Bad', { key: 'bad' })) st.sessionState.qty = 999
      st.numberInput('Qty', { key: 'qty', min: 0, max: 10, value: 1 })
      const f = st.form('f', { clearOnSubmit: true })
      f.textInput('Email', { key: 'email' })
      f.formSubmitButton('Send', { key: 'send' })
      if (st.button('Reset after', { key: 'after' })) st.resetWidget('qty')
    })
    await at.button('bad').click().run()
    expect([at.numberInput('qty').props.value, rev(at, 'numberInput', 'qty')]).toEqual([1, 1])
    await at.numberInput('qty').setValue(4).run()
    await at.button('after').click().run()
    expect([at.numberInput('qty').props.value, rev(at, 'numberInput', 'qty')]).toEqual([1, 2])
    const form = at.get('form')[0]!.props.formId
    await at.send({ v: 1, type: 'form_submit', formId: form, values: { [at.textInput('email').id]: 'a@b.c', [at.formSubmitButton('send').id]: true } })
    expect([at.textInput('email').props.value, rev(at, 'textInput', 'email')]).toEqual(['', 1])
  })

  it('edits of rows that are gone', async () => {
    let rows = [{ id: 'a', qty: 1 }, { id: 'b', qty: 2 }]
    const at = await startCountedPage((st) => {
      st.dataEditor(rows, { key: 'items', rowKey: 'id' })
      st.button('Refresh', { key: 'refresh' })
    })
    await at.send(widgetMessage(at.get('dataEditor')[0]!.id, { editedRows: { b: { qty: 5 } }, addedRows: [], deletedRows: [] }))
    expect((at.get('dataEditor')[0]!.props as { rev?: number }).rev).toBeUndefined()
    rows = [{ id: 'a', qty: 1 }]
    await at.button('refresh').click().run()
    expect(at.get('dataEditor')[0]!.props).toMatchObject({ value: { editedRows: {} }, rev: 1 })
  })

  it('a refused value: the last render goes out again with the new revision, and the page does not run', async () => {
    const at = await startCountedPage((st) => {
      st.textInput('Code', { key: 'code', maxChars: 3 })
      st.text('end')
    })
    const before = at.runs()
    const sent = renders(at).length
    await at.send(widgetMessage(at.textInput('code').id, 'too long'))
    expect(at.runs()).toBe(before)
    expect(renders(at)).toHaveLength(sent + 1)
    expect([at.textInput('code').props.value, rev(at, 'textInput', 'code')]).toEqual(['', 1])
    // A message for a widget the page never drew is dropped without an answer.
    await at.send(widgetMessage('$$w-nothing', 'x'))
    expect(renders(at)).toHaveLength(sent + 1)
  })

  it('a widget that is gone and drawn again starts over', async () => {
    const at = await startCountedPage((st) => {
      if (st.checkbox('Show', { key: 'show', value: true })) st.textInput('Code', { key: 'code', maxChars: 3 })
    })
    await at.send(widgetMessage(at.textInput('code').id, 'too long'))
    expect(rev(at, 'textInput', 'code')).toBe(1)
    await at.checkbox('show').uncheck().run()
    await at.checkbox('show').check().run()
    expect(rev(at, 'textInput', 'code')).toBeUndefined()
  })
})

describe('renders say how much of the browser\'s input they reflect', () => {
  it('counts the messages handled; input queued behind a click is not reflected yet', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const at = await startCountedPage(async (st) => {
      const go = st.button('Go', { key: 'go' })
      const name = st.textInput('Name', { key: 'name' })
      if (go) await gate
      st.text(`name ${name}`)
    })
    const sent = renders(at).length
    await at.send(widgetMessage(at.textInput('name').id, 'a'))
    expect(lastRender(at).seen).toBe(1)
    const click = at.send(widgetMessage(at.button('go').id, true, true))
    await new Promise((r) => setImmediate(r))
    const later = at.send(widgetMessage(at.textInput('name').id, 'b'))
    release()
    await Promise.all([click, later])
    const [afterClick, afterLater] = renders(at).slice(sent + 1)
    expect([find(afterClick!.main, at.get('text')[0]!.id)?.props.text, afterClick!.seen]).toEqual(['name a', 2])
    expect([find(afterLater!.main, at.get('text')[0]!.id)?.props.text, afterLater!.seen]).toEqual(['name b', 3])
    // The page stayed running between the two: no run_state false before the later input's run.
    const states = at.messages.filter((m) => m.type === 'run_state').slice(-3).map((m) => (m as { running: boolean }).running)
    expect(states).toEqual([true, true, false])
  })

  it('a run reflects what it started from: a table page asked for during it is not counted, a value refused during it is', async () => {
    let release!: () => void
    let gate = new Promise<void>((r) => (release = r))
    const at = await startCountedPage(async (st) => {
      const go = st.button('Go', { key: 'go' })
      st.textInput('Code', { key: 'code', maxChars: 3 })
      st.dataframe([{ a: 1 }, { a: 2 }], { key: 'table' })
      if (go) await gate
    })
    const table = at.get('dataframe')[0]!.id
    // A form draft the browser made after the click is overridden only by a render that saw later input.
    const click = at.send({ v: 1, type: 'widget', id: at.button('go').id, value: true, trigger: true, n: 1 })
    await new Promise((r) => setImmediate(r))
    const sort = at.send({ v: 1, type: 'dataframe_page', id: table, page: 0, sort: { column: 'a', direction: 'desc' }, n: 2 })
    await new Promise((r) => setImmediate(r))
    release()
    await Promise.all([click, sort])
    expect(lastRender(at).seen).toBe(1)
    gate = new Promise<void>((r) => (release = r))
    const again = at.send({ v: 1, type: 'widget', id: at.button('go').id, value: true, trigger: true, n: 3 })
    await new Promise((r) => setImmediate(r))
    const refused = at.send({ v: 1, type: 'widget', id: at.textInput('code').id, value: 'too long', n: 4 })
    await new Promise((r) => setImmediate(r))
    release()
    await Promise.all([again, refused])
    // The refusal is stamped into this render: the browser must take the server's value back.
    expect([lastRender(at).seen, rev(at, 'textInput', 'code')]).toEqual([4, 1])
  })

  it('quotes the number the browser gave the last message, so a message the server could not take leaves no gap', async () => {
    const at = await startCountedPage((st) => {
      st.textInput('Name', { key: 'name' })
    })
    // Messages 1 and 2 never reached the session (refused by the socket's schema, say).
    await at.send({ v: 1, type: 'widget', id: at.textInput('name').id, value: 'a', n: 3 })
    expect(lastRender(at).seen).toBe(3)
    // The test handle sends no numbers: its messages count on from the last one.
    await at.send(widgetMessage(at.textInput('name').id, 'b'))
    expect(lastRender(at).seen).toBe(4)
  })
})
