import { afterEach, describe, expect, it } from 'vitest'
import net, { type Socket } from 'node:net'
import { once } from 'node:events'
import pino from 'pino'
import { bindPublicPort } from '../../../supervisor/bind.js'
import { ConnectionDispatcher, MAX_IN_FLIGHT, type ConnectionTaker } from '../../../supervisor/connection-dispatch.js'

/**
 * The dispatcher on a real bound port with real client connections; the workers are stand-ins
 * that record what they were handed (the IPC hop is covered by test/integration/worker-balance).
 */
class Taker implements ConnectionTaker {
  phase = 'ready'
  connected = true
  readonly got: Array<{ id: number; socket: Socket }> = []
  #waiters: Array<() => void> = []

  sendConnection(id: number, socket: Socket): boolean {
    if (!this.connected) return false
    this.got.push({ id, socket })
    for (const w of this.#waiters.splice(0)) w()
    return true
  }

  async waitFor(n: number): Promise<void> {
    while (this.got.length < n) await new Promise<void>((r) => this.#waiters.push(r))
  }
}

const logger = pino({ level: 'silent' })
const cleanups: Array<() => void> = []
afterEach(() => {
  for (const c of cleanups.splice(0)) c()
})

async function dispatcherOnPort(): Promise<{ d: ConnectionDispatcher; port: number }> {
  const bound = await bindPublicPort('127.0.0.1', 0)
  const d = new ConnectionDispatcher(bound.handle, logger)
  await d.listen()
  cleanups.push(() => void d.destroy())
  return { d, port: bound.port }
}

async function connect(port: number, send?: string): Promise<Socket> {
  const s = net.connect(port, '127.0.0.1')
  s.on('error', () => {})
  cleanups.push(() => s.destroy())
  await once(s, 'connect')
  if (send) s.write(send)
  return s
}

/** Read from a handed-over (paused) socket until `text` arrived. */
async function readText(socket: Socket, length: number): Promise<string> {
  let got = ''
  socket.setEncoding('utf8')
  socket.resume()
  while (got.length < length) got += String((await once(socket, 'data'))[0])
  return got
}

describe('connection dispatcher', () => {
  it('deals new connections round-robin over the ready workers', async () => {
    const { d, port } = await dispatcherOnPort()
    const a = new Taker()
    const b = new Taker()
    d.join(a)
    d.join(b)
    for (let i = 0; i < 6; i++) await connect(port)
    await a.waitFor(3)
    await b.waitFor(3)
    expect([a.got.length, b.got.length]).toEqual([3, 3])
  })

  it('keeps connections until a ready worker joins (skipping one that drains), the client bytes untouched', async () => {
    const { d, port } = await dispatcherOnPort()
    await connect(port, 'GET / HTTP/1.1\r\n\r\n')
    const draining = new Taker()
    draining.phase = 'draining'
    d.join(draining)
    const b = new Taker()
    d.join(b)
    await b.waitFor(1)
    expect(draining.got).toHaveLength(0)
    expect(await readText(b.got[0]!.socket, 18)).toBe('GET / HTTP/1.1\r\n\r\n')
  })

  it(`skips a worker with ${MAX_IN_FLIGHT} unacknowledged connections; an ack frees a slot`, async () => {
    const { d, port } = await dispatcherOnPort()
    const slow = new Taker()
    d.join(slow)
    for (let i = 0; i < MAX_IN_FLIGHT + 2; i++) await connect(port)
    await slow.waitFor(MAX_IN_FLIGHT)
    const fast = new Taker()
    d.join(fast)
    await fast.waitFor(2)
    expect(slow.got).toHaveLength(MAX_IN_FLIGHT)
    // Both saturated apart from fast's two: the next ones wait for an ack.
    fast.got.forEach((h) => d.acknowledged(fast, h.id, true))
    await connect(port)
    await fast.waitFor(3)
    d.acknowledged(slow, slow.got[0]!.id, true)
    await connect(port)
    await connect(port)
    await slow.waitFor(MAX_IN_FLIGHT + 1)
  })

  it('closes only its own copy once a worker acknowledges', async () => {
    const { d, port } = await dispatcherOnPort()
    const a = new Taker()
    d.join(a)
    const client = await connect(port)
    await a.waitFor(1)
    d.acknowledged(a, a.got[0]!.id, true)
    expect(a.got[0]!.socket.destroyed).toBe(true)
    expect(client.destroyed).toBe(false)
  })

  it('gives the unacknowledged connections of a worker that exits to the next one, bytes intact', async () => {
    const { d, port } = await dispatcherOnPort()
    const a = new Taker()
    const b = new Taker()
    d.join(a)
    d.join(b)
    await connect(port, 'one')
    await connect(port, 'two')
    await connect(port, 'three')
    await a.waitFor(2)
    await b.waitFor(1)
    // a acknowledged its first, then died with the third still unacknowledged.
    d.acknowledged(a, a.got[0]!.id, true)
    a.connected = false
    d.leave(a)
    await b.waitFor(2)
    expect(await readText(b.got[1]!.socket, 5)).toBe('three')
    // It is out of the rotation for good.
    await connect(port)
    await b.waitFor(3)
    expect(a.got).toHaveLength(2)
  })

  it('takes a refusing worker out of the rotation and re-deals what it refused', async () => {
    const { d, port } = await dispatcherOnPort()
    const a = new Taker()
    const b = new Taker()
    d.join(a)
    d.join(b)
    await connect(port, 'x')
    await a.waitFor(1)
    d.acknowledged(a, a.got[0]!.id, false)
    await b.waitFor(1)
    expect(b.got[0]!.id).toBe(a.got[0]!.id)
    await connect(port)
    await b.waitFor(2)
    expect(a.got).toHaveLength(1)
  })

  it('skips a worker whose channel is gone without losing the connection', async () => {
    const { d, port } = await dispatcherOnPort()
    const gone = new Taker()
    gone.connected = false
    const b = new Taker()
    d.join(gone)
    d.join(b)
    await connect(port)
    await connect(port)
    await b.waitFor(2)
  })

  it('on close stops accepting and closes the connections still queued', async () => {
    const { d, port } = await dispatcherOnPort()
    const queued = await connect(port)
    // The dispatcher accepted it (no worker yet): closing ends it.
    const ended = once(queued, 'close')
    queued.resume()
    await new Promise<void>((r) => setImmediate(r))
    await d.close()
    await ended
    const refused = net.connect(port, '127.0.0.1')
    const [err] = (await once(refused, 'error')) as [NodeJS.ErrnoException]
    expect(err.code).toBe('ECONNREFUSED')
  })

  it('keeps the close contract: close twice is one promise; destroy also drops the copies of connections no worker acknowledged', async () => {
    const { d, port } = await dispatcherOnPort()
    const a = new Taker()
    d.join(a)
    const client = await connect(port)
    await a.waitFor(1)
    const closing = d.close()
    expect(d.close()).toBe(closing)
    await closing
    // A drained dispatcher leaves a handed-over connection to its worker.
    expect(a.got[0]!.socket.destroyed).toBe(false)
    const ended = once(client, 'close')
    const destroying = d.destroy(new Error('forced stop'))
    expect(d.destroy()).toBe(destroying)
    await destroying
    expect(a.got[0]!.socket.destroyed).toBe(true)
    await ended
  })
})
