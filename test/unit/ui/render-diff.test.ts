import { describe, expect, it } from 'vitest'
import { RenderDecoder } from '../../../src/ui/client/patch.js'
import type { ServerMessage, UiNode, WireNode } from '../../../src/ui/wire/protocol.js'
import { RenderEncoder } from '../../../src/ui/server/render-diff.js'
import { Svc } from '../../../src/app.js'
import { createUiTestHandle } from '../../../src/testing/app-test.js'

type Render = Extract<ServerMessage, { type: 'render' }>

/** Deterministic PRNG (mulberry32) so a failing tree can be reproduced from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const TYPES = ['text', 'markdown', 'slider', 'container', 'columns', 'dataframe']

function randomTree(r: () => number, prefix: string, depth: number): UiNode[] {
  const n = Math.floor(r() * 5)
  return Array.from({ length: n }, (_, i) => {
    const type = TYPES[Math.floor(r() * TYPES.length)]!
    // Few distinct ids and values: the next tree often reuses ids with equal or changed content.
    const id = r() < 0.2 ? `$$w-${Math.floor(r() * 4)}` : `${prefix}.${i}`
    const node: UiNode = { id, type, props: { v: Math.floor(r() * 3), rows: r() < 0.3 ? [[1, 'a'], [2, 'b']] : [] } }
    if (depth > 0 && r() < 0.5) node.children = randomTree(r, id, depth - 1)
    if (r() < 0.1) node.stale = true
    return node
  })
}

function render(main: UiNode[], sidebar: UiNode[] = []): Render {
  return { v: 1, type: 'render', runId: 1, page: { path: '/', title: 'T', icon: null, layout: 'centered', breadcrumb: null }, nav: [], main, sidebar, query: '' }
}

function roundTrip(enc: RenderEncoder, dec: RenderDecoder, msg: Render): { wire: string; decoded: Render } {
  const wire = enc.encode(msg)
  return { wire, decoded: dec.decode(JSON.parse(wire) as never) as Render }
}

describe('render diff', () => {
  it('decode(encode(next)) equals next for sequences of random trees', () => {
    for (let seed = 1; seed <= 150; seed++) {
      const r = rng(seed)
      const enc = new RenderEncoder()
      const dec = new RenderDecoder()
      for (let step = 0; step < 6; step++) {
        const msg = render(randomTree(r, 'm', 3), randomTree(r, 's', 2))
        const { decoded } = roundTrip(enc, dec, structuredClone(msg))
        expect(decoded, `seed ${seed} step ${step}`).toEqual(msg)
      }
    }
  })

  it('sends an unchanged big table as a reference and only the changed node in full', () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ id: i, name: `row ${i}` }))
    const page = (n: number): UiNode[] => [
      { id: '$$w-slider', type: 'slider', props: { value: n } },
      { id: 'm.1', type: 'table', props: { rows } },
      { id: 'm.2', type: 'container', props: {}, children: [{ id: 'm.2.0', type: 'text', props: { text: 'same' } }, { id: 'm.2.1', type: 'text', props: { text: `n=${n}` } }] },
    ]
    const enc = new RenderEncoder()
    const dec = new RenderDecoder()
    const first = roundTrip(enc, dec, render(page(1)))
    expect(first.wire.length).toBeGreaterThan(200_000)
    const second = roundTrip(enc, dec, render(page(2)))
    expect(second.decoded).toEqual(render(page(2)))
    expect(second.wire.length).toBeLessThan(600)
    const main = (JSON.parse(second.wire) as { main: WireNode[] }).main
    expect(main[1]).toEqual({ id: 'm.1', same: true })
    expect(main[2]).toEqual({ id: 'm.2', type: 'container', sameProps: true, children: [{ id: 'm.2.0', same: true }, { id: 'm.2.1', type: 'text', props: { text: 'n=2' } }] })
  })

  it('a stale mark and a changed type are sent, an id seen twice is never referenced', () => {
    const enc = new RenderEncoder()
    const dec = new RenderDecoder()
    const twice: UiNode[] = [{ id: 'x', type: 'text', props: { text: 'a' } }, { id: 'x', type: 'text', props: { text: 'b' } }]
    roundTrip(enc, dec, render(twice))
    const again = roundTrip(enc, dec, render(structuredClone(twice)))
    expect(again.decoded.main).toEqual(twice)
    expect(again.wire).not.toContain('"same"')
    const stale = roundTrip(enc, dec, render([{ id: 'x', type: 'text', props: { text: 'b' }, stale: true }]))
    expect(stale.decoded.main).toEqual([{ id: 'x', type: 'text', props: { text: 'b' }, stale: true }])
    const retyped = roundTrip(enc, dec, render([{ id: 'x', type: 'markdown', props: { text: 'b' } }]))
    expect(retyped.decoded.main).toEqual([{ id: 'x', type: 'markdown', props: { text: 'b' } }])
  })

  it('a new encoder (a new connection) sends everything in full', () => {
    const tree: UiNode[] = [{ id: 'm.0', type: 'text', props: { text: 'hi' } }]
    const enc = new RenderEncoder()
    enc.encode(render(tree))
    expect(new RenderEncoder().encode(render(tree))).not.toContain('"same"')
  })

  it('a page run that only moved a slider sends the dataframe as a reference', async () => {
    const app = new Svc({ title: 'T', log_level: 'fatal' })
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ id: i, name: `row-${i}` }))
    app.page('/', (st) => {
      const n = st.slider('N', { key: 'n', min: 0, max: 10 })
      st.text(`n=${n}`)
      st.dataframe(rows, { key: 'orders' })
    })
    const at = await createUiTestHandle(app).run()
    await at.slider('n').setValue(3).run()
    const enc = new RenderEncoder()
    const frames = at.messages.filter((m) => m.type === 'render').map((m) => enc.encode(m))
    expect(frames).toHaveLength(2)
    expect(frames[0]).toContain('row-24')
    expect(frames[1]).not.toContain('row-')
    expect(frames[1]).toContain('{"id":"df-orders","same":true}')
  })
})
