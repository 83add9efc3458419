import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { createUiTestHandle } from '../../../src/testing/app-test.js'
import type { St } from '../../../src/ui/st-types.js'

async function run(page: (st: St) => void | Promise<void>) {
  const app = new Svc({ title: 'T', log_level: 'fatal' })
  app.page('/', page)
  return createUiTestHandle(app).run()
}

describe('text elements', () => {
  it('title header subheader caption markdown text code json divider', async () => {
    const at = await run((st) => {
      st.title('T', { anchor: 'top' })
      st.header('H', { divider: true })
      st.subheader('S')
      st.caption('small *c*')
      st.markdown('**bold** <script>x</script>')
      st.markdown('<b>ok</b>', { unsafeAllowHtml: true })
      st.text('  pre  ')
      st.code('let a = 1', { language: 'ts' })
      st.json({ d: new Date(0), n: 1n, nested: [1, { x: undefined }] })
      st.divider()
    })
    expect(at.title[0]!.props).toEqual({ text: 'T', anchor: 'top', help: null })
    expect(at.header[0]!.props.divider).toBe(true)
    expect(at.subheader[0]!.value).toBe('S')
    expect(at.caption[0]!.value).toBe('<p>small <em>c</em></p>')
    expect(at.markdown[0]!.value).toBe('<p><strong>bold</strong> &lt;script&gt;x&lt;/script&gt;</p>')
    expect(at.markdown[1]!.value).toBe('<p><b>ok</b></p>')
    expect(at.text[0]!.value).toBe('  pre  ')
    expect(at.code[0]!.props).toEqual({ code: 'let a = 1', language: 'ts', lineNumbers: false })
    expect(at.json[0]!.props.value).toEqual({ d: '1970-01-01T00:00:00.000Z', n: '1', nested: [1, { x: null }] })
    expect(at.divider).toHaveLength(1)
  })

  it('write picks the element by value type', async () => {
    const at = await run((st) => st.write('# hi', 42, [{ a: 1 }], { k: 'v' }, new Error('boom'), null))
    expect(at.main.map((e) => e.type)).toEqual(['markdown', 'markdown', 'dataframe', 'json', 'exception', 'code'])
  })
})

describe('status elements', () => {
  it('success info warning error exception', async () => {
    const at = await run((st) => {
      st.success('ok', { icon: '✅' })
      st.info('i')
      st.warning('w')
      st.error('e')
      st.exception(new RangeError('bad'))
    })
    expect(at.success[0]!.props).toEqual({ html: '<p>ok</p>', icon: '✅' })
    expect(at.info[0]!.value).toBe('<p>i</p>')
    expect(at.warning).toHaveLength(1)
    expect(at.error).toHaveLength(1)
    expect(at.exception[0]!.props).toMatchObject({ name: 'RangeError', message: 'bad' })
  })

  it('an uncaught page error becomes an exception element and lastError', async () => {
    const at = await run((st) => {
      st.text('before')
      throw new Error('kaput')
    })
    expect(at.text[0]!.value).toBe('before')
    expect(at.exception[0]!.props.message).toBe('kaput')
  })
})

