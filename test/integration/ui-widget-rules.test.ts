import { afterAll, describe, expect, it } from 'vitest'
import { deserialize, serialize } from 'node:v8'
import pino from 'pino'
import { RedisConnection } from '../../src/shared-state/redis-connection.js'
import type { ServerMessage, UiNode } from '../../src/ui/wire/protocol.js'
import { hasRedis, RedisServer } from '../helpers/redis-server.js'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { PageClient, textOf } from '../helpers/ui-sidecar.js'

const APP = `${REPO}test/fixtures/app-widget-rules.ts:app`
type Render = Extract<ServerMessage, { type: 'render' }>

function find(render: Render, type: string, label = ''): UiNode {
  const walk = (nodes: readonly UiNode[]): UiNode | undefined => {
    for (const n of nodes) {
      if (n.type === type && (label === '' || n.props.label === label)) return n
      const inner = walk(n.children ?? [])
      if (inner) return inner
    }
    return undefined
  }
  const node = walk(render.main)
  if (!node) throw new Error(`no ${type} "${label}" in the render`)
  return node
}

async function open(tree: SvcTree, sessionId: string | null = null): Promise<{ client: PageClient; sessionId: string; restored: boolean; render: Render }> {
  const client = await new PageClient(`ws://127.0.0.1:${tree.port}/_stcore/stream`).open()
  client.send({ type: 'hello', sessionId, path: '/', query: '' })
  const session = await client.next('session', 10_000)
  return { client, sessionId: session.sessionId, restored: session.restored, render: await client.render(10_000) }
}

/**
 * Issue #27.3 on a real `svc run` tree: page-socket messages a browser could not send (it never
 * saw the column, the control was disabled, the day does not exist, the value is between steps)
 * are refused by the server; a snapshot read back from Redis is checked the same way.
 */
