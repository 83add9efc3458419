import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { createUiTestHandle, type UiTestHandle } from '../../../src/testing/app-test.js'
import { columnConfig } from '../../../src/ui/column-config.js'
import { sparkline } from '../../../src/ui/st/sparkline.js'
import { wavProblem } from '../../../src/ui/st/capture.js'
import type { ChatInputValue, DataframeSelection, St, UploadedFile } from '../../../src/ui/st-types.js'

/**
 * Issue #36 through AppTest: what each element sends, what each input takes back from the
 * browser (and refuses), and how it behaves in forms, with keys and callbacks.
 */

async function run(page: (st: St) => void | Promise<void>, configure?: (app: Svc) => void) {
  const app = new Svc({ title: 'T', log_level: 'fatal' })
  configure?.(app)
  app.page('/', page)
  return createUiTestHandle(app).run()
}

const errorOf = (at: UiTestHandle) => at.exception[0]?.props.message
const widget = (id: string, value: unknown) => ({ v: 1 as const, type: 'widget' as const, id, value })
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')

/** A PCM WAV of `seconds` of silence at `rate` Hz, one channel. */
function wav(rate: number, seconds = 0.1): Uint8Array {
  const samples = Math.round(rate * seconds)
  const out = Buffer.alloc(44 + samples * 2)
  out.write('RIFF', 0)
  out.writeUInt32LE(36 + samples * 2, 4)
  out.write('WAVE', 8)
  out.write('fmt ', 12)
  out.writeUInt32LE(16, 16)
  out.writeUInt16LE(1, 20)
  out.writeUInt16LE(1, 22)
  out.writeUInt32LE(rate, 24)
  out.writeUInt32LE(rate * 2, 28)
  out.writeUInt16LE(2, 32)
  out.writeUInt16LE(16, 34)
  out.write('data', 36)
  out.writeUInt32LE(samples * 2, 40)
  return new Uint8Array(out)
}
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70])
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10, 26, 10])

describe('st.badge, st.latex, st.graphvizChart', () => {
  it('send their text as written, with defaults like Streamlit', async () => {
    const at = await run((st) => {
      st.badge('New')
      st.badge('Old', { color: 'grey', icon: ':material/history:', help: 'kept' })
      st.latex(String.raw`e^{i\pi} + 1 = 0`, { help: 'Euler' })
      st.graphvizChart('digraph { a -> b }')
      st.graphvizChart({ source: 'graph { x -- y }' }, { useContainerWidth: true, height: 300 })
    })
    expect(at.badge.map((b) => b.props)).toEqual([
      { label: 'New', icon: null, color: 'blue', help: null },
      { label: 'Old', icon: ':material/history:', color: 'gray', help: 'kept' },
    ])
    expect(at.latex[0]!.props).toEqual({ body: String.raw`e^{i\pi} + 1 = 0`, help: 'Euler' })
    expect(at.graphvizChart.map((g) => g.props)).toEqual([
      { dot: 'digraph { a -> b }', useContainerWidth: false, height: null, width: null },
      { dot: 'graph { x -- y }', useContainerWidth: true, height: 300, width: null },
    ])
  })

  it.each([
    ['a colour that is not one', (st: St) => st.badge('x', { color: 'pink' as never }), /color "pink" is not one of red, orange, yellow, blue, green, violet, gray, primary/],
    ['TeX that is not text', (st: St) => st.latex(42 as never), /latex\(\): pass the TeX as a string, got number/],
    ['a DOT graph that is not text', (st: St) => st.graphvizChart(null as never), /pass the DOT graph as a string, got null/],
    ['a height that is not pixels', (st: St) => st.graphvizChart('digraph {}', { height: 2.5 }), /height must be a whole number of pixels from 10 to 10000, got 2.5/],
  ])('%s is a clear page error', async (_name, page, message) => {
    expect(errorOf(await run(page))).toMatch(message)
  })
})