describe('data elements', () => {
  const rows = Array.from({ length: 60 }, (_v, i) => ({ id: i, name: `n${i % 7}`, when: new Date(Date.UTC(2024, 0, 1 + i)) }))

  it('metric formats value and delta direction', async () => {
    const at = await run((st) => {
      st.metric('Users', 1234, { delta: -5 })
      st.metric('Rate', '3%', { delta: '+0.5%', deltaColor: 'inverse' })
      st.metric('None', null)
    })
    expect(at.metric[0]!.props).toMatchObject({ value: '1,234', delta: '-5', deltaDirection: 'down' })
    expect(at.metric[1]!.props).toMatchObject({ delta: '+0.5%', deltaDirection: 'up', deltaColor: 'inverse' })
    expect(at.metric[2]!.props).toMatchObject({ value: '—', delta: null, deltaDirection: null })
  })

  it('table normalises records, columns objects and arrays of arrays', async () => {
    const at = await run((st) => {
      st.table([{ a: 1, b: 'x' }, { a: 2, c: true }])
      st.table({ x: [1, 2], y: ['p', 'q'] })
      st.table([[1, 2], [3, 4]], { columns: ['l', 'r'] })
    })
    expect(at.table[0]!.props).toEqual({
      columns: [{ name: 'a', kind: 'number' }, { name: 'b', kind: 'string' }, { name: 'c', kind: 'boolean' }],
      rows: [[1, 'x', null], [2, null, true]],
    })
    expect(at.table[1]!.props.rows).toEqual([[1, 'p'], [2, 'q']])
    expect(at.table[2]!.props.columns.map((c) => c.name)).toEqual(['l', 'r'])
  })

  it('dataframe sends one page, and pages/sorts on dataframe_page without a rerun', async () => {
    let runs = 0
    const at = await run((st) => {
      runs++
      st.dataframe(rows, { pageSize: 25 })
    })
    const df = at.dataframe[0]!
    expect(df.props).toMatchObject({ totalRows: 60, page: 0, pageSize: 25, sort: null })
    expect(df.props.rows).toHaveLength(25)
    expect(df.props.columns.map((c) => c.kind)).toEqual(['number', 'string', 'date'])
    await at.send({ v: 1, type: 'dataframe_page', id: df.id, page: 2, sort: null })
    const last = at.messages.at(-1)!
    expect(last).toMatchObject({ type: 'dataframe_rows', id: df.id, page: 2, totalRows: 60 })
    if (last.type !== 'dataframe_rows') throw new Error('unreachable')
    expect(last.rows.map((r) => r[0])).toEqual(Array.from({ length: 10 }, (_v, i) => 50 + i))
    await at.send({ v: 1, type: 'dataframe_page', id: df.id, page: 0, sort: { column: 'id', direction: 'desc' } })
    const sorted = at.messages.at(-1)!
    if (sorted.type !== 'dataframe_rows') throw new Error('unreachable')
    expect(sorted.rows[0]![0]).toBe(59)
    expect(runs).toBe(1)
    // The view survives a rerun.
    await at.run()
    expect(at.dataframe[0]!.props).toMatchObject({ page: 0, sort: { column: 'id', direction: 'desc' } })
    expect(at.dataframe[0]!.props.rows[0]![0]).toBe(59)
  })

  it('charts build series from numeric columns', async () => {
    const at = await run((st) => {
      st.lineChart([{ t: 1, a: 1, b: 2, label: 'x' }, { t: 2, a: 3, b: null, label: 'y' }], { x: 't' })
      st.barChart({ cat: ['a', 'b'], v: [1, 2] }, { x: 'cat', stacked: true })
      st.areaChart([{ v: 1 }, { v: 2 }])
      st.scatterChart([{ x: 1, y: 2 }], { x: 'x', y: 'y', color: '#f00' })
    })
    const line = at.get('lineChart')[0]!.props
    expect(line).toMatchObject({ useContainerWidth: true, theme: 'svc' })
    expect((line.spec.data as { values: unknown[] }).values).toEqual([{ t: 1, a: 1, b: 2 }, { t: 2, a: 3, b: null }])
    expect(at.get('barChart')[0]!.props.spec.encoding).toMatchObject({ x: { field: 'cat', type: 'nominal' }, y: { stack: 'zero' } })
    expect((at.get('areaChart')[0]!.props.spec.data as { values: unknown[] }).values).toEqual([{ index: 0, v: 1 }, { index: 1, v: 2 }])
    expect(at.get('scatterChart')[0]!.props.spec.mark).toMatchObject({ type: 'point', color: '#f00' })
  })

  it('a chart column that does not exist is a clear error', async () => {
    const at = await run((st) => st.lineChart([{ a: 1 }], { x: 'nope' }))
    expect(at.exception[0]!.props.message).toMatch(/x column "nope" is not in the data/)
  })
})

describe('media, links, progress', () => {
  it('image from URL and from bytes (media URL); unsafe URLs refused', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])
    const at = await run((st) => {
      st.image('https://example.com/a.png', { caption: 'A', width: 100 })
      st.image(png)
      st.image('javascript:alert(1)')
    })
    expect(at.image[0]!.props).toEqual({ url: 'https://example.com/a.png', caption: 'A', width: 100, alt: 'A' })
    expect(at.image[1]!.props.url).toMatch(/^\/_stcore\/media\/[0-9a-f]{40}\.png$/)
    expect(at.exception[0]!.props.message).toMatch(/the scheme javascript: is not allowed here/)
  })

  it('link to a page vs external link', async () => {
    const app = new Svc({ log_level: 'fatal' })
    app.page('/', (st) => {
      st.link('Reports', '/reports?x=1')
      st.link('Docs', 'https://example.com')
    })
    app.page('/reports', () => {})
    const at = await createUiTestHandle(app).run()
    expect(at.link[0]!.props).toMatchObject({ page: '/reports', newTab: false })
    expect(at.link[1]!.props).toMatchObject({ page: null, newTab: true })
  })

  it('progress updates in place; spinner is removed after its work; toast is a message', async () => {
    const at = await run(async (st) => {
      const bar = st.progress(10, 'start')
      const v = await st.spinner('Loading…', async () => 7)
      bar.progress(0.5)
      st.text(String(v))
      st.toast('saved', { icon: '💾' })
    })
    expect(at.progress[0]!.props).toEqual({ value: 0.5, text: 'start' })
    expect(at.get('spinner')).toHaveLength(0)
    expect(at.get('empty')).toHaveLength(1)
    expect(at.text[0]!.value).toBe('7')
    expect(at.toasts).toEqual(['saved'])
  })

  it('a slow run sends partial renders with the previous nodes marked stale', async () => {
    const app = new Svc({ log_level: 'fatal' })
    app.page('/', async (st) => {
      st.text('a')
      if (st.sessionState.second) await new Promise((r) => setTimeout(r, 250))
      st.text('b')
      st.sessionState.second = true
    })
    const at = await createUiTestHandle(app).run()
    await at.run()
    const partial = at.messages.find((m) => m.type === 'render' && m.partial)
    expect(partial).toBeDefined()
    if (partial?.type !== 'render') throw new Error('unreachable')
    expect(partial.main.map((n) => [n.props.text, n.stale === true])).toEqual([['a', false], ['b', true]])
  })
})

