import { afterAll, describe, expect, it } from 'vitest'
import { setTimeout as delay } from 'node:timers/promises'
import { RawClient } from '../helpers/raw-client.js'
import { startSvc, stopAllTrees } from '../helpers/svc-process.js'

/**
 * Issue 34.6 on real `svc run` trees (echo sidecar), one gateway worker and two (connections handed
 * over by the supervisor): the probe's hostile sequence first (malformed and refused upgrades,
 * 100-continue, client forwarding headers, OAuth values in the query, a 100 kB header, a
 * duplicate Host, a pipeline, uploads sent a byte at a time), then five connections that send
 * nothing and five whose head trickles in. Each of the ten gets its 408 and is closed within a
 * few seconds of the header timeout, whatever came before.
 */
const HEADER_TIMEOUT_S = 2
const UPLOADS = 40
const WS = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n'

/** Connections of the sequence that stay open while the ten are timed; closed in teardown. */
const held: RawClient[] = []
afterAll(async () => {
  for (const c of held) c.socket.destroy()
  await stopAllTrees()
})

async function hostileSequence(port: number): Promise<void> {
  const brief = async (text: string): Promise<void> => {
    const c = await new RawClient(port).ready()
    c.write(text)
    // Whatever the answer, the sequence goes on once it came or the connection closed.
    await c.waitFor(/HTTP\/1\.1 \d{3}/, 3_000).catch(() => undefined)
    c.socket.destroy()
  }
  await brief(`GET /ws HTTP/1.1\r\nHost: x\r\n${WS}Sec-WebSocket-Protocol: a, a, \r\n\r\n`)
  await brief(`GET /ws HTTP/1.1\r\nHost: x\r\n${WS}Sec-WebSocket-Protocol: "bad"\r\n\r\n`)
  await brief(`GET /ws HTTP/1.1\r\nHost: x\r\n${WS}\r\n` + Buffer.from([0x01, 0x85, 1, 2, 3, 4, 0x41]).toString('latin1'))
  await brief(`GET /refuse-upgrade HTTP/1.1\r\nHost: x\r\n${WS}\r\n`)
  await brief('POST /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n')
  await brief('GET /x HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 1.2.3.4\r\nForwarded: for=1.2.3.4\r\nX-Forwarded-Host: evil\r\n\r\n')
  await brief('GET /cb?code=abc&state=xyz&access_token=t HTTP/1.1\r\nHost: x\r\n\r\n')
  await brief(`GET /big HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`)
  await brief('GET /dup HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n')
  const open = async (text: string): Promise<RawClient> => {
    const c = await new RawClient(port).ready()
    c.write(text)
    held.push(c)
    return c
  }
  await open('GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n')
  await open('GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: x\r\n')
  const uploads = await Promise.all(Array.from({ length: UPLOADS }, (_, i) => open(`POST /upload/${i} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n`)))
  for (let s = 0; s < 3; s++) {
    for (const c of uploads) c.write('a')
    // A byte a second is what the sequence is (a slow client), not a wait for something.
    await delay(1_000)
  }
}

describe.each([1, 2])('the header timeout after a hostile sequence (%i gateway worker(s))', (workers) => {
  it('answers five silent and five trickling connections with 408 and closes them', async () => {
    const svc = await startSvc({
      env: { SVC_WORKERS: String(workers), SVC_GATEWAY_CLIENT_HEADER_TIMEOUT_S: String(HEADER_TIMEOUT_S), SVC_GATEWAY_CLIENT_BODY_TIMEOUT_S: '30' },
    })
    await hostileSequence(svc.port)
    const silent = await Promise.all(Array.from({ length: 5 }, () => new RawClient(svc.port).ready()))
    const slow = await Promise.all(Array.from({ length: 5 }, () => new RawClient(svc.port).ready()))
    for (const c of slow) c.write('GET /slow HTTP/1.1\r\nHost: x\r\n')
    const feed = setInterval(() => slow.forEach((c) => c.write(`X-A-${Date.now()}: 1\r\n`)), 500)
    try {
      const closedAfter = await Promise.all([...silent, ...slow].map((c) => c.closedWithin((HEADER_TIMEOUT_S + 5) * 1_000)))
      for (const ms of closedAfter) expect(ms).toBeGreaterThanOrEqual(HEADER_TIMEOUT_S * 1_000 - 100)
    } finally {
      clearInterval(feed)
    }
    for (const c of [...silent, ...slow]) expect(c.received).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*"error":"request_timeout"/)
    await svc.stop()
  }, 90_000)
})
