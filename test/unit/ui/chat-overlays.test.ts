import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { isSvcError } from '../../../src/errors.js'
import { createUiTestHandle, type UiTestHandle } from '../../../src/testing/app-test.js'
import type { UiNode } from '../../../src/ui/wire/protocol.js'
import type { Dialog, StatusContainer } from '../../../src/ui/st-types.js'

function app(): Svc {
  return new Svc({ title: 'T', log_level: 'fatal' })
}

const widgetMsg = (id: string, value: unknown) => ({ v: 1 as const, type: 'widget' as const, id, value, trigger: true })

function find(nodes: readonly UiNode[], type: string): UiNode[] {
  return nodes.flatMap((n) => [...(n.type === type ? [n] : []), ...find(n.children ?? [], type)])
}

function partialHtml(at: UiTestHandle): string[] {
  return at.messages.flatMap((m) => (m.type === 'render' && m.partial ? find(m.main, 'markdown').map((n) => String(n.props.html)) : []))
}

describe('st.chatMessage, st.chatInput, st.writeStream', () => {
  it('chatInput returns the submitted text in the one run the submit causes, then null; onSubmit runs for a repeated text too', async () => {
    const a = app()
    const seen: (string | null)[] = []
    const submitted: string[] = []
    a.page('/', (st) => {
      seen.push(st.chatInput('Say something', { key: 'say', maxChars: 5, onSubmit: (t) => void submitted.push(t) }))
    })
    const at = await createUiTestHandle(a).run()
    const input = at.widget('chatInput', 'say')
    expect(input.props).toMatchObject({ placeholder: 'Say something', pinned: true, maxChars: 5 })
    // Over maxChars: refused whole, never cut (a cut could split an emoji), as textInput does.
    await at.send(widgetMsg(input.id, 'hello world'))
    await at.send(widgetMsg(input.id, 'hell😀'))
    expect(seen).toEqual([null])
    expect(submitted).toEqual([])
    await at.send(widgetMsg(input.id, 'hello'))
    expect(seen.at(-1)).toBe('hello')
    expect(at.sessionState.say).toBe('hello')
    await at.run()
    expect(seen.at(-1)).toBeNull()
    expect(at.sessionState.say).toBeNull()
    await at.send(widgetMsg(input.id, 'hello'))
    await at.send(widgetMsg(input.id, 'hello'))
    expect(seen.slice(-2)).toEqual(['hello', 'hello'])
    expect(submitted).toEqual(['hello', 'hello', 'hello'])
    await at.send(widgetMsg(input.id, '   '))
    expect(seen.at(-1)).toBe('hello')
    await at.chatInput('say').setValue('via handle').run()
    expect(seen.at(-1)).toBeNull()
    await at.chatInput('say').setValue('via').run()
    expect(seen.at(-1)).toBe('via')
    await at.run()
    expect(at.chatInput('say').value).toBeNull()
  })

  it('a chatInput inside a container is not pinned; inside a form it is refused', async () => {
    const a = app()
    a.page('/', (st) => {
      st.container().chatInput('Inline')
      if (st.sessionState.form) st.form('f').chatInput('In form')
    })
    const at = await createUiTestHandle(a).run()
    expect(at.widget('chatInput', 'Inline').props.pinned).toBe(false)
    at.sessionState.form = true
    await at.run()
    expect(at.exception[0]!.props.message).toMatch(/cannot be used inside form "f"/)
  })

  it('chatMessage is a container per role with avatars: default, text, image URL, bytes', async () => {
    const a = app()
    a.page('/', (st) => {
      st.chatMessage('user').markdown('hi')
      st.chatMessage('ai', { avatar: '🤖' }).markdown('hello')
      st.chatMessage('tool', { avatar: 'https://example.com/a.png' })
      st.chatMessage('human', { avatar: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) })
    })
    const at = await createUiTestHandle(a).run()
    const msgs = at.get('chatMessage')
    expect(msgs.map((m) => [m.props.role, m.props.avatarKind])).toEqual([['user', 'default'], ['assistant', 'text'], ['tool', 'image'], ['user', 'image']])
    expect(msgs[1]!.props.avatar).toBe('🤖')
    expect(msgs[3]!.props.avatar).toMatch(/_stcore\/media\//)
    expect(msgs[0]!.children[0]!.value).toContain('hi')
  })

  it('writeStream inside a chat message sends partial renders while the stream is open and returns the full text', async () => {
    const a = app()
    let result = ''
    let at: UiTestHandle | null = null
    a.page('/', async (st) => {
      async function* slow() {
        yield '**Hello**'
        // The rest only comes once a partial render showed the first piece.
        const deadline = Date.now() + 2000
        while (!partialHtml(at!).some((h) => h.includes('<strong>Hello</strong>'))) {
          if (Date.now() > deadline) throw new Error('no partial render within 2 s')
          await new Promise((r) => setTimeout(r, 10))
        }
        yield ', world'
      }
      result = await st.chatMessage('assistant').writeStream(slow())
    })
    at = createUiTestHandle(a, { timeoutMs: 5000 })
    await at.run()
    expect(result).toBe('**Hello**, world')
    expect(at.get('chatMessage')[0]!.children[0]!.value).toContain('<strong>Hello</strong>, world')
    expect(partialHtml(at).some((h) => h.includes('Hello') && !h.includes('world'))).toBe(true)
  })

  it('a fast stream is sent in throttled partial renders, not one message per chunk', async () => {
    const a = app()
    let elapsed = 0
    a.page('/', async (st) => {
      async function* fast() {
        const start = Date.now()
        for (let i = 0; i < 3000; i++) {
          yield 'x'
          if (i % 10 === 0) await new Promise((r) => setImmediate(r))
        }
        // Long enough for several flushes.
        while (Date.now() - start < 350) await new Promise((r) => setTimeout(r, 20))
        elapsed = Date.now() - start
      }
      await st.writeStream(fast())
    })
    const at = await createUiTestHandle(a, { timeoutMs: 5000 }).run()
    const partials = at.messages.filter((m) => m.type === 'render' && m.partial).length
    expect(partials).toBeGreaterThan(0)
    expect(partials).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 1)
    expect(at.markdown[0]!.value).toBe(`<p>${'x'.repeat(3000)}</p>`)
  })

  it('a replaced run stops reading its stream (the source is closed)', async () => {
    const a = app()
    let pulled = 0
    let closed = false
    a.page('/', async (st) => {
      if (st.sessionState.stop) return
      async function* endless() {
        try {
          for (;;) {
            pulled++
            yield 'x'
            await new Promise((r) => setTimeout(r, 5))
          }
        } finally {
          closed = true
        }
      }
      await st.writeStream(endless())
    })
    const at = createUiTestHandle(a, { timeoutMs: 5000 })
    const first = at.run()
    while (pulled < 3) await new Promise((r) => setTimeout(r, 5))
    at.sessionState.stop = true
    await at.send({ v: 1, type: 'rerun' })
    await first
    const deadline = Date.now() + 2000
    while (!closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    expect(closed).toBe(true)
  })
})

