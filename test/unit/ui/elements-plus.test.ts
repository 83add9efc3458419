import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { createUiTestHandle, type UiTestHandle } from '../../../src/testing/app-test.js'
import type { MapProps, PlotlyChartProps } from '../../../src/ui/wire/elements.js'
import type { PlotlySelection, St } from '../../../src/ui/st-types.js'

/** st.map, st.plotlyChart, st.html, st.iframe, st.logo, st.balloons, st.snow: what the page sends and what it accepts back. */

async function run(page: (st: St) => void | Promise<void>) {
  const app = new Svc({ title: 'T', log_level: 'fatal' })
  app.page('/', page)
  return createUiTestHandle(app).run()
}

const errorOf = (at: UiTestHandle) => at.exception[0]?.props.message

describe('st.map', () => {
  it('finds lat/lon columns by their usual names, keeps metres and colours per point, and skips rows without a position', async () => {
    const at = await run((st) => {
      st.map([
        { LAT: 48.85, Longitude: 2.35, r: 500, c: '#ff0000' },
        { LAT: null, Longitude: 4.8, r: 100, c: '#00ff00' },
        { LAT: '45.76', Longitude: 4.83, r: 200, c: [0, 0, 255, 0.5] },
      ], { size: 'r', color: 'c', zoom: 5 })
    })
    expect(at.get('map')[0]!.props).toEqual<MapProps>({
      lon: [2.35, 4.83],
      lat: [48.85, 45.76],
      size: [500, 200],
      color: ['#ff0000', 'rgba(0, 0, 255, 0.5)'],
      zoom: 5,
      height: 400,
      useContainerWidth: true,
      width: null,
    })
  })

  it('takes named columns, one radius and one colour for every point, and Streamlit-style 0-255 alpha', async () => {
    const at = await run((st) => {
      st.map({ y: [1, 2], x: [3, 4] }, { latitude: 'y', longitude: 'x', size: 50, color: [255, 0, 0, 128], height: 200 })
      st.map([{ lat: 0, lon: 0 }], { color: 'steelblue' })
    })
    const [a, b] = at.get('map')
    expect(a!.props).toMatchObject({ lat: [1, 2], lon: [3, 4], size: 50, color: `rgba(255, 0, 0, ${128 / 255})`, zoom: null, height: 200 })
    expect(b!.props).toMatchObject({ size: 100, color: 'steelblue' })
  })

  it.each([
    ['no latitude column', [{ x: 1, lon: 2 }], {}, /no latitude column: name it "lat" or "latitude"/],
    ['a missing named column', [{ lat: 1, lon: 2 }], { longitude: 'lng' }, /longitude column "lng" is not in the data/],
    ['a latitude out of range', [{ lat: 91, lon: 2 }], {}, /row 0: latitude 91 is not a number from -90 to 90/],
    ['a longitude that is text', [{ lat: 1, lon: 'east' }], {}, /row 0: longitude "east" is not a number/],
    ['a negative radius', [{ lat: 1, lon: 2, s: -5 }], { size: 's' }, /row 0: size -5 is not a radius in metres/],
    ['a bad colour', [{ lat: 1, lon: 2 }], { color: 'url(javascript:x)' }, /is neither a column nor a colour/],
    ['a bad colour cell', [{ lat: 1, lon: 2, c: 'not a colour!' }], { color: 'c' }, /row 0: color "not a colour!" is not a colour/],
    ['an unknown option', [{ lat: 1, lon: 2 }], { zoomLevel: 3 }, /option \(options\) Unrecognized key/],
    ['a zoom out of range', [{ lat: 1, lon: 2 }], { zoom: 30 }, /option zoom/],
  ])('%s is a clear page error', async (_name, data, options, message) => {
    const at = await run((st) => st.map(data, options as never))
    expect(errorOf(at)).toMatch(message)
  })
})

const FIGURE = {
  data: [
    { type: 'scatter', x: new Float64Array([1, 2, 3]), y: [10, 20, 30], customdata: ['a', 'b', 'c'] },
    { type: 'bar', x: ['p', 'q'], y: [5, 6] },
  ],
  layout: { title: { text: 'T' }, when: new Date('2026-01-02T00:00:00Z') },
}

