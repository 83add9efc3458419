import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import type { ClientMessage, WireServerMessage } from '../../../src/ui/wire/protocol.js'
import { PageSnapshots, type SnapshotBackend } from '../../../src/ui/server/session-snapshots.js'
import { localSessions } from '../../helpers/page-server-parts.js'

/**
 * Write-through of page-session snapshots (issue #22.6): the final render of a run reaches the
 * socket only after the snapshot with that run's state is written. The backend here holds each
 * write until the test releases it; the real Redis path is covered by
 * test/e2e/session-write-through.test.ts.
 */
class HeldBackend implements SnapshotBackend {
  readonly values = new Map<string, string>()
  readonly pending: { key: string; value: string; done: () => void; fail: (err: Error) => void }[] = []
  set(key: string, value: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({
        key,
        value,
        done: () => {
          this.values.set(key, value)
          resolve()
        },
        fail: reject,
      })
    })
  }
  async get(key: string): Promise<string | null> {
    return this.values.get(key) ?? null
  }
  async expire(): Promise<void> {}
  async del(key: string): Promise<void> {
    this.values.delete(key)
  }
}

const logger = pino({ level: 'silent' })
/** A client message as the socket delivers it. */
const wire = (m: ClientMessage): Uint8Array => new TextEncoder().encode(JSON.stringify(m))
const context = Object.freeze({ headers: Object.freeze({}), cookies: Object.freeze({}), requestId: 'wt-1' })

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setImmediate(r))
  }
}

async function counterSession(backend: SnapshotBackend) {
  const app = new Svc({ log_level: 'fatal' })
  app.page('/', (st) => {
    st.sessionState.count ??= 0
    if (st.button('Add', { key: 'add' })) st.sessionState.count = (st.sessionState.count as number) + 1
    st.text(`count: ${String(st.sessionState.count)}`)
  })
  const host = localSessions(app, new PageSnapshots({ backend, ttlSeconds: 60, logger }), logger)
  const sent: WireServerMessage[] = []
  const bound = await host.open({ requestedId: null, path: '/', query: '' }, context, {
    send: (m) => sent.push((typeof m === 'string' ? JSON.parse(m) : m) as WireServerMessage),
    close: () => undefined,
    unbind: () => undefined,
  })
  const finals = () => sent.filter((m) => m.type === 'render' && m.partial !== true)
  /** The button's id, from the first (complete) render. */
  const buttonId = (): string => {
    const first = finals()[0] as Extract<WireServerMessage, { type: 'render' }>
    return (first.main.find((n) => 'type' in n && n.type === 'button') as { id: string }).id
  }
  const click = (): void => bound.handle(wire({ v: 1, type: 'widget', id: buttonId(), value: true, trigger: true }), () => undefined)
  return { host, bound, sent, finals, click }
}

describe('page-session snapshots are written through', () => {
  it('a run’s result leaves only once its state is written; what follows waits behind it, in order', async () => {
    const backend = new HeldBackend()
    const s = await counterSession(backend)
    await until(() => backend.pending.length === 1, 'the first snapshot write')
    expect(s.finals()).toHaveLength(0)
    expect(s.sent.map((m) => m.type)).toEqual(['session', 'run_state'])
    backend.pending.shift()!.done()
    await until(() => s.finals().length === 1, 'the first render')
    expect(s.sent.map((m) => m.type)).toEqual(['session', 'run_state', 'render', 'run_state'])

    s.click()
    await until(() => backend.pending.length === 1, 'the write of the click')
    const write = backend.pending[0]!
    expect(Buffer.from(write.value, 'base64').includes(Buffer.from('count'))).toBe(true)
    await new Promise((r) => setTimeout(r, 20))
    expect(s.finals()).toHaveLength(1)
    write.done()
    await until(() => s.finals().length === 2, 'the render of the click')
    expect(backend.values.get(`page-session:${s.bound.id}`)).toBe(write.value)
    expect(s.sent.at(-1)).toMatchObject({ type: 'run_state', running: false })
    await s.host.close()
  })

  it('a run that changed nothing waits for nothing', async () => {
    const backend = new HeldBackend()
    const s = await counterSession(backend)
    await until(() => backend.pending.length === 1, 'the first snapshot write')
    backend.pending.shift()!.done()
    await until(() => s.finals().length === 1, 'the first render')
    s.bound.handle(wire({ v: 1, type: 'rerun' }), () => undefined)
    await until(() => s.finals().length === 2, 'the rerun')
    expect(backend.pending).toHaveLength(0)
    await s.host.close()
  })

  it('a failed write lets the result through; while writes fail, results do not wait for them', async () => {
    const backend = new HeldBackend()
    const s = await counterSession(backend)
    await until(() => backend.pending.length === 1, 'the first snapshot write')
    backend.pending.shift()!.fail(new Error('redis away'))
    await until(() => s.finals().length === 1, 'the first render')
    s.click()
    await until(() => s.finals().length === 2, 'the click rendered without waiting')
    expect(backend.pending).toHaveLength(1)
    backend.pending.shift()!.done()
    s.click()
    await until(() => backend.pending.length === 1, 'the next write')
    await new Promise((r) => setTimeout(r, 20))
    expect(s.finals()).toHaveLength(2)
    backend.pending.shift()!.done()
    await until(() => s.finals().length === 3, 'the render after recovery')
    await s.host.close()
  })
})