describe('the page server holds every widget to what it drew', () => {
  afterAll(async () => {
    await stopAllTrees()
  }, 30_000)

  it('refuses raw messages for hidden columns, disabled widgets and values outside the rules', async () => {
    const tree = await startSvc({ target: APP, env: { SVC_UI_COMMAND: undefined } })
    const { client, render } = await open(tree)
    const before = textOf(render)
    expect(before).toContain('users: 1:Ada:user 2:Grace:user')
    expect(before).toContain('deleted: no')
    expect(before).toContain('admin: false due: 2026-02-10 level: 0 tags:  color: red')
    const editor = find(render, 'dataEditor')
    // The browser never received the role column.
    expect((editor.props.columns as { name: string }[]).map((c) => c.name)).toEqual(['id', 'name'])
    const edits = (s: object) => ({ editedRows: {}, addedRows: [], deletedRows: [], ...s })
    const bad: object[] = [
      { id: editor.id, value: edits({ editedRows: { 1: { role: 'admin' } } }) },
      { id: editor.id, value: edits({ addedRows: [{ name: 'Eve', role: 'admin' }] }) },
      { id: editor.id, value: edits({ editedRows: { 2: { id: 1 } } }) },
      { id: find(render, 'button', 'Delete all').id, value: true, trigger: true },
      { id: find(render, 'checkbox', 'Admin').id, value: true },
      { id: find(render, 'dateInput', 'Due').id, value: '2026-02-30' },
      { id: find(render, 'dateInput', 'Due').id, value: '2026-04-01' },
      { id: find(render, 'slider', 'Level').id, value: 35 },
      { id: find(render, 'slider', 'Level').id, value: '30' },
      { id: find(render, 'multiselect', 'Tags').id, value: [0, 0] },
    ]
    for (const m of bad) client.send({ type: 'widget', ...m })
    // Messages are handled in order: a rerun after them shows what (if anything) was taken.
    // (Each refusal is answered by the last render again, with the refused widget's new revision.)
    client.send({ type: 'rerun' })
    const settled = await client.settled(10_000)
    // Each refused widget carries a new revision, so a browser showing the refused value shows the held one again.
    expect(find(settled, 'slider', 'Level').props).toMatchObject({ value: 0, rev: 2 })
    expect(find(settled, 'dateInput', 'Due').props).toMatchObject({ value: '2026-02-10', rev: 2 })
    const after = textOf(settled)
    expect(after).toContain('users: 1:Ada:user 2:Grace:user')
    expect(after).toContain('deleted: no')
    expect(after).toContain('admin: false due: 2026-02-10 level: 0 tags:  color: red')

    // What a browser can send still works.
    client.send({ type: 'widget', id: editor.id, value: edits({ editedRows: { 1: { name: 'Ada L.' } }, addedRows: [{ name: 'Eve' }] }) })
    expect(textOf(await client.settled(10_000))).toContain('users: 1:Ada L.:user 2:Grace:user null:Eve:null')
    client.send({ type: 'widget', id: find(render, 'dateInput', 'Due').id, value: '2026-02-28' })
    client.send({ type: 'widget', id: find(render, 'slider', 'Level').id, value: 30 })
    client.send({ type: 'widget', id: find(render, 'multiselect', 'Tags').id, value: [2, 0] })
    expect(textOf(await client.settled(10_000))).toContain('due: 2026-02-28 level: 30 tags: c,a')
    await client.close()
    await tree.stop()
  }, 60_000)

  it('issue #34: row keys stay unique and unchanged, a slider value off its grid by float error and an over-long chat message are refused', async () => {
    const tree = await startSvc({ target: APP, env: { SVC_UI_COMMAND: undefined } })
    const { client, render } = await open(tree)
    expect(textOf(render)).toContain('stock: k1=1 k2=2')
    const editor = render.main.find((n) => n.type === 'dataEditor' && n.props.key === 'stock')!
    const stockId = editor.id
    expect(editor.props.keyColumn).toBe('id')
    const edits = (s: object) => ({ editedRows: {}, addedRows: [], deletedRows: [], ...s })
    const refusedWith = async (value: object, reason: RegExp): Promise<void> => {
      client.send({ type: 'widget', id: stockId, value })
      const again = await client.render(10_000)
      const node = again.main.find((n) => n.id === stockId)!
      expect(node.props.refused).toMatch(reason)
      expect(textOf(again)).toContain('stock: k1=1 k2=2')
    }
    // The reported repro: k1's key edited to k2, and a row added under k1 (the page got k2,k2,k1).
    await refusedWith(edits({ editedRows: { k1: { id: 'k2' } } }), /^row k1: its key cannot be changed/)
    await refusedWith(edits({ addedRows: [{ id: 'k1', qty: 9 }] }), /^added row 1: the key "k1" is already used by another row/)
    await refusedWith(edits({ addedRows: [{ id: 'k3' }, { id: 'k3' }] }), /^added row 2: the key "k3" is already used/)
    // Deleting k1 does not free its key for an added row in the same edit.
    await refusedWith(edits({ deletedRows: ['k1'], addedRows: [{ id: 'k1' }] }), /already used/)
    await refusedWith(edits({ addedRows: [{ id: true }] }), /^added row 1, column "id": expected text/)
    // What the browser sends for new rows is taken: a new key, and a row without a key yet.
    client.send({ type: 'widget', id: stockId, value: edits({ editedRows: { k1: { qty: 5, id: 'k1' } }, addedRows: [{ id: 'k3', qty: 3 }, { qty: 4 }] }) })
    const took = await client.settled(10_000)
    expect(textOf(took)).toContain('stock: k1=5 k2=2 k3=3 null=4')
    expect(took.main.find((n) => n.id === stockId)!.props.refused).toBeUndefined()

    const level = find(render, 'slider', 'Level').id
    client.send({ type: 'widget', id: level, value: 30.000000000000004 })
    client.send({ type: 'widget', id: level, value: 0.1 + 0.2 })
    client.send({ type: 'rerun' })
    expect(textOf(await client.settled(10_000))).toContain('level: 0 ')
    client.send({ type: 'widget', id: level, value: 30 })
    expect(textOf(await client.settled(10_000))).toContain('level: 30 ')

    // maxChars 5: six code units are refused whole (slicing would have split the emoji).
    const say = find(render, 'chatInput', 'Say').id
    client.send({ type: 'widget', id: say, value: 'abcd😀', trigger: true })
    client.send({ type: 'rerun' })
    expect(textOf(await client.settled(10_000))).toContain('said: null')
    client.send({ type: 'widget', id: say, value: 'abc😀', trigger: true })
    expect(textOf(await client.settled(10_000))).toContain('said: "abc😀"')
    await client.close()
    await tree.stop()
  }, 60_000)

  describe.skipIf(!hasRedis)('with Redis', () => {
    let redis: RedisServer
    let inspect: RedisConnection
    afterAll(async () => {
      await inspect?.destroy()
      await redis?.stop()
    })

    it('a snapshot read back from Redis goes through the same checks: a slider stored as a string starts at its default', async () => {
      redis = await RedisServer.start()
      inspect = new RedisConnection({ url: redis.url, keyPrefix: 'svc:', timeoutMs: 1000, logger: pino({ level: 'silent' }) })
      const env = { SVC_UI_COMMAND: undefined, SVC_REDIS_URL: redis.url }
      const first = await startSvc({ target: APP, env })
      const a = await open(first)
      a.client.send({ type: 'widget', id: find(a.render, 'slider', 'Level').id, value: 30 })
      a.client.send({ type: 'widget', id: find(a.render, 'selectbox', 'Colour').id, value: 1 })
      a.client.send({ type: 'widget', id: find(a.render, 'dateInput', 'Due').id, value: '2026-02-28' })
      await expect.poll(async () => textOf(await a.client.render(10_000)), { timeout: 15_000 }).toContain('due: 2026-02-28 level: 30 tags:  color: green')
      await a.client.close()
      // A graceful stop writes every changed session to Redis.
      await first.stop()
      const key = `page-session:${a.sessionId}`
      const raw = await inspect.get(key)
      expect(raw).not.toBeNull()

      // Tamper with it as anyone with access to Redis could: the slider now holds a string,
      // the keyed selectbox a colour it does not offer.
      const data = deserialize(Buffer.from(raw!, 'base64')) as { v: 1; state: [string, Uint8Array][]; widgets: [string, Uint8Array][] }
      const values = (entries: [string, Uint8Array][]) => entries.map(([k, b]) => [k, deserialize(Buffer.from(b))] as const)
      const slider = values(data.widgets).find(([, v]) => v === 30)
      expect(slider).toBeDefined()
      data.widgets = data.widgets.map(([k, b]) => [k, k === slider![0] ? serialize('30') : b])
      data.state = data.state.map(([k, b]) => [k, k === 'color' ? serialize('purple') : b])
      await inspect.set(key, serialize(data).toString('base64'), 60)

      const second = await startSvc({ target: APP, env })
      const b = await open(second, a.sessionId)
      expect(b.restored).toBe(true)
      // The untouched day comes back; the tampered values start at their defaults.
      expect(textOf(b.render)).toContain('due: 2026-02-28 level: 0 tags:  color: red')
      await b.client.close()
      await second.stop()
    }, 90_000)
  })
})
