import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Readable } from 'node:stream'
import { connect } from 'node:net'
import { once } from 'node:events'
import { request } from 'undici'
import { startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'

describe('HTTP proxy: streaming, limits, upstream failures', () => {
  let svc: SvcTree
  beforeAll(async () => {
    svc = await startSvc({
      env: { SVC_GATEWAY_MAX_PROXY_REQUEST_BODY_BYTES: '1024', SVC_GATEWAY_UPSTREAM_READ_TIMEOUT_S: '1' },
    })
  })
  afterAll(stopAllTrees)

  const upstreamCount = async (): Promise<number> => {
    const res = await request(svc.url + '/__count')
    return ((await res.body.json()) as { requests: number }).requests
  }

  it('streams server-sent events chunk by chunk (not buffered)', async () => {
    const res = await request(svc.url + '/sse')
    expect(res.headers['content-type']).toBe('text/event-stream')
    const reads: string[] = []
    for await (const chunk of res.body) reads.push(chunk.toString())
    expect(reads.join('')).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\n')
    // Three events 100 ms apart arrive as at least two separate reads, the first one before the
    // last event was sent (a buffering proxy delivers them in one read at the end). Timestamps
    // would not do: on a loaded machine the first read can itself come late.
    expect(reads.length).toBeGreaterThanOrEqual(2)
    expect(reads[0]).not.toContain('data: 2')
  })

  it('refuses a declared body over the limit with 413 before contacting the upstream', async () => {
    const before = await upstreamCount()
    const res = await request(svc.url + '/upload', { method: 'POST', body: Buffer.alloc(4096, 1) })
    expect(res.statusCode).toBe(413)
    expect(await res.body.json()).toMatchObject({ error: 'payload_too_large', request_id: expect.any(String) })
    expect(await upstreamCount()).toBe(before + 1) // only the count request itself
  })

  it('refuses a chunked body once the streamed bytes pass the limit', async () => {
    async function* chunks() {
      for (let i = 0; i < 8; i++) yield Buffer.alloc(512, 2)
    }
    const res = await request(svc.url + '/upload', { method: 'POST', body: Readable.from(chunks()) })
    expect(res.statusCode).toBe(413)
    await res.body.dump()
  })

  it('lets a client that is still uploading read the 413 (declared and chunked bodies of 4 MiB)', async () => {
    const big = Buffer.alloc(4 * 1024 * 1024, 3)
    const declared = await request(svc.url + '/upload', { method: 'POST', body: big })
    expect(declared.statusCode).toBe(413)
    await declared.body.dump()
    async function* chunks() {
      for (let i = 0; i < 64; i++) yield big.subarray(i * 65536, (i + 1) * 65536)
    }
    const chunked = await request(svc.url + '/upload', { method: 'POST', body: Readable.from(chunks()) })
    expect(chunked.statusCode).toBe(413)
    await chunked.body.dump()
  })

  it('closes the connection of a refused body that never ends, after answering 413', async () => {
    const socket = connect(Number(new URL(svc.url).port), '127.0.0.1')
    await once(socket, 'connect')
    socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n')
    let received = ''
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')))
    const chunk = `800\r\n${'a'.repeat(0x800)}\r\n`
    const feeder = setInterval(() => socket.writable && socket.write(chunk), 20)
    socket.on('error', () => {})
    try {
      await once(socket, 'close')
    } finally {
      clearInterval(feeder)
    }
    expect(received).toMatch(/^HTTP\/1\.1 413 /)
  })

  it('passes a body within the limit and never applies the limit to the API', async () => {
    const small = await request(svc.url + '/upload', { method: 'POST', body: Buffer.alloc(1000, 1) })
    expect(((await small.body.json()) as { bodyBytes: number }).bodyBytes).toBe(1000)
    const api = await request(svc.url + '/api/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ big: 'x'.repeat(4000) }),
    })
    expect(api.statusCode).toBe(200)
    await api.body.dump()
  })

  it('answers 502 JSON when the upstream drops the connection', async () => {
    const res = await request(svc.url + '/hangup')
    expect(res.statusCode).toBe(502)
    expect(await res.body.json()).toMatchObject({ error: 'bad_gateway', request_id: res.headers['x-request-id'] })
  })

  it('answers 502 when the upstream is slower than the read timeout', async () => {
    const res = await request(svc.url + '/slow?ms=3000')
    expect(res.statusCode).toBe(502)
    expect(((await res.body.json()) as { message: string }).message).toMatch(/did not answer in time/)
  })
})