describe('layout', () => {
  it('sidebar columns tabs expander container form empty', async () => {
    const at = await run((st) => {
      st.sidebar.title('Side')
      const [a, b] = st.columns([2, 1], { gap: 'large' })
      a!.text('left')
      b!.text('right')
      const [t1, t2] = st.tabs(['One', 'Two'])
      t1!.text('in one')
      t2!.text('in two')
      st.expander('More', { expanded: true }).text('hidden')
      st.container({ border: true }).text('boxed')
      const slot = st.empty()
      slot.text('first')
      slot.text('second')
      const f = st.form('f')
      f.textInput('Name', { key: 'fname' })
      f.formSubmitButton('Send')
    })
    expect(at.sidebar[0]!.type).toBe('title')
    const cols = at.columns[0]!
    expect(cols.props.gap).toBe('large')
    expect(cols.children.map((c) => [c.type, c.props])).toEqual([['column', { weight: 2 }], ['column', { weight: 1 }]])
    expect(cols.children[1]!.children[0]!.value).toBe('right')
    expect(at.tabs[0]!.children.map((t) => t.props)).toEqual([{ label: 'One' }, { label: 'Two' }])
    expect(at.expander[0]!.props).toEqual({ label: 'More', expanded: true, icon: null })
    expect(at.get('container')[0]!.children[0]!.value).toBe('boxed')
    expect(at.get('empty')[0]!.children.map((c) => c.value)).toEqual(['second'])
    const form = at.get('form')[0]!
    expect(form.props).toEqual({ formId: 'f', clearOnSubmit: false, border: true, clears: 0 })
    expect(at.textInput('fname').props.formId).toBe('f')
    const ids = new Set<string>()
    const walk = (v: { id: string; children: typeof at.main }): void => {
      expect(ids.has(v.id)).toBe(false)
      ids.add(v.id)
      v.children.forEach(walk)
    }
    at.main.forEach(walk)
  })

  it('formSubmitButton outside a form and button inside a form are errors', async () => {
    const at = await run((st) => {
      st.formSubmitButton('x')
    })
    expect(at.exception[0]!.props.message).toMatch(/must be called on a form/)
    const bt = await run((st) => {
      st.form('f').button('y')
    })
    expect(bt.exception[0]!.props.message).toMatch(/cannot be used inside a form/)
  })

  it('form submit applies values in one run; clearOnSubmit resets them', async () => {
    const seen: string[] = []
    const at = await run((st) => {
      const f = st.form('f', { clearOnSubmit: true })
      const name = f.textInput('Name', { key: 'n' })
      if (f.formSubmitButton('Send', { key: 'send' })) seen.push(name)
    })
    at.textInput('n').setValue('Ada')
    await at.formSubmitButton('send').click().run()
    expect(seen).toEqual(['Ada'])
    expect(at.textInput('n').props.value).toBe('')
    await at.run()
    expect(at.textInput('n').value).toBe('')
  })
})

