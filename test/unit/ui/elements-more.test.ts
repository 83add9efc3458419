import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { createUiTestHandle, type UiTestHandle } from '../../../src/testing/app-test.js'
import type { WidgetType } from '../../../src/ui/wire/elements.js'
import type { St } from '../../../src/ui/st-types.js'

/** audio/video/pdf and the widgets of issue #14.6, driven in-process like the browser would. */

async function run(page: (st: St) => void | Promise<void>) {
  const app = new Svc({ title: 'T', log_level: 'fatal' })
  app.page('/', page)
  return createUiTestHandle(app).run()
}

/** Sends a raw browser value for widget `key` and waits for the rerun. */
async function send(at: UiTestHandle, type: WidgetType, key: string, value: unknown) {
  await at.send({ v: 1, type: 'widget', id: at.widget(type, key).id, value })
}

describe('media elements', () => {
  it('audio and video from bytes are served from the media store with their MIME type; URLs pass through', async () => {
    const at = await run((st) => {
      st.audio(Buffer.from('RIFF....WAVE'), { format: 'audio/wav', startTime: 2, endTime: 5, loop: true })
      st.video(new Uint8Array([0, 0, 0, 24, 102, 116, 121, 112]).buffer, { muted: true, width: 320 })
      st.audio('https://cdn.example.com/a.mp3')
    })
    const [bytes, url] = at.get('audio')
    expect(bytes!.props).toMatchObject({ url: expect.stringMatching(/^\/_stcore\/media\/[0-9a-f]+\.wav$/), mime: 'audio/wav', startTime: 2, endTime: 5, loop: true, autoplay: false })
    expect(url!.props).toMatchObject({ url: 'https://cdn.example.com/a.mp3', mime: null, startTime: 0, endTime: null })
    expect(at.get('video')[0]!.props).toMatchObject({ url: expect.stringMatching(/\.mp4$/), mime: 'video/mp4', muted: true, width: 320 })
  })

  it('pdf embeds bytes or a URL at a height', async () => {
    const at = await run((st) => {
      st.pdf(Buffer.from('%PDF-1.4'), { height: 300 })
      st.pdf('/api/report.pdf')
    })
    expect(at.get('pdf').map((p) => p.props)).toEqual([
      { url: expect.stringMatching(/\.pdf$/), height: 300 },
      { url: '/api/report.pdf', height: 500 },
    ])
  })

  it.each([
    ['audio', (st: St) => st.audio('file:///etc/passwd'), /the scheme file: is not allowed here/],
    ['video', (st: St) => st.video('javascript:alert(1)'), /the scheme javascript: is not allowed here/],
    ['pdf data of another kind', (st: St) => st.pdf('data:text/html,<b>x</b>'), /data:application\/pdf/],
    ['audio format', (st: St) => st.audio(Buffer.from('x'), { format: 'wav; x' }), /not a MIME type/],
    ['startTime', (st: St) => st.audio('/a.wav', { startTime: -1 }), /startTime must be a number of seconds/],
    ['pdf height', (st: St) => st.pdf('/a.pdf', { height: 2.5 }), /height must be a whole number/],
  ])('a bad %s is a clear page error', async (_name, page, message) => {
    const at = await run(page)
    expect(at.exception[0]!.props.message).toMatch(message)
  })
})

describe('timeInput', () => {
  it('returns "HH:MM", accepts browser values, refuses bad ones, mirrors the key', async () => {
    let got: unknown
    const at = await run((st) => {
      got = st.timeInput('At', { value: '9:05', key: 't' })
    })
    expect(got).toBe('09:05')
    expect(at.widget('timeInput', 't').props).toMatchObject({ value: '09:05', step: 900 })
    await send(at, 'timeInput', 't', '17:30')
    expect(got).toBe('17:30')
    expect(at.sessionState.t).toBe('17:30')
    for (const bad of ['24:00', '7pm', 1730, null]) {
      await send(at, 'timeInput', 't', bad)
      expect(got, `refuses ${JSON.stringify(bad)}`).toBe('17:30')
    }
  })

  it('value null allows clearing; a Date gives its local time; steps under a minute keep seconds', async () => {
    const values: unknown[] = []
    const at = await run((st) => {
      values.push(st.timeInput('Maybe', { value: null, key: 'm' }), st.timeInput('Exact', { value: new Date(2024, 0, 1, 8, 15, 42), step: 90 }))
    })
    expect(values).toEqual([null, '08:15:42'])
    await send(at, 'timeInput', 'm', '10:00')
    await send(at, 'timeInput', 'm', null)
    expect(at.sessionState.m).toBeNull()
  })

  it('refuses a step outside 60..82800 seconds', async () => {
    const at = await run((st) => void st.timeInput('T', { step: 30 }))
    expect(at.exception[0]!.props.message).toMatch(/step must be whole seconds from 60 to 82800/)
  })
})

describe('colorPicker', () => {
  it('returns lower-case "#rrggbb", expands "#rgb", refuses anything else', async () => {
    let got: unknown
    const at = await run((st) => {
      got = st.colorPicker('C', { value: '#ABC', key: 'c' })
    })
    expect(got).toBe('#aabbcc')
    await send(at, 'colorPicker', 'c', '#FF8800')
    expect(got).toBe('#ff8800')
    for (const bad of ['red', '#ff88001', 'rgb(1,2,3)', 5]) {
      await send(at, 'colorPicker', 'c', bad)
      expect(got).toBe('#ff8800')
    }
    const badDefault = await run((st) => void st.colorPicker('C', { value: 'blue' }))
    expect(badDefault.exception[0]!.props.message).toMatch(/not a hex colour/)
  })
})