describe('st.datetimeInput', () => {
  it('holds a wall-clock time as a Date in UTC and takes only times on the grid, within min and max', async () => {
    let got: Date | null = null
    const changes: (Date | null)[] = []
    const at = await run((st) => {
      got = st.datetimeInput('When', { key: 'when', value: '2026-03-01T09:30', min: new Date('2026-01-01T00:00:00Z'), max: '2026-12-31T23:45', step: 900, onChange: (v) => void changes.push(v) })
    })
    const w = at.datetimeInput('when')
    expect(w.props).toMatchObject({ value: '2026-03-01T09:30', min: '2026-01-01T00:00', max: '2026-12-31T23:45', step: 900 })
    expect(got).toEqual(new Date('2026-03-01T09:30:00Z'))
    await at.send(widget(w.id, '2026-04-02T14:15'))
    expect(got).toEqual(new Date('2026-04-02T14:15:00Z'))
    expect(at.sessionState.when).toEqual(new Date('2026-04-02T14:15:00Z'))
    expect(changes).toEqual([new Date('2026-04-02T14:15:00Z')])
    // Refused, without a rerun: off the grid, outside min/max, off the calendar, seconds the step has not, null for a required value.
    for (const bad of ['2026-04-02T14:20', '2027-01-01T00:00', '2025-12-31T23:45', '2026-02-30T10:00', '2026-04-02T14:15:00', null, 42]) {
      await at.send(widget(w.id, bad))
      expect(got).toEqual(new Date('2026-04-02T14:15:00Z'))
    }
    expect(changes).toHaveLength(1)
    await at.datetimeInput('when').setValue(new Date('2026-05-05T08:00:00Z')).run()
    expect(got).toEqual(new Date('2026-05-05T08:00:00Z'))
  })

  it('starts empty with value null, now by default, with seconds when the step has them; waits for its form; refuses input when disabled', async () => {
    const seen: Record<string, unknown> = {}
    const at = await run((st) => {
      seen.empty = st.datetimeInput('Empty', { value: null })
      seen.now = st.datetimeInput('Now', { step: 90 })
      seen.locked = st.datetimeInput('Locked', { value: '2026-01-01T00:00', disabled: true })
      const f = st.form('f')
      seen.due = f.datetimeInput('Due', { value: null, key: 'due' })
      f.formSubmitButton('Save')
    })
    expect(seen.empty).toBeNull()
    expect(Math.abs((seen.now as Date).getTime() - Date.now())).toBeLessThan(5_000)
    expect(at.widget('datetimeInput', 'Now').props.value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
    await at.send(widget(at.widget('datetimeInput', 'Locked').id, '2026-01-01T00:15'))
    expect(seen.locked).toEqual(new Date('2026-01-01T00:00:00Z'))
    // A value for a form's widget counts only with the form's submit.
    const due = at.datetimeInput('due')
    await at.send(widget(due.id, '2026-06-01T12:00'))
    expect(seen.due).toBeNull()
    await at.send({ v: 1, type: 'form_submit', formId: 'f', values: { [due.id]: '2026-06-01T12:00', [at.formSubmitButton('Save').id]: true } })
    expect(seen.due).toEqual(new Date('2026-06-01T12:00:00Z'))
  })

  it.each([
    ['a step under a minute', { step: 30 }, /step must be whole seconds from 60 to 82800, got 30/],
    ['a value that is not a time', { value: 'soon' }, /value "soon" is not a date and time; pass a Date or "YYYY-MM-DDTHH:MM"/],
    ['min after max', { min: '2026-02-01T00:00', max: '2026-01-01T00:00' }, /min 2026-02-01T00:00:00 is after max 2026-01-01T00:00:00/],
  ])('%s is a clear page error', async (_name, options, message) => {
    expect(errorOf(await run((st) => void st.datetimeInput('D', options as never)))).toMatch(message)
  })
})

describe('st.audioInput and st.cameraInput', () => {
  it('take a WAV of their rate and a JPEG, within maxBytes; refuse other formats, types and sizes', async () => {
    const seen: { voice?: UploadedFile | null; photo?: UploadedFile | null } = {}
    const at = await run((st) => {
      seen.voice = st.audioInput('Voice', { key: 'voice', maxBytes: 8000 })
      seen.photo = st.cameraInput('Photo', { key: 'photo' })
    })
    const voice = at.audioInput('voice')
    expect(voice.props).toMatchObject({ value: null, sampleRate: 16000, maxBytes: 8000 })
    for (const [name, type, bytes] of [
      ['a.wav', 'audio/wav', wav(8000)], // another rate
      ['a.wav', 'audio/wav', wav(16000, 1)], // larger than maxBytes
      ['a.wav', 'audio/wav', JPEG], // not a WAV
      ['a.mp3', 'audio/mpeg', wav(16000)], // not the widget's type
    ] as const) {
      await at.send(widget(voice.id, [{ name, type, size: bytes.length, dataBase64: b64(bytes) }]))
      expect(seen.voice).toBeNull()
    }
    await at.send(widget(voice.id, [{ name: 'voice.wav', type: 'audio/wav', size: 3244, dataBase64: b64(wav(16000)) }]))
    expect(seen.voice).toMatchObject({ name: 'voice.wav', type: 'audio/wav', size: 3244 })
    expect(at.audioInput('voice').props.value).toMatchObject({ name: 'voice.wav', type: 'audio/wav', size: 3244, url: expect.stringMatching(/^\/_stcore\/media\/[0-9a-f]{40}\.wav$/) })
    // Two files, or the same again by a reference the session never issued: refused.
    await at.send(widget(voice.id, [{ name: 'v.wav', type: 'audio/wav', size: 1, ref: 'nope' }]))
    expect(seen.voice?.name).toBe('voice.wav')
    await at.send(widget(voice.id, []))
    expect(seen.voice).toBeNull()

    const photo = at.cameraInput('photo')
    await at.send(widget(photo.id, [{ name: 'photo.jpg', type: 'image/jpeg', size: PNG.length, dataBase64: b64(PNG) }]))
    expect(seen.photo).toBeNull()
    await at.cameraInput('photo').setValue({ name: 'photo.jpg', type: 'image/jpeg', bytes: JPEG }).run()
    expect(seen.photo?.bytes).toEqual(JPEG)
    expect(at.sessionState.photo).toBe(seen.photo)
  })

  it('any rate with sampleRate null; a rate that is not one of Streamlit\'s is a page error', async () => {
    let voice: UploadedFile | null = null
    const at = await run((st) => void (voice = st.audioInput('Voice', { sampleRate: null })))
    expect(at.audioInput('Voice').props.sampleRate).toBe(0)
    await at.send(widget(at.audioInput('Voice').id, [{ name: 'v.wav', type: 'audio/wav', size: 1, dataBase64: b64(wav(44100)) }]))
    expect(voice).not.toBeNull()
    expect(errorOf(await run((st) => void st.audioInput('V', { sampleRate: 12345 })))).toMatch(/sampleRate must be one of 8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000 or null/)
    expect(wavProblem(wav(16000), 16000)).toBeNull()
    expect(wavProblem(new Uint8Array(10), null)).toBe('not a WAV file')
  })

  it('call onChange with the new file; refuse input when disabled', async () => {
    const changes: (UploadedFile | null)[] = []
    const seen: { voice?: UploadedFile | null; photo?: UploadedFile | null } = {}
    const at = await run((st) => {
      seen.voice = st.audioInput('Voice', { key: 'voice', onChange: (f) => void changes.push(f) })
      seen.photo = st.cameraInput('Photo', { key: 'photo', disabled: true })
    })
    expect(at.cameraInput('photo').props.disabled).toBe(true)
    await at.send(widget(at.audioInput('voice').id, [{ name: 'v.wav', type: 'audio/wav', size: 3244, dataBase64: b64(wav(16000)) }]))
    expect(changes.map((f) => f?.name)).toEqual(['v.wav'])
    await at.send(widget(at.audioInput('voice').id, []))
    expect(changes.map((f) => f?.name ?? null)).toEqual(['v.wav', null])
    await at.send(widget(at.cameraInput('photo').id, [{ name: 'p.jpg', type: 'image/jpeg', size: JPEG.length, dataBase64: b64(JPEG) }]))
    expect(seen.photo).toBeNull()
  })

  it('inside a form the photo counts with the submit', async () => {
    let photo: UploadedFile | null = null
    const at = await run((st) => {
      const f = st.form('f')
      photo = f.cameraInput('Photo', { key: 'p' })
      f.formSubmitButton('Send')
    })
    const value = [{ name: 'p.jpg', type: 'image/jpeg', size: JPEG.length, dataBase64: b64(JPEG) }]
    await at.send(widget(at.cameraInput('p').id, value))
    expect(photo).toBeNull()
    await at.send({ v: 1, type: 'form_submit', formId: 'f', values: { [at.cameraInput('p').id]: value, [at.formSubmitButton('Send').id]: true } })
    expect(photo).toMatchObject({ name: 'p.jpg', type: 'image/jpeg' })
  })
})

describe('st.chatInput with files and a voice message', () => {
  it('returns text, files and the recording for one run, under the fileUploader rules', async () => {
    const submits: ChatInputValue[] = []
    let last: ChatInputValue | null = null
    const at = await run((st) => {
      last = st.chatInput('Ask', { key: 'ask', acceptFile: 'multiple', fileType: ['.txt'], acceptAudio: true, maxBytes: 8000, onSubmit: (v) => void submits.push(v) })
    })
    const w = at.chatInput('ask')
    expect(w.props.attach).toEqual({ files: 'multiple', accept: ['.txt'], maxBytes: 8000, audioSampleRate: 16000 })
    const txt = (name: string, text: string) => ({ name, type: 'text/plain', size: text.length, dataBase64: Buffer.from(text).toString('base64') })
    await at.send({ ...widget(w.id, { text: 'Read these', files: [txt('a.txt', 'one'), txt('b.txt', 'two')], audio: null }), trigger: true })
    expect(last).toMatchObject({ text: 'Read these', audio: null })
    expect(last!.files.map((f) => f.text())).toEqual(['one', 'two'])
    expect(submits).toHaveLength(1)
    await at.run()
    expect(last).toBeNull()
    // A voice message alone; then refused: a file of another type, an empty submit, a recording at another rate.
    await at.send({ ...widget(w.id, { text: '', files: [], audio: { name: 'v.wav', type: 'audio/wav', size: 3244, dataBase64: b64(wav(16000)) } }), trigger: true })
    expect(last).toMatchObject({ text: '', files: [], audio: { name: 'v.wav', type: 'audio/wav' } })
    await at.run()
    for (const bad of [
      { text: 'x', files: [{ name: 'a.csv', type: 'text/csv', size: 1, dataBase64: 'eA==' }], audio: null },
      { text: '  ', files: [], audio: null },
      { text: '', files: [], audio: { name: 'v.wav', type: 'audio/wav', size: 1, dataBase64: b64(wav(8000)) } },
      'just text',
    ]) {
      await at.send({ ...widget(w.id, bad), trigger: true })
      expect(last).toBeNull()
    }
    expect(submits).toHaveLength(2)
  })

  it('one file when acceptFile is true, none without it; a text-only input still returns the text', async () => {
    let last: unknown = null
    let plain: string | null = null
    const at = await run((st) => {
      last = st.chatInput('Files', { key: 'f', acceptFile: true })
      plain = st.sidebar.chatInput('Plain', { key: 'p' })
    })
    const file = { name: 'a.txt', type: 'text/plain', size: 1, dataBase64: 'eA==' }
    await at.send({ ...widget(at.chatInput('f').id, { text: 'x', files: [file, file], audio: null }), trigger: true })
    expect(last).toBeNull()
    await at.send({ ...widget(at.chatInput('f').id, { text: 'x', files: [], audio: { ...file, name: 'v.wav', type: 'audio/wav' } }), trigger: true })
    expect(last).toBeNull()
    expect(at.chatInput('f').props.attach).toEqual({ files: 'single', accept: null, maxBytes: 10 * 1024 * 1024, audioSampleRate: null })
    expect(at.chatInput('p').props.attach).toBeUndefined()
    await at.chatInput('p').setValue('hello').run()
    expect(plain).toBe('hello')
  })
})

describe('st.downloadButton with data made on click', () => {
  it('runs the function only when the visitor clicks; onClick ignore does not rerun; a failure is the function\'s error', async () => {
    let made = 0
    let runs = 0
    const at = await run((st) => {
      runs++
      st.downloadButton('Export', () => `n,${++made}`, { fileName: 'export.csv', mime: 'text/csv', key: 'export' })
      st.downloadButton('Quiet', async () => new Uint8Array([1, 2]), { fileName: 'q.bin', onClick: 'ignore', key: 'quiet' })
      st.downloadButton('Broken', () => {
        throw new Error('service down')
      }, { key: 'broken' })
      st.downloadButton('Off', () => 'x', { key: 'off', disabled: true })
    })
    expect(made).toBe(0)
    expect(at.downloadButton('export').props).toMatchObject({ url: null, fileName: 'export.csv', mime: 'text/csv' })
    expect(await at.download('export')).toEqual({ fileName: 'export.csv', type: 'text/csv', bytes: new TextEncoder().encode('n,1') })
    expect(await at.download('quiet')).toEqual({ fileName: 'q.bin', type: 'application/octet-stream', bytes: new Uint8Array([1, 2]) })
    expect(at.downloadButton('quiet').props.rerun).toBe(false)
    await expect(at.download('broken')).rejects.toThrow(/its function failed: Error: service down/)
    await expect(at.download('off')).rejects.toThrow(/has its data already/)
    // The browser's message: answered with the file's media URL, no rerun.
    const before = runs
    await at.send({ v: 1, type: 'download', id: at.downloadButton('export').id })
    const ready = at.messages.findLast((m) => m.type === 'download_ready')
    expect(ready).toMatchObject({ type: 'download_ready', fileName: 'export.csv', url: expect.stringMatching(/^\/_stcore\/media\/[0-9a-f]{40}\.csv$/), message: null })
    expect(runs).toBe(before)
    // No answer for an id that names no such button, nor for a second click while the first one's function runs.
    const answers = () => at.messages.filter((m) => m.type === 'download_ready').length
    const seen = answers()
    await at.send({ v: 1, type: 'download', id: 'no-such-button' })
    expect(answers()).toBe(seen)
    const id = at.downloadButton('export').id
    void at.send({ v: 1, type: 'download', id })
    await at.send({ v: 1, type: 'download', id })
    await expect.poll(answers).toBe(seen + 1)
    // A click reruns, unless the button ignores clicks (refused like a disabled button's).
    await at.send({ ...widget(at.downloadButton('quiet').id, true), trigger: true })
    expect(runs).toBe(before)
    await at.send({ ...widget(at.downloadButton('export').id, true), trigger: true })
    expect(runs).toBe(before + 1)
  })

  it('data given as it is keeps its URL and MIME type', async () => {
    const at = await run((st) => void st.downloadButton('Text', 'a,b', { fileName: 'a.csv' }))
    expect(at.downloadButton('Text').props).toMatchObject({ url: expect.stringMatching(/^\/_stcore\/media\//), mime: 'text/plain' })
    expect(at.downloadButton('Text').props.rerun).toBeUndefined()
  })
})

describe('st.metric sparklines and st.container layout', () => {
  it('draws chartData as a path on the server; line, area and bar', async () => {
    const at = await run((st) => {
      st.metric('A', 1, { chartData: [1, 2, 3] })
      st.metric('B', 1, { chartData: [3, null, 1], chartType: 'bar' })
      st.metric('C', 1)
    })
    expect(at.metric[0]!.props.chart).toEqual({ kind: 'line', d: 'M0 28.5L50 15L100 1.5' })
    expect(at.metric[1]!.props.chart?.kind).toBe('bar')
    expect(at.metric[2]!.props.chart).toBeUndefined()
    expect(sparkline('area', [5])).toEqual({ kind: 'area', d: 'M0 15L100 15' })
    // Bars grow from zero: down for a negative value, up for a positive one.
    expect(sparkline('bar', [-1, 1])!.d).toBe('M5 15h40v13.5h-40zM55 1.5h40v13.5h-40z')
    expect(errorOf(await run((st) => st.metric('X', 1, { chartData: [1], chartType: 'pie' as never })))).toMatch(/chartType must be 'line', 'bar', 'area', got "pie"/)
    expect(errorOf(await run((st) => st.metric('X', 1, { chartData: 'up' as never })))).toMatch(/chartData must be a list of numbers, got string/)
  })

  it('sends only what differs from a vertical stack, and names a bad option', async () => {
    const at = await run((st) => {
      st.container()
      st.container({ horizontal: true, gap: 'large', horizontalAlignment: 'distribute', verticalAlignment: 'center', border: true })
      st.container({ gap: null })
    })
    expect(at.get('container').map((c) => c.props)).toEqual([
      { border: false, height: null },
      { border: true, height: null, horizontal: true, gap: 'large', horizontalAlignment: 'distribute', verticalAlignment: 'center' },
      { border: false, height: null, gap: null },
    ])
    expect(errorOf(await run((st) => void st.container({ gap: 'huge' as never })))).toMatch(/gap must be one of xxsmall, xsmall, small, medium, large, xlarge, xxlarge, got "huge"/)
  })
})

describe('st.dataframe column and cell selection, and the new column types', () => {
  const ROWS = [
    { id: 'a', name: 'Ada', trend: [1, 2, 3], tags: ['x'], roles: ['read'], start: '09:00' },
    { id: 'b', name: 'Linus', trend: [3, 2, 1], tags: [], roles: [], start: '10:30' },
  ]

  it('holds rows, columns and cells by row key; refuses what the table does not show or select', async () => {
    let rows = ROWS
    let sel: DataframeSelection | null = null
    const at = await run((st) => {
      sel = st.dataframe(rows, { key: 't', rowKey: 'id', selectionMode: ['single-row', 'multi-column', 'single-cell'], columnConfig: { trend: null } })
    })
    const id = at.dataframe[0]!.id
    expect(at.dataframe[0]!.props).toMatchObject({ selectionMode: 'single-row', selectionModes: { rows: 'single', columns: 'multi', cells: 'single' }, selection: [], selectedColumns: [], selectedCells: [] })
    await at.send(widget(id, { rows: ['b'], columns: ['tags', 'name'], cells: [['a', 'start']] }))
    expect(sel!.selection).toEqual({ rows: [1], ids: ['b'], columns: ['name', 'tags'], cells: [[0, 'start']] })
    for (const bad of [
      { rows: [], columns: ['trend'], cells: [] }, // a hidden column
      { rows: [], columns: [], cells: [['a', 'name'], ['b', 'name']] }, // two cells in single-cell mode
      { rows: ['a', 'b'], columns: [], cells: [] }, // two rows in single-row mode
      { rows: [] }, // the shape of a row-only table
    ]) {
      await at.send(widget(id, bad))
      expect(sel!.selection.ids).toEqual(['b'])
    }
    // The data changes order: selections follow their keys; a gone row's cell is dropped.
    rows = [ROWS[1]!]
    await at.run()
    expect(sel!.selection).toEqual({ rows: [0], ids: ['b'], columns: ['name', 'tags'], cells: [] })
    expect(sel!.dropped).toEqual(['a'])
  })

  it('a row-only table sends and holds row ids as before; two modes of one kind are a page error', async () => {
    let sel: DataframeSelection | null = null
    const at = await run((st) => void (sel = st.dataframe(ROWS, { key: 'r', selectionMode: 'multi-row' })))
    expect(at.dataframe[0]!.props.selectionModes).toBeUndefined()
    await at.send(widget(at.dataframe[0]!.id, { rows: [1], rowsVersion: at.dataframe[0]!.props.rowsVersion! }))
    expect(sel!.selection).toEqual({ rows: [1], ids: [1], columns: [], cells: [] })
    expect(at.sessionState.r).toEqual([1])
    expect(errorOf(await run((st) => void st.dataframe(ROWS, { selectionMode: ['single-row', 'multi-row'] })))).toMatch(/selectionMode lists two modes for rows/)
    expect(errorOf(await run((st) => void st.dataframe(ROWS, { selectionMode: 'single-table' as never })))).toMatch(/selectionMode "single-table" is not supported/)
  })

  it('chart cells travel as sparkline paths; a multiselect and a time are edited under their options, bounds and step', async () => {
    let edited: Record<string, unknown>[] = []
    const at = await run((st) => {
      st.dataframe(ROWS, { columnConfig: { trend: columnConfig.lineChart({ yMin: 0, yMax: 4 }), tags: columnConfig.list() } })
      edited = st.dataEditor(ROWS.map(({ id, roles, start }) => ({ id, roles, start })), {
        key: 'e',
        rowKey: 'id',
        columnConfig: { roles: columnConfig.multiselect({ options: ['read', 'write'] }), start: columnConfig.time({ min: '08:00', max: '18:00', step: 900 }) },
      })
    })
    const shown = at.dataframe[0]!.props
    expect(shown.columns.map((c) => c.type)).toEqual(['text', 'text', 'lineChart', 'list', 'json', 'text'])
    expect(shown.rows[0]![2]).toBe('M0 21.75L50 15L100 8.25')
    expect(shown.rows[0]![3]).toEqual(['x'])
    const editor = at.dataEditor[0]!
    expect(editor.props.columns.find((c) => c.name === 'start')).toMatchObject({ type: 'time', min: 8 * 3600, max: 18 * 3600, step: 900 })
    const edit = (rows: Record<string, Record<string, unknown>>) => at.send(widget(editor.id, { editedRows: rows, addedRows: [], deletedRows: [] }))
    await edit({ a: { roles: ['read', 'write'], start: '17:45' } })
    expect(edited[0]).toEqual({ id: 'a', roles: ['read', 'write'], start: '17:45' })
    for (const bad of [{ roles: ['admin'] }, { roles: ['read', 'read'] }, { roles: 'read' }, { start: '07:45' }, { start: '09:10' }, { start: '25:00' }]) {
      await edit({ b: bad })
      expect(edited[1]).toEqual({ id: 'b', roles: [], start: '10:30' })
    }
    expect(errorOf(await run((st) => void st.dataframe(ROWS, { columnConfig: { roles: columnConfig.multiselect() } })))).toMatch(/a multiselect column needs options/)
    expect(() => columnConfig.time({ min: '8 am' })).toThrow(/min "8 am" is not a time "HH:MM" or "HH:MM:SS"/)
  })
})

describe('app.navigation position, st.echo, st.help, st.exception', () => {
  it('puts the page links along the top or hides them; a position that is not one is an error naming the choices', async () => {
    const top = await run((st) => st.text('x'), (app) => app.navigation({ position: 'top' }))
    expect(top.navPosition).toBe('top')
    expect(top.messages.findLast((m) => m.type === 'render')).toMatchObject({ navPosition: 'top' })
    const hidden = await run((st) => st.text('x'), (app) => app.navigation((nav) => nav.pages, { position: 'hidden' }))
    expect(hidden.navPosition).toBe('hidden')
    const side = await run((st) => st.text('x'))
    expect(side.navPosition).toBe('sidebar')
    expect(side.messages.findLast((m) => m.type === 'render')).not.toHaveProperty('navPosition')
    expect(() => new Svc({ log_level: 'fatal' }).navigation({ position: 'bottom' as never })).toThrow(/position must be one of 'sidebar', 'top', 'hidden', got "bottom"/)
  })

  it('echo shows the code as this file has it, above or below what it draws, and returns what it returns', async () => {
    let result = 0
    const at = await run(async (st) => {
      result = st.echo(() => {
        // counted twice
        const n = 2 * 21
        st.text(`n is ${n}`)
        return n
      })
      await st.echo(async () => st.text('later'), { codeLocation: 'below' })
    })
    expect(result).toBe(42)
    expect(at.code[0]!.props).toEqual({ code: '// counted twice\nconst n = 2 * 21\nst.text(`n is ${n}`)\nreturn n', language: 'typescript', lineNumbers: false })
    expect(at.main.map((e) => e.type)).toEqual(['code', 'text', 'text', 'code'])
    expect(at.code[1]!.props.code).toBe("st.text('later')")
  })

  it('help names the value as written and shows its type, signature and members', async () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
      norm(): number {
        return Math.hypot(this.x, this.y)
      }
    }
    const origin = new Point(3, 4)
    const at = await run((st) => {
      st.help(origin)
      st.help(Point)
      st.help(function area(w: number, h = 1) {
        return w * h
      })
    })
    const [instance, cls, fn] = at.help.map((h) => h.props)
    expect(instance).toMatchObject({ name: 'origin', type: 'Point', signature: null, value: 'Point { x: 3, y: 4 }' })
    expect(instance!.members).toEqual([
      { name: 'x', type: 'number', value: '3' },
      { name: 'y', type: 'number', value: '4' },
      { name: 'norm', type: 'function', value: 'norm()' },
    ])
    expect(cls).toMatchObject({ name: 'Point', type: 'class', signature: 'new Point(x, y)', value: null })
    expect(fn).toMatchObject({ name: 'area', type: 'function', signature: 'area(w, h = 1)' })
  })

  it("an exception shows the page's frames, not svc's, and its causes", async () => {
    const at = await run((st) => {
      try {
        JSON.parse('{')
      } catch (err) {
        st.exception(new Error('settings unreadable', { cause: err }))
      }
    })
    const stack = at.exception[0]!.props.stack!
    expect(stack).toMatch(/^ {2}at .*elements-tail\.test\.ts/)
    expect(stack).toMatch(/\n\nCaused by SyntaxError: /)
    expect(stack).not.toMatch(/src\/ui\/runtime|node:internal/)
  })
})
