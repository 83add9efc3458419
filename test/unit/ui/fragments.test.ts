import { afterEach, describe, expect, it, vi } from 'vitest'
import { Svc } from '../../../src/app.js'
import { createUiTestHandle, type UiTestHandle } from '../../../src/testing/app-test.js'

function app(): Svc {
  return new Svc({ title: 'T', log_level: 'fatal' })
}

/** A message that changes nothing (a page request for no table): the handle answers once the session is idle. */
const settled = (at: UiTestHandle): Promise<UiTestHandle> => at.send({ v: 1, type: 'dataframe_page', id: 'none', page: 0, sort: null })

afterEach(() => {
  vi.useRealTimers()
})

describe('st.fragment', () => {
  it('a widget inside a fragment reruns only the fragment; one outside reruns the page', async () => {
    const a = app()
    let pageRuns = 0
    let fragmentRuns = 0
    a.page('/', (st) => {
      pageRuns++
      st.text(`page ${pageRuns}`)
      const label = st.textInput('Label', { key: 'label', value: 'x' })
      st.fragment((f) => {
        fragmentRuns++
        f.sessionState.clicks ??= 0
        if (f.button('More', { key: 'more' })) f.sessionState.clicks += 1
        f.text(`${label}: ${f.sessionState.clicks}`)
      })
      st.text('after')
    })
    const at = await createUiTestHandle(a).run()
    expect(at.text.map((t) => t.value)).toEqual(['page 1', 'x: 0', 'after'])
    await at.button('more').click().run()
    expect(at.text.map((t) => t.value)).toEqual(['page 1', 'x: 1', 'after'])
    expect([pageRuns, fragmentRuns]).toEqual([1, 2])
    // The wire message of a fragment run is the whole tree (the connection's encoder sends only the fragment).
    expect(at.main.map((e) => e.type)).toEqual(['text', 'textInput', 'fragment', 'text'])
    await at.textInput('label').setValue('y').run()
    expect(at.text.map((t) => t.value)).toEqual(['page 2', 'y: 1', 'after'])
    expect([pageRuns, fragmentRuns]).toEqual([2, 3])
    expect(at.button('more').value).toBe(false)
  })

  it('fragment reruns arrive as browser messages too, and st.rerun() inside reruns the page', async () => {
    const a = app()
    let pageRuns = 0
    a.page('/', (st) => {
      pageRuns++
      st.fragment((f) => {
        if (f.button('Reload all', { key: 'all' })) f.rerun()
        f.checkbox('Flag', { key: 'flag' })
      })
    })
    const at = await createUiTestHandle(a).run()
    await at.send({ v: 1, type: 'widget', id: at.checkbox('flag').id, value: true })
    expect(pageRuns).toBe(1)
    expect(at.checkbox('flag').value).toBe(true)
    await at.send({ v: 1, type: 'widget', id: at.button('all').id, value: true })
    expect(pageRuns).toBe(2)
  })

  it('runEvery reruns the fragment alone on a timer, and the timer stops when the fragment is gone', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const a = app()
    let pageRuns = 0
    let ticks = 0
    let ticked: () => void = () => {}
    a.page('/', (st) => {
      pageRuns++
      const live = st.checkbox('Live', { key: 'live', value: true })
      if (live) {
        st.fragment(
          (f) => {
            ticks++
            f.metric('Ticks', ticks)
            ticked()
          },
          { runEvery: '2s' },
        )
      }
    })
    const at = await createUiTestHandle(a).run()
    expect(at.get('fragment')[0]!.props).toEqual({ runEvery: 2 })
    for (let i = 0; i < 2; i++) {
      const done = new Promise<void>((resolve) => (ticked = resolve))
      vi.advanceTimersByTime(2_000)
      await done
      await settled(at)
    }
    await at.run()
    expect(ticks).toBe(4)
    expect(pageRuns).toBe(2)
    await at.checkbox('live').uncheck().run()
    expect(vi.getTimerCount()).toBe(0)
    vi.advanceTimersByTime(10_000)
    await at.run()
    expect(ticks).toBe(4)
    expect(at.get('fragment')).toHaveLength(0)
  })

  it('a tick reruns the fragment without the page', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const a = app()
    let pageRuns = 0
    let ticks = 0
    let ticked: () => void = () => {}
    a.page('/', (st) => {
      pageRuns++
      st.fragment((f) => {
        ticks++
        f.text(`tick ${ticks}`)
        ticked()
      }, { runEvery: 1 })
    })
    const at = await createUiTestHandle(a).run()
    for (let i = 0; i < 3; i++) {
      const done = new Promise<void>((resolve) => (ticked = resolve))
      vi.advanceTimersByTime(1_000)
      await done
      await settled(at)
    }
    expect(ticks).toBe(4)
    expect(pageRuns).toBe(1)
    expect(at.text[0]!.value).toBe('tick 4')
  })

  it('refuses nested fragments, fragments in forms, sidebar writes and a bad runEvery', async () => {
    const a = app()
    a.page('/nested', (st) => st.fragment((f) => f.fragment(() => {})))
    a.page('/form', (st) => st.form('f').fragment(() => {}))
    a.page('/sidebar', (st) => st.fragment((f) => f.sidebar.text('x')))
    a.page('/every', (st) => st.fragment(() => {}, { runEvery: 'often' }))
    const message = async (target: string): Promise<string> => {
      const at = await createUiTestHandle(a, { target }).run()
      return String(at.exception[0]?.props.message)
    }
    expect(await message('/nested')).toMatch(/cannot be inside another fragment/)
    expect(await message('/form')).toMatch(/cannot be inside form "f"/)
    expect(await message('/sidebar')).toMatch(/st\.sidebar cannot be written from inside st\.fragment/)
    expect(await message('/every')).toMatch(/runEvery "often" is not valid/)
  })

  it('an error inside a fragment rerun is shown inside the fragment, the rest stays', async () => {
    const a = app()
    a.page('/', (st) => {
      st.text('outside')
      st.fragment((f) => {
        if (f.button('Boom', { key: 'boom' })) throw new Error('fragment broke')
        f.text('fine')
      })
    })
    const at = await createUiTestHandle(a).run()
    await at.button('boom').click().run()
    expect(at.text.map((t) => t.value)).toEqual(['outside'])
    const frag = at.get('fragment')[0]!
    expect(frag.children.map((c) => c.type)).toEqual(['button', 'exception'])
    expect(at.exception[0]!.props.message).toBe('fragment broke')
  })
})