describe('st.plotlyChart', () => {
  it('sends the figure as plain JSON with svc defaults; without onSelect it is not a widget and returns nothing', async () => {
    let returned: unknown = 'unset'
    const at = await run((st) => {
      returned = st.plotlyChart(FIGURE, { config: { displayModeBar: false } })
      st.plotlyChart([{ type: 'pie', values: [1, 2] }], { theme: null, height: 300 })
    })
    expect(returned).toBeUndefined()
    const [a, b] = at.get('plotlyChart')
    expect(a!.props).toEqual<PlotlyChartProps>({
      figure: { data: [{ type: 'scatter', x: [1, 2, 3], y: [10, 20, 30], customdata: ['a', 'b', 'c'] }, { type: 'bar', x: ['p', 'q'], y: [5, 6] }], layout: { title: { text: 'T' }, when: '2026-01-02T00:00:00.000Z' }, frames: null },
      config: { displaylogo: false, responsive: true, displayModeBar: false },
      theme: 'svc',
      selectionMode: null,
      selection: { points: [], box: [], lasso: [] },
      height: null,
      useContainerWidth: true,
    })
    expect(b!.props).toMatchObject({ figure: { data: [{ type: 'pie', values: [1, 2] }], layout: {} }, theme: null, height: 300 })
  })

  it('with onSelect the selection comes back with the figure’s own values, runs the callback first, and is kept under the key', async () => {
    const seen: PlotlySelection[] = []
    const got: PlotlySelection[] = []
    const at = await run((st) => {
      got.push(st.plotlyChart(FIGURE, { key: 'fig', onSelect: (s) => void seen.push(s) }))
    })
    const chart = at.get('plotlyChart')[0]!
    expect(chart.props.selectionMode).toEqual(['points', 'box', 'lasso'])
    expect(got.at(-1)).toEqual({ selection: { points: [], pointIndices: [], box: [], lasso: [] } })

    const box = { xref: 'x', yref: 'y', x: [0.5, 2.5], y: [0, 25] }
    await at.send({ v: 1, type: 'widget', id: chart.id, value: { points: [[0, 1], [0, 0], [0, 1]], box: [box], lasso: [] } })
    const expected: PlotlySelection = {
      selection: {
        points: [
          { curveNumber: 0, pointIndex: 0, pointNumber: 0, x: 1, y: 10, customdata: 'a' },
          { curveNumber: 0, pointIndex: 1, pointNumber: 1, x: 2, y: 20, customdata: 'b' },
        ],
        pointIndices: [0, 1],
        box: [box],
        lasso: [],
      },
    }
    expect(seen).toEqual([expected])
    expect(got.at(-1)).toEqual(expected)
    expect(at.get('plotlyChart')[0]!.props.selection).toEqual({ points: [[0, 0], [0, 1]], box: [box], lasso: [] })
    expect(at.sessionState.fig).toEqual({ points: [[0, 0], [0, 1]], box: [box], lasso: [] })
  })

  it('refuses selections the figure cannot hold or the modes do not allow, and keeps the last good one', async () => {
    const got: PlotlySelection[] = []
    const at = await run((st) => {
      got.push(st.plotlyChart(FIGURE, { onSelect: 'rerun', selectionMode: 'points' }))
    })
    const id = at.get('plotlyChart')[0]!.id
    await at.send({ v: 1, type: 'widget', id, value: { points: [[1, 1]], box: [], lasso: [] } })
    const good = got.at(-1)
    expect(good!.selection.points).toEqual([{ curveNumber: 1, pointIndex: 1, pointNumber: 1, x: 'q', y: 6 }])
    for (const bad of [
      { points: [[2, 0]], box: [], lasso: [] },
      { points: [[0, 3]], box: [], lasso: [] },
      { points: [[0, -1]], box: [], lasso: [] },
      { points: [], box: [{ xref: 'x', yref: 'y', x: [0, 1], y: [0, 1] }], lasso: [] },
      { points: [], box: [], lasso: [], extra: 1 },
      'everything',
    ]) {
      const runs = got.length
      await at.send({ v: 1, type: 'widget', id, value: bad })
      expect(got.length, JSON.stringify(bad)).toBe(runs)
    }
    expect(got.at(-1)).toEqual(good)
  })

  it('a selection set in st.sessionState before the chart reaches the chart; one past the figure’s points is dropped', async () => {
    let points = 3
    const at = await run((st) => {
      if (st.sessionState.preset !== true) {
        st.sessionState.fig = { selection: { points: [{ curveNumber: 0, pointIndex: 2 }], box: [], lasso: [] } }
        st.sessionState.preset = true
      }
      const fig = { data: [{ type: 'scatter', x: [1, 2, 3].slice(0, points), y: [1, 2, 3].slice(0, points) }] }
      st.text(JSON.stringify(st.plotlyChart(fig, { key: 'fig', onSelect: 'rerun' }).selection.pointIndices))
    })
    expect(at.text[0]!.value).toBe('[2]')
    points = 2
    await at.run()
    expect(at.text[0]!.value).toBe('[]')
  })

  it.each([
    ['a figure without data', { layout: {} }, {}, /the figure must be \{ data: \[traces\]/],
    ['a trace that is not an object', { data: [1] }, {}, /every trace in figure.data must be an object/],
    ['an unknown option', { data: [] }, { selection_mode: 'box' }, /Unrecognized key/],
    ['a bad theme', { data: [] }, { theme: 'dark' }, /option theme/],
  ])('%s is a clear page error', async (_name, figure, options, message) => {
    const at = await run((st) => void st.plotlyChart(figure as never, options as never))
    expect(errorOf(at)).toMatch(message)
  })

  it('a selectable chart cannot be inside a form', async () => {
    const at = await run((st) => {
      st.form('f').plotlyChart({ data: [] }, { onSelect: 'rerun' })
    })
    expect(errorOf(at)).toMatch(/a chart with onSelect cannot be inside form "f"/)
  })
})

describe('st.html and st.iframe', () => {
  it('html travels as written (the browser sanitizes it); iframes carry their source and size', async () => {
    const at = await run((st) => {
      st.html('<b onclick="x()">hi</b>')
      st.iframe('https://example.com/report', { height: 300, title: 'Report' })
      st.iframe('/api/embed.html')
      st.iframe({ srcdoc: '<p>inline</p>' }, { width: 200, scrolling: true })
    })
    expect(at.get('html')[0]!.value).toBe('<b onclick="x()">hi</b>')
    expect(at.get('iframe').map((f) => f.props)).toEqual([
      { src: 'https://example.com/report', srcdoc: null, height: 300, width: null, title: 'Report', scrolling: false },
      { src: '/api/embed.html', srcdoc: null, height: 150, width: null, title: '/api/embed.html', scrolling: false },
      { src: null, srcdoc: '<p>inline</p>', height: 150, width: 200, title: 'Embedded content', scrolling: true },
    ])
  })

  it.each([
    ['a javascript: URL', 'javascript:alert(1)', /is not an http\(s\) URL or a path of this app/],
    ['a protocol-relative URL', '//evil.example/x', /is not an http\(s\) URL/],
    ['a data: URL', 'data:text/html,<script>alert(1)</script>', /for markup pass \{ srcdoc/],
    ['a file URL', 'file:///etc/passwd', /is not an http\(s\) URL/],
    ['a path that browsers read as another site', '/\t/evil.example/x', /is not an http\(s\) URL or a path of this app/],
    ['a mailto: link', 'mailto:a@example.com', /is not an http\(s\) URL/],
  ])('an iframe with %s is refused', async (_name, src, message) => {
    const at = await run((st) => st.iframe(src))
    expect(errorOf(at)).toMatch(message)
  })

  it('html needs a string', async () => {
    const at = await run((st) => st.html(42 as never))
    expect(errorOf(at)).toMatch(/pass the markup as a string, got number/)
  })
})

describe('st.logo, st.balloons, st.snow', () => {
  it('the logo is the first node of the sidebar; a second call replaces it', async () => {
    const at = await run((st) => {
      st.sidebar.text('first in the sidebar')
      st.logo('https://example.com/a.png')
      st.logo(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), { link: '/about', iconImage: 'data:image/png;base64,AA==', size: 'large', alt: 'Acme' })
    })
    expect(at.sidebar.map((n) => n.type)).toEqual(['logo', 'text'])
    expect(at.sidebar[0]!.props).toEqual({ url: expect.stringMatching(/^\/_stcore\/media\/[0-9a-f]+\.png$/), iconUrl: 'data:image/png;base64,AA==', link: '/about', size: 'large', alt: 'Acme' })
  })

  it.each([
    ['a javascript: image', (st: St) => st.logo('javascript:alert(1)'), /logo\(image\): "javascript:alert\(1\)" cannot be used: the scheme javascript: is not allowed/],
    ['a javascript: link', (st: St) => st.logo('/logo.png', { link: 'java\tscript:alert(1)' }), /logo\(link\): .* cannot be used: the scheme javascript: is not allowed/],
    ['a logo in a fragment', (st: St) => st.fragment((f) => f.logo('/logo.png')), /st.logo\(\) cannot be called from inside st.fragment/],
  ])('%s is a clear page error', async (_name, page, message) => {
    const at = await run(page)
    expect(errorOf(at)).toMatch(message)
  })

  it('balloons and snow are nodes whose nonce changes with every run that calls them', async () => {
    const at = await run((st) => {
      st.balloons()
      st.snow()
    })
    const first = at.get('balloons')[0]!.props.nonce
    expect(at.get('snow')[0]!.props.nonce).toBe(first)
    await at.run()
    expect(at.get('balloons')[0]!.props.nonce).not.toBe(first)
  })
})

describe('st.columns and st.tabs', () => {
  it('return one container per column or tab, for a count, weights or labels', async () => {
    const at = await run((st) => {
      const [a, b, c] = st.columns(3)
      const [wide, narrow] = st.columns([3, 1])
      const [one, two] = st.tabs(['One', 'Two'])
      for (const [i, box] of [a, b, c, wide, narrow, one, two].entries()) box.text(String(i))
    })
    expect(at.get('column')).toHaveLength(5)
    expect(at.get('tab').map((t) => t.children.map((c) => c.value))).toEqual([['5'], ['6']])
  })
})
