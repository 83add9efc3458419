import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { app } from '../../../examples/showcase-plus/app.js'
import { createUiTestHandle } from '../../../src/testing/app-test.js'
import type { ComponentProps, MapProps } from '../../../src/ui/wire/elements.js'
import { buildStarRating } from '../../helpers/example-component.js'

describe('examples/showcase-plus', () => {
  // The page reads the stores from the app's own API: serve it on a loopback port for the page's client.
  const before = process.env.SVC_INTERNAL_API_BASE
  beforeAll(async () => {
    await buildStarRating()
    await app.api.listen({ port: 0, host: '127.0.0.1' })
    process.env.SVC_INTERNAL_API_BASE = `http://127.0.0.1:${(app.api.server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    if (before === undefined) delete process.env.SVC_INTERNAL_API_BASE
    else process.env.SVC_INTERNAL_API_BASE = before
    await app.api.close()
  })

  it('a box selection in the chart filters the metrics and the table and fades the other stores on the map', async () => {
    const at = await createUiTestHandle(app).run()
    expect(at.exception).toEqual([])
    const chart = at.get('plotlyChart')[0]!
    expect(chart.props.figure.data.map((t) => t.name)).toEqual(['North', 'East', 'West', 'South'])
    expect(at.get('metric').map((m) => m.props.value)).toContain('12 of 12')
    const before = at.get('map')[0]!.props as MapProps
    expect(before.lon).toHaveLength(12)
    expect(new Set(before.color)).not.toContain('rgba(148, 163, 184, 0.35)')

    // The first two stores of the North trace, as the browser reports a box around them.
    await at.send({ v: 1, type: 'widget', id: chart.id, value: { points: [[0, 0], [0, 1]], box: [{ xref: 'x', yref: 'y', x: [0, 1e5], y: [0, 1e7] }], lasso: [] } })
    expect(at.get('metric').map((m) => m.props.value)).toContain('2 of 12')
    expect(at.get('dataframe')[0]!.props.totalRows).toBe(2)
    const after = at.get('map')[0]!.props as MapProps
    expect((after.color as string[]).filter((c) => c === 'rgba(148, 163, 184, 0.35)')).toHaveLength(10)
    expect(at.sidebar[0]!.type).toBe('logo')
  })

  it('the star rating gets the selection in its args and its value back; the sidebar shows who is signed in', async () => {
    const at = await createUiTestHandle(app, { user: { sub: 'ada', name: 'Ada Lovelace', email: 'ada@example.com' } }).run()
    expect(at.exception).toEqual([])
    expect(at.sidebar.map((e) => e.type)).toEqual(['logo', 'markdown', 'caption', 'button'])
    expect(at.sidebar[1]!.props).toMatchObject({ html: '<p>Signed in as <strong>Ada Lovelace</strong></p>' })
    const rating = at.get('component')[0]!
    expect(rating.props as ComponentProps).toMatchObject({ name: 'star-rating', args: { max: 5, label: 'Rate the store network' }, value: 0 })
    expect((rating.props as ComponentProps).src).toMatch(/^\/_stcore\/component\/star-rating\/[0-9a-f]{16}\/index\.html$/)
    await at.send({ v: 1, type: 'widget', id: rating.id, value: 4 })
    expect(at.get('caption').map((c) => c.props.html)).toContain('<p>Ada Lovelace rated the store network 4 of 5.</p>')
    // A value the schema refuses (6 of 5 stars) never reaches the page.
    await at.send({ v: 1, type: 'widget', id: rating.id, value: 6 })
    expect(at.get('component')[0]!.props.value).toBe(4)
  })

  it('signed out without an IdP configured, the sidebar says how to turn sign-in on', async () => {
    const at = await createUiTestHandle(app).run()
    expect(at.sidebar[1]!.props).toMatchObject({ html: '<p>Sign-in is off: set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET.</p>' })
  })

  it('the report page: region sparklines side by side, chart cells, LaTeX, Graphviz, an export made on click, a visit filed with a photo', async () => {
    const at = await createUiTestHandle(app, { target: '/report' }).run()
    expect(at.exception).toEqual([])
    expect(at.navPosition).toBe('top')
    expect(at.badge.map((b) => b.props.label)).toEqual(['Demo data', '12 stores', 'Updated monthly'])
    expect(at.get('container').find((c) => c.props.horizontal && c.props.border)!.children.map((m) => (m.props as { label: string }).label)).toEqual(['North', 'East', 'West', 'South'])
    expect(at.metric.slice(0, 4).every((m) => m.props.chart?.kind === 'line')).toBe(true)
    const table = at.dataframe[0]!
    expect(table.props.columns.map((c) => c.type)).toEqual(['text', 'text', 'lineChart', 'number', 'list'])
    await at.send({ v: 1, type: 'widget', id: table.id, value: { rows: ['100'], columns: [], cells: [['103', 'revenue']] } })
    expect(at.caption.map((c) => c.props.html)).toContain("<p>Selected: Hamburg, Berlin's revenue</p>")
    expect(at.latex[0]!.props.body).toContain(String.raw`\frac{\sum_i`)
    expect(at.code[0]!.props.code).toContain('const perVisit =')
    // The echoed code and the metric it draws are both inside the expander.
    expect(at.get('expander')[0]!.children.map((e) => e.type)).toEqual(['code', 'metric'])
    expect(at.graphvizChart[0]!.props.dot).toContain('"North hub" -> "Hamburg"')
    const csv = await at.download('Export the report (CSV)')
    expect(new TextDecoder().decode(csv.bytes).split('\n')).toHaveLength(13)
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0])
    at.widget('cameraInput', 'Shelf photo').setValue({ name: 'photo.jpg', type: 'image/jpeg', bytes: jpeg })
    await at.formSubmitButton('File the visit').click().run()
    expect(at.success[0]!.value).toContain('Visit to Hamburg filed')
    expect(at.get('image')).toHaveLength(1)
  })
})