describe('widgets', () => {
  it('every widget returns its default, then the value set', async () => {
    const values: Record<string, unknown> = {}
    const at = await run((st) => {
      values.checkbox = st.checkbox('C', { key: 'c' })
      values.toggle = st.toggle('T', { key: 't', value: true })
      values.radio = st.radio('R', ['a', 'b'], { key: 'r' })
      values.selectbox = st.selectbox('S', [{ label: 'One', v: 1 }, { label: 'Two', v: 2 }], { key: 's', index: null })
      values.multiselect = st.multiselect('M', ['x', 'y', 'z'], { key: 'm', default: ['y'] })
      values.slider = st.slider('Sl', { key: 'sl', min: 0, max: 10, value: 3 })
      values.range = st.slider('Rg', { key: 'rg', value: [2, 8] })
      values.textArea = st.textArea('TA', { key: 'ta', value: 'x' })
      values.numberInput = st.numberInput('N', { key: 'n', value: 1.5, min: 0, max: 2 })
      values.dateInput = st.dateInput('D', { key: 'd', value: '2024-05-01' })
      values.fileUploader = st.fileUploader('F', { key: 'f', accept: '.csv' })
      values.download = st.downloadButton('DL', 'a,b\n1,2', { key: 'dl', fileName: 'x.csv', mime: 'text/csv' })
    })
    expect(values).toMatchObject({
      checkbox: false, toggle: true, radio: 'a', selectbox: null, multiselect: ['y'], slider: 3, range: [2, 8],
      textArea: 'x', numberInput: 1.5, fileUploader: null, download: false,
    })
    expect((values.dateInput as Date).toISOString()).toBe('2024-05-01T00:00:00.000Z')
    expect(at.selectbox('s').props.options).toEqual(['One', 'Two'])
    expect(at.multiselect('m').props.value).toEqual([1])
    expect(at.downloadButton('dl').props.url).toMatch(/^\/_stcore\/media\/[0-9a-f]{40}\.csv$/)

    at.checkbox('c').check()
    at.radio('r').setValue('b')
    at.selectbox('s').setValue({ label: 'Two', v: 2 })
    at.multiselect('m').setValue(['x', 'z'])
    at.slider('sl').setValue(7)
    at.slider('rg').setValue([1, 4])
    at.numberInput('n').setValue(2)
    at.dateInput('d').setValue('2024-06-02')
    await at.run()
    expect(values).toMatchObject({ checkbox: true, radio: 'b', selectbox: { v: 2 }, multiselect: ['x', 'z'], slider: 7, range: [1, 4], numberInput: 2 })
    // A value the widget could not show is refused at once, not clamped.
    await expect(at.slider('sl').setValue(99).run()).rejects.toThrow(/99 is outside 0\.\.10/)
    await expect(at.numberInput('n').setValue(5).run()).rejects.toThrow(/outside 0\.\.2/)
    expect(at.radio('r').props.value).toBe(1)
    expect(at.selectbox('s').props.value).toBe(1)
    expect((values.dateInput as Date).toISOString().slice(0, 10)).toBe('2024-06-02')
  })

  it('browser values are validated: bad values are dropped, options arrive as indices', async () => {
    const app = new Svc({ log_level: 'fatal' })
    let got: unknown
    app.page('/', (st) => {
      got = st.selectbox('S', ['a', 'b', 'c'], { key: 's' })
    })
    const at = await createUiTestHandle(app).run()
    const id = at.selectbox('s').id
    await at.send({ v: 1, type: 'widget', id, value: 7 })
    expect(got).toBe('a')
    await at.send({ v: 1, type: 'widget', id, value: 'c' })
    expect(got).toBe('a')
    await at.send({ v: 1, type: 'widget', id, value: 2 })
    expect(got).toBe('c')
    expect(at.sessionState.s).toBe('c')
  })

  it('fileUploader accepts files that pass accept/maxBytes', async () => {
    let file: unknown
    const at = await run((st) => {
      file = st.fileUploader('F', { key: 'f', accept: ['.csv'] })
    })
    const w = at.fileUploader('f')
    expect(w.props).toMatchObject({ accept: ['.csv'], multiple: false, value: [] })
    const b64 = Buffer.from('a,b').toString('base64')
    await at.send({ v: 1, type: 'widget', id: w.id, value: [{ name: 'evil.exe', type: 'application/x-msdownload', size: 3, dataBase64: b64 }] })
    expect(file).toBeNull()
    await at.send({ v: 1, type: 'widget', id: w.id, value: [{ name: 'a.csv', type: 'text/csv', size: 3, dataBase64: b64 }] })
    expect((file as { name: string; text(): string }).text()).toBe('a,b')
    expect(at.fileUploader('f').props.value).toEqual([{ name: 'a.csv', type: 'text/csv', size: 3 }])
  })

  it('a widget without a key changes identity with its label', async () => {
    const at = await run((st) => {
      st.sessionState.n = (st.sessionState.n ?? 0) + 1
      st.textInput(`Label ${st.sessionState.n > 1 ? 'B' : 'A'}`)
    })
    const first = at.get('textInput')[0]!.id
    await at.run()
    expect(at.get('textInput')[0]!.id).not.toBe(first)
  })
})