describe('st.dialog, st.popover, st.status', () => {
  it('a dialog opens from a button, reruns with its widgets, closes by close() and by a dismiss', async () => {
    const a = app()
    let dismissed = 0
    a.page('/', async (st) => {
      const dlg: Dialog = await st.dialog('Rename', (d, handle) => {
        const name = d.textInput('Name', { key: 'name' })
        d.text(`preview ${name}`)
        if (d.button('Save', { key: 'save' })) {
          st.sessionState.saved = name
          handle.close()
        }
      }, { onDismiss: () => void dismissed++ })
      st.text(`open: ${dlg.isOpen}`)
      if (st.button('Open', { key: 'open' })) await dlg.open()
    })
    const at = await createUiTestHandle(a).run()
    expect(at.get('dialog')).toHaveLength(0)
    await at.button('open').click().run()
    expect(at.get('dialog')).toHaveLength(1)
    expect(at.get('dialog')[0]!.props).toMatchObject({ title: 'Rename', width: 'medium', dismissible: true })
    at.textInput('name').setValue('Ada')
    await at.run()
    expect(at.get('dialog')).toHaveLength(1)
    expect(at.text.map((t) => t.value)).toContain('preview Ada')
    await at.button('save').click().run()
    expect(at.get('dialog')).toHaveLength(0)
    expect(at.sessionState.saved).toBe('Ada')
    expect(at.text.map((t) => t.value)).toContain('open: false')

    await at.button('open').click().run()
    const id = at.get('dialog')[0]!.id
    await at.send(widgetMsg(id, true))
    expect(at.get('dialog')).toHaveLength(0)
    expect(dismissed).toBe(1)
  })

  it('a widget inside a dialog reruns only the dialog body; close() still reruns the page', async () => {
    const a = app()
    let pageRuns = 0
    let bodyRuns = 0
    a.page('/', async (st) => {
      pageRuns++
      st.text(`page runs ${pageRuns}`)
      const dlg = await st.dialog('Edit', (d, handle) => {
        bodyRuns++
        const qty = d.numberInput('Quantity', { key: 'qty', value: 1 })
        d.text(`total ${qty * 5}`)
        if (d.button('Done', { key: 'done' })) handle.close()
      })
      if (st.button('Edit', { key: 'edit' })) await dlg.open()
    })
    const at = await createUiTestHandle(a).run()
    await at.button('edit').click().run()
    expect([pageRuns, bodyRuns]).toEqual([2, 1])
    at.numberInput('qty').setValue(3)
    await at.run()
    expect(at.text.map((t) => t.value)).toEqual(['page runs 2', 'total 15'])
    expect([pageRuns, bodyRuns]).toEqual([2, 2])
    expect(at.get('dialog')[0]!.children.map((e) => e.type)).toEqual(['numberInput', 'text', 'button'])
    await at.button('done').click().run()
    expect(at.get('dialog')).toHaveLength(0)
    expect(pageRuns).toBe(3)
    expect(at.text.map((t) => t.value)).toEqual(['page runs 3'])
  })

  it('a dialog drawn inside a fragment reruns with that fragment', async () => {
    const a = app()
    let pageRuns = 0
    a.page('/', async (st) => {
      pageRuns++
      await st.fragment(async (f) => {
        const dlg = await f.dialog('Inner', (d) => {
          d.text(`flag ${d.checkbox('Flag', { key: 'flag' })}`)
        })
        await dlg.open()
      })
    })
    const at = await createUiTestHandle(a).run()
    at.checkbox('flag').check()
    await at.run()
    expect(at.text.map((t) => t.value)).toEqual(['flag true'])
    expect(pageRuns).toBe(1)
  })

  it('a fragment inside an open dialog body is refused: the body already reruns on its own', async () => {
    const a = app()
    a.page('/', async (st) => {
      const dlg = await st.dialog('Outer', (d) => {
        d.fragment(() => undefined)
      })
      await dlg.open()
    })
    const at = await createUiTestHandle(a).run()
    expect(at.exception[0]!.props.message).toMatch(/an open dialog body is one too/)
  })

  it('a dialog body must be a function', async () => {
    const a = app()
    a.page('/', async (st) => {
      await st.dialog('Oops', 'not a function' as never)
    })
    const at = await createUiTestHandle(a).run()
    expect(at.exception[0]!.props.message).toMatch(/pass the body as a function/)
  })

  it('popover is a container with its button props', async () => {
    const a = app()
    a.page('/', (st) => {
      st.popover('Filters', { icon: '⚙', help: 'pick' }).checkbox('Paid only', { key: 'paid' })
    })
    const at = await createUiTestHandle(a).run()
    const p = at.get('popover')[0]!
    expect(p.props).toEqual({ label: 'Filters', icon: '⚙', disabled: false, useContainerWidth: false, help: 'pick' })
    expect(p.children[0]!.type).toBe('checkbox')
  })

  it('status: update() changes the header; the callback form turns complete, or error (expanded) and rethrows', async () => {
    const a = app()
    let caught: unknown
    a.page('/', async (st) => {
      const s: StatusContainer = st.status('Manual')
      s.write('step')
      s.update({ label: 'Manual done', state: 'complete', expanded: true })
      const value = await st.status('Auto', async (x) => {
        x.text('working')
        return 42
      })
      st.text(`value ${value}`)
      try {
        await st.status('Failing', () => {
          throw new Error('boom')
        })
      } catch (e) {
        caught = e
      }
    })
    const at = await createUiTestHandle(a).run()
    const [manual, auto, failing] = at.get('status')
    expect(manual!.props).toEqual({ label: 'Manual done', state: 'complete', expanded: true })
    expect(manual!.children).toHaveLength(1)
    expect(auto!.props).toEqual({ label: 'Auto', state: 'complete', expanded: false })
    expect(failing!.props).toEqual({ label: 'Failing', state: 'error', expanded: true })
    expect(at.text.map((t) => t.value)).toContain('value 42')
    expect((caught as Error).message).toBe('boom')
    expect(isSvcError(caught)).toBe(false)
  })
})