describe('selectSlider', () => {
  it('single: returns the option, sends indices', async () => {
    let got: unknown
    const sizes = [{ n: 'S' }, { n: 'M' }, { n: 'L' }]
    const at = await run((st) => {
      got = st.selectSlider('Size', sizes, { value: sizes[1], formatFunc: (s) => s.n, key: 's' })
    })
    expect(got).toEqual({ n: 'M' })
    expect(at.widget('selectSlider', 's').props).toMatchObject({ options: ['S', 'M', 'L'], value: 1 })
    await send(at, 'selectSlider', 's', 2)
    expect(got).toEqual({ n: 'L' })
    await send(at, 'selectSlider', 's', 3)
    await send(at, 'selectSlider', 's', [0, 1])
    expect(got).toEqual({ n: 'L' })
  })

  it('range: a pair of options, ordered; bad pairs are refused', async () => {
    let got: unknown
    const at = await run((st) => {
      got = st.selectSlider('Days', ['Mon', 'Tue', 'Wed', 'Thu'], { value: ['Wed', 'Tue'], key: 'd' })
    })
    expect(got).toEqual(['Tue', 'Wed'])
    expect(at.widget('selectSlider', 'd').props.value).toEqual([1, 2])
    // A reversed pair is not something the browser's two thumbs can send.
    await send(at, 'selectSlider', 'd', [3, 0])
    expect(got).toEqual(['Tue', 'Wed'])
    await send(at, 'selectSlider', 'd', [0, 3])
    expect(got).toEqual(['Mon', 'Thu'])
    await send(at, 'selectSlider', 'd', 2)
    await send(at, 'selectSlider', 'd', [0, 9])
    expect(got).toEqual(['Mon', 'Thu'])
  })

  it('a value that is not an option is a page error; no options too', async () => {
    expect((await run((st) => void st.selectSlider('X', ['a', 'b'], { value: 'c' }))).exception[0]!.props.message).toMatch(/not one of the options/)
    expect((await run((st) => void st.selectSlider('X', []))).exception[0]!.props.message).toMatch(/at least one option/)
  })
})

describe('pills and segmentedControl', () => {
  it('single mode returns one option or null and session state holds the same', async () => {
    let got: unknown = 'unset'
    const at = await run((st) => {
      got = st.segmentedControl('View', ['Day', 'Week'], { default: 'Week', key: 'v' })
    })
    expect(got).toBe('Week')
    expect(at.widget('segmentedControl', 'v').props).toMatchObject({ options: ['Day', 'Week'], selectionMode: 'single', value: [1] })
    await send(at, 'segmentedControl', 'v', [0])
    expect(got).toBe('Day')
    expect(at.sessionState.v).toBe('Day')
    await send(at, 'segmentedControl', 'v', [0, 1])
    expect(got).toBe('Day')
    await send(at, 'segmentedControl', 'v', [])
    expect(got).toBeNull()
  })

  it('multi mode returns the options in option order; duplicates and bad indices are refused', async () => {
    let got: unknown
    const at = await run((st) => {
      got = st.pills('Tags', ['a', 'b', 'c'], { selectionMode: 'multi', default: ['c'], key: 'p' })
    })
    expect(got).toEqual(['c'])
    await send(at, 'pills', 'p', [2, 0, 2])
    expect(got).toEqual(['c'])
    await send(at, 'pills', 'p', [2, 0])
    expect(got).toEqual(['a', 'c'])
    await send(at, 'pills', 'p', [5])
    await send(at, 'pills', 'p', 1)
    expect(got).toEqual(['a', 'c'])
  })

  it('st.sessionState sets the selection before the run', async () => {
    let got: unknown
    const at = await run((st) => {
      got = st.pills('One', ['x', 'y'], { key: 'one' })
    })
    expect(got).toBeNull()
    at.widget('pills', 'one').setValue('y')
    await at.run()
    expect(got).toBe('y')
  })

  it('a bad default or selectionMode is a page error', async () => {
    expect((await run((st) => void st.pills('P', ['a'], { default: 'z' }))).exception[0]!.props.message).toMatch(/default "z" is not one of the options/)
    expect((await run((st) => void st.pills('P', ['a'], { selectionMode: 'many' as 'multi' }))).exception[0]!.props.message).toMatch(/selectionMode must be/)
  })
})

describe('feedback', () => {
  it.each([
    ['thumbs', 2],
    ['faces', 5],
    ['stars', 5],
  ] as const)('%s takes null or an index below %i', async (kind, size) => {
    let got: unknown = 'unset'
    const at = await run((st) => {
      got = st.feedback(kind, { key: 'f' })
    })
    expect(got).toBeNull()
    expect(at.widget('feedback', 'f').props).toMatchObject({ options: kind, value: null, label: '' })
    await send(at, 'feedback', 'f', size - 1)
    expect(got).toBe(size - 1)
    await send(at, 'feedback', 'f', size)
    await send(at, 'feedback', 'f', '1')
    expect(got).toBe(size - 1)
    await send(at, 'feedback', 'f', null)
    expect(got).toBeNull()
  })

  it('refuses an unknown kind or an out-of-range default', async () => {
    expect((await run((st) => void st.feedback('hearts' as 'stars'))).exception[0]!.props.message).toMatch(/choose "thumbs", "faces" or "stars"/)
    expect((await run((st) => void st.feedback('thumbs', { default: 2 }))).exception[0]!.props.message).toMatch(/default must be null or a whole number from 0 to 1/)
  })
})
