import { afterEach, describe, expect, it } from 'vitest'
import net, { type Socket } from 'node:net'
import { once } from 'node:events'
import { Client } from 'undici'
import { GatewayServer } from '../../../gateway/server.js'

/**
 * `GatewayServer` taking connections handed over instead of listening (several workers): the
 * sockets come from a real loopback accept with `pauseOnConnect`, as in the supervisor.
 */
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** A gateway server fed by a paused-accepting listener; returns the URL clients use. */
async function handedOverServer(handleRequest: ConstructorParameters<typeof GatewayServer>[0]['handleRequest']) {
  const gw = new GatewayServer(
    { handleRequest, handleContinue: handleRequest, handleUpgrade: (_req, socket) => socket.destroy() },
    { headerTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000, maxConnections: 1_000 },
  )
  gw.takeConnections()
  const refused: Socket[] = []
  const acceptor = net.createServer({ pauseOnConnect: true }, (socket) => {
    if (!gw.acceptSocket(socket)) refused.push(socket)
  })
  await new Promise<void>((resolve) => acceptor.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => new Promise((resolve) => acceptor.close(resolve)))
  cleanups.push(() => gw.destroy())
  cleanups.push(() => refused.forEach((s) => s.destroy()))
  return { gw, refused, url: `http://127.0.0.1:${(acceptor.address() as net.AddressInfo).port}` }
}

describe('GatewayServer with handed-over connections', () => {
  it('serves them, reading what the client sent before the handover', async () => {
    const { url } = await handedOverServer((req, res) => res.end(`hello ${req.url}`))
    const client = new Client(url)
    cleanups.push(() => client.close())
    const res = await client.request({ method: 'GET', path: '/x' })
    expect(await res.body.text()).toBe('hello /x')
    expect(res.headers['keep-alive']).toBe('timeout=5')
  })

  it('counts them as open and waits for them in a drain', async () => {
    let release!: () => void
    const { gw, url } = await handedOverServer((_req, res) => {
      release = () => res.end('late')
    })
    const client = new Client(url)
    cleanups.push(() => client.destroy())
    const pending = client.request({ method: 'GET', path: '/' })
    while (!release) await new Promise((r) => setImmediate(r))
    expect(await gw.openConnections()).toBe(1)
    let drained = false
    const drain = gw.close().then(() => (drained = true))
    // Not listening itself, the server closes at once: only the handed-over connection holds the drain.
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
    expect(gw.state).toBe('draining')
    expect(drained).toBe(false)
    release()
    const res = await pending
    expect(await res.body.text()).toBe('late')
    // What the gateway's handler does while draining (Connection: close), done by the client here.
    await client.close()
    await drain
    expect(gw.state).toBe('closed')
  })

  it('ends what is left at the drain’s deadline (node:http connection tracking is on)', async () => {
    const { gw, url } = await handedOverServer(() => {
      // never answers
    })
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1')
    cleanups.push(() => socket.destroy())
    socket.on('error', () => {})
    await once(socket, 'connect')
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n')
    socket.resume()
    while ((await gw.openConnections()) === 0) await new Promise((r) => setImmediate(r))
    const closed = new Promise((resolve) => socket.once('close', resolve))
    // The drain's deadline (the gateway's grace) ends what HTTP still holds.
    const closing = gw.close()
    gw.endHttpConnections()
    await closing
    await closed
  })

  it('refuses new ones once draining, leaving them untouched', async () => {
    const { gw, refused, url } = await handedOverServer((_req, res) => res.end('ok'))
    await gw.close()
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1')
    cleanups.push(() => socket.destroy())
    await once(socket, 'connect')
    while (refused.length === 0) await new Promise((r) => setImmediate(r))
    expect(refused[0]!.destroyed).toBe(false)
  })
})
