import { afterEach, describe, expect, it } from 'vitest'
import type { AddressInfo } from 'node:net'
import { GatewayServer } from '../../../gateway/server.js'
import { RawClient } from '../../helpers/raw-client.js'

/**
 * The gateway's own deadline for a connection's first request head (issue 34.6): it answers what
 * node:http's periodic sweep misses. The sweep is switched off here (`headersTimeout` 0 makes it
 * return at once), so whatever 408 arrives is the backstop's.
 */
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const HEADER_TIMEOUT_MS = 300

async function gatewayWithoutSweep(): Promise<{ port: number; heads: string[] }> {
  const heads: string[] = []
  const gw = new GatewayServer(
    {
      // Never answers: a request whose head arrived is the handler's, not the deadline's.
      handleRequest: (req) => heads.push(req.url ?? ''),
      handleContinue: (req) => heads.push(req.url ?? ''),
      handleUpgrade: (_req, socket) => socket.destroy(),
    },
    { headerTimeoutMs: HEADER_TIMEOUT_MS, keepAliveTimeoutMs: 5_000, maxConnections: 100 },
  )
  await gw.listen({ port: 0, host: '127.0.0.1' })
  gw.server.headersTimeout = 0
  cleanups.push(() => gw.destroy())
  return { port: (gw.server.address() as AddressInfo).port, heads }
}

async function connect(port: number): Promise<RawClient> {
  const c = await new RawClient(port).ready()
  cleanups.push(() => c.socket.destroy())
  return c
}

describe('the gateway’s first-head deadline', () => {
  it('answers a silent connection and a trickling head with 408 JSON when node:http’s sweep does not', async () => {
    const { port } = await gatewayWithoutSweep()
    const silent = await connect(port)
    const slow = await connect(port)
    slow.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n')
    const feed = setInterval(() => slow.socket.write(`X-A-${Date.now()}: 1\r\n`), 100)
    cleanups.push(() => clearInterval(feed))
    await silent.closedWithin(10_000)
    await slow.closedWithin(10_000)
    for (const c of [silent, slow]) {
      expect(c.received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
      expect(JSON.parse(c.received.split('\r\n\r\n')[1]!)).toMatchObject({ error: 'request_timeout', message: expect.stringContaining('gateway_client_header_timeout_s') })
    }
  })

  it('leaves a connection whose head arrived to its handler', async () => {
    const { port, heads } = await gatewayWithoutSweep()
    const busy = await connect(port)
    busy.socket.write('GET /busy HTTP/1.1\r\nHost: x\r\n\r\n')
    const silent = await connect(port)
    // The silent one opened later, so its deadline passes after the busy one's would have.
    await silent.closedWithin(10_000)
    expect(heads).toEqual(['/busy'])
    expect(busy.socket.destroyed).toBe(false)
    expect(busy.received).toBe('')
  })
})
