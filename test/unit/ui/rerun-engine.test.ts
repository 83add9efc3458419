import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { createUiTestHandle } from '../../../src/testing/app-test.js'
import { isSvcError } from '../../../src/errors.js'

function app(): Svc {
  return new Svc({ title: 'T', log_level: 'fatal' })
}

describe('rerun engine', () => {
  it('reruns top to bottom; widgets return their value; button is true for one run', async () => {
    const a = app()
    let runs = 0
    a.page('/', (st) => {
      runs++
      st.sessionState.count ??= 0
      const name = st.textInput('Name', { key: 'name' })
      if (st.button('Add', { key: 'add' })) st.sessionState.count += 1
      st.markdown(`Hello ${name || 'nobody'} ${st.sessionState.count}`)
    })
    const at = await createUiTestHandle(a).run()
    expect(at.markdown[0]!.value).toContain('Hello nobody 0')
    at.textInput('name').setValue('Ada')
    await at.button('add').click().run()
    expect(at.markdown[0]!.value).toContain('Hello Ada 1')
    expect(at.button('add').value).toBe(true)
    await at.run()
    expect(at.markdown[0]!.value).toContain('Hello Ada 1')
    expect(at.button('add').value).toBe(false)
    expect(at.sessionState.name).toBe('Ada')
    expect(runs).toBe(3)
  })

  it('runs onChange callbacks before the rerun', async () => {
    const a = app()
    const order: string[] = []
    a.page('/', (st) => {
      order.push('run')
      st.checkbox('On', { key: 'on', onChange: (v) => { order.push(`change:${v}`); st.sessionState.changed = v } })
    })
    const at = await createUiTestHandle(a).run()
    await at.checkbox('on').check().run()
    expect(order).toEqual(['run', 'change:true', 'run'])
    expect(at.sessionState.changed).toBe(true)
  })

  it('duplicate widget identity and duplicate keys are clear SvcErrors', async () => {
    const a = app()
    a.page('/', (st) => {
      st.button('Go')
      st.button('Go')
    })
    const at = await createUiTestHandle(a).run()
    expect(at.exception).toHaveLength(1)
    expect(at.exception[0]!.props.message).toMatch(/unique key/)
    const b = app()
    b.page('/', (st) => {
      st.textInput('A', { key: 'k' })
      st.checkbox('B', { key: 'k' })
    })
    const bt = await createUiTestHandle(b).run()
    expect(bt.exception[0]!.props.message).toMatch(/key "k"/)
  })

  it('drops the state of widgets not rendered in a run', async () => {
    const a = app()
    a.page('/', (st) => {
      if (st.checkbox('Show', { key: 'show', value: true })) st.textInput('Secret', { key: 'secret' })
    })
    const at = await createUiTestHandle(a).run()
    await at.textInput('secret').setValue('x').run()
    expect(at.sessionState.secret).toBe('x')
    await at.checkbox('show').uncheck().run()
    expect('secret' in at.sessionState).toBe(false)
    await at.checkbox('show').check().run()
    expect(at.textInput('secret').value).toBe('')
  })

  it('coalesces: a newer value aborts a running run, which is replaced by one with both values', async () => {
    const a = app()
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const seen: string[] = []
    a.page('/', async (st) => {
      const v = st.textInput('T', { key: 't' })
      const n = st.numberInput('N', { key: 'n' })
      seen.push(`${v}:${n}`)
      if (v === 'slow' && n === 0) await gate
      st.text('done')
    })
    const at = await createUiTestHandle(a).run()
    at.textInput('t').setValue('slow')
    const first = at.run()
    await new Promise((r) => setImmediate(r))
    await new Promise((r) => setImmediate(r))
    at.numberInput('n').setValue(3)
    const second = at.run()
    release()
    await Promise.all([first, second])
    expect(seen).toEqual([':0', 'slow:0', 'slow:3'])
    expect(at.text[0]!.value).toBe('done')
  })

  it("a click's run completes and sees no later input; the later input runs after it", async () => {
    const a = app()
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const seen: string[] = []
    a.page('/', async (st) => {
      const clicked = st.button('Go', { key: 'go' })
      if (clicked) delete st.sessionState.t
      const v = st.textInput('T', { key: 't' })
      seen.push(`${clicked}:${v}`)
      if (clicked) await gate
      st.text('done')
    })
    const at = await createUiTestHandle(a).run()
    at.button('go').click()
    const first = at.run()
    await new Promise((r) => setImmediate(r))
    await new Promise((r) => setImmediate(r))
    // Typed after the click: merged into the click's run, the click's reset would wipe it.
    at.textInput('t').setValue('later')
    const second = at.run()
    release()
    await Promise.all([first, second])
    expect(seen).toEqual(['false:', 'true:', 'false:later'])
    expect(at.textInput('t').value).toBe('later')
    expect(at.text[0]!.value).toBe('done')
  })

  it('two clicks are two runs, each button true once', async () => {
    const a = app()
    let count = 0
    a.page('/', (st) => {
      if (st.button('Add', { key: 'add' })) count++
      st.text(`count ${count}`)
    })
    const at = await createUiTestHandle(a).run()
    const add = { v: 1, type: 'widget', id: at.button('add').id, value: true, trigger: true } as const
    // Both clicks arrive before the first run starts (one socket read): the first send is not awaited.
    const first = at.send(add)
    await at.send(add)
    await first
    expect(at.text[0]!.value).toBe('count 2')
  })

  it('st.rerun, st.stop and st.switchPage', async () => {
    const a = app()
    a.page('/', (st) => {
      st.sessionState.n = (st.sessionState.n ?? 0) + 1
      if (st.sessionState.n < 3) st.rerun()
      st.text(`n=${st.sessionState.n}`)
      if (st.button('Other', { key: 'other' })) st.switchPage('/other')
      st.stop()
      st.text('never')
    })
    a.page('/other', (st) => st.title('Other page'))
    const at = await createUiTestHandle(a).run()
    expect(at.text.map((t) => t.value)).toEqual(['n=3'])
    await at.button('other').click().run()
    expect(at.page?.path).toBe('/other')
    expect(at.title[0]!.value).toBe('Other page')
  })

  it('unknown path renders not-found with links to every page', async () => {
    const a = app()
    a.page('/', (st) => st.title('Home'))
    a.page('/reports', { title: 'Reports', icon: '📊' }, (st) => st.title('R'))
    const at = await createUiTestHandle(a, { target: '/nope' }).run()
    expect(at.notFound).toBe(true)
    expect(at.link.map((l) => l.props.page)).toEqual(['/', '/reports'])
  })

  it('?page= deep links by title, path or slug', async () => {
    const a = app()
    a.page('/', (st) => st.title('Home'))
    a.page('/reports/daily', (st) => st.title('Daily'))
    const at = await createUiTestHandle(a, { queryParams: { page: 'reports/daily', x: '1' } }).run()
    expect(at.page?.path).toBe('/reports/daily')
    expect(at.queryParams.toString()).toBe('x=1')
  })

  it('writing a widget key after the widget exists is refused', async () => {
    const a = app()
    a.page('/', (st) => {
      st.textInput('Name', { key: 'name' })
      st.sessionState.name = 'late'
    })
    const at = await createUiTestHandle(a).run()
    expect(at.exception[0]!.props.message).toMatch(/cannot be changed after the widget/)
    const b = app()
    b.page('/', (st) => {
      st.sessionState.name ??= 'preset'
      st.text(st.textInput('Name', { key: 'name' }))
    })
    const bt = await createUiTestHandle(b).run()
    expect(bt.text[0]!.value).toBe('preset')
  })

  it('isSvcError works on duplicate page registration', () => {
    const a = app()
    a.page('/x', () => {})
    try {
      a.page('/x/', () => {})
      expect.unreachable()
    } catch (e) {
      expect(isSvcError(e)).toBe(true)
    }
  })
})
