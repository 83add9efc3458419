import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ApiClient } from '../../../src/client/api-client.js'
import { isSvcError } from '../../../src/errors.js'
import { streamText } from '../../../src/ui/st/stream.js'
import type { StreamSource } from '../../../src/ui/st-types.js'

async function collect(source: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = []
  for await (const piece of source) out.push(piece)
  return out
}

function byteStream(chunks: (string | Uint8Array)[], onCancel?: () => void): ReadableStream<Uint8Array> {
  const enc = new TextEncoder()
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === 'string' ? enc.encode(c) : c)
      controller.close()
    },
    cancel: onCancel,
  })
}

describe('st.writeStream sources', () => {
  let closeServer: (() => Promise<void>) | null = null
  afterEach(async () => {
    await closeServer?.()
    closeServer = null
  })

  it('passes the strings of an async iterable and of a sync iterable through, in order', async () => {
    async function* gen() {
      yield 'Hel'
      yield 'lo'
      yield ', world'
    }
    expect(await collect(streamText(gen()))).toEqual(['Hel', 'lo', ', world'])
    expect(await collect(streamText(['a', 'b']))).toEqual(['a', 'b'])
  })

  it('decodes a ReadableStream of bytes across a multi-byte character split between chunks', async () => {
    const euro = new TextEncoder().encode('€') // 3 bytes
    const stream = byteStream([new Uint8Array([0x61, euro[0]!]), new Uint8Array([euro[1]!, euro[2]!, 0x62])])
    expect((await collect(streamText(stream))).join('')).toBe('a€b')
  })

  it('reads a ReadableStream of strings', async () => {
    const stream = new ReadableStream<string>({
      start(c) {
        c.enqueue('one ')
        c.enqueue('two')
        c.close()
      },
    })
    expect(await collect(streamText(stream))).toEqual(['one ', 'two'])
  })

  it('parses a text/event-stream response: data lines per event, multi-line data, comments, CRLF split across chunks, [DONE]', async () => {
    const body = byteStream([': keep-alive\n\n', 'data: Hello\r', '\n\r\ndata:  world\n\n', 'event: x\ndata: line 1\ndata: line 2\n\n', 'data: [DONE]\n\n'])
    const res = new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8' } })
    expect(await collect(streamText(res))).toEqual(['Hello', ' world', 'line 1\nline 2'])
  })

  it('delivers the last event of a stream that ends without the blank line', async () => {
    const res = new Response(byteStream(['data: a\n\ndata: b']), { headers: { 'content-type': 'text/event-stream' } })
    expect(await collect(streamText(res))).toEqual(['a', 'b'])
  })

  it('takes a plain-text response as text even when it starts like an event stream, and sniffs a bare body', async () => {
    const plain = new Response(byteStream(['data: not an event\n\n']), { headers: { 'content-type': 'text/plain' } })
    expect((await collect(streamText(plain))).join('')).toBe('data: not an event\n\n')
    expect(await collect(streamText(byteStream(['data: x\n\n', 'data: y\n\n'])))).toEqual(['x', 'y'])
    expect((await collect(streamText(byteStream(['just text'])))).join('')).toBe('just text')
    expect(await collect(streamText(byteStream(['data: x\n\n']), 'text'))).toEqual(['data: x\n\n'])
  })

  it('cancels the source when the reader stops early (a replaced run)', async () => {
    let cancelled = false
    const stream = byteStream(['a', 'b', 'c'], () => {
      cancelled = true
    })
    for await (const piece of streamText(stream, 'text')) {
      expect(piece).toBe('a')
      break
    }
    expect(cancelled).toBe(true)
  })

  it('refuses a source or a chunk it cannot stream with a coded error naming the fix', async () => {
    let err: unknown
    try {
      streamText(42 as unknown as StreamSource)
    } catch (e) {
      err = e
    }
    expect(isSvcError(err) && err.code).toBe('SVC_ERR_UI_BAD_CALL')
    expect((err as Error).message).toMatch(/async iterable of strings/)
    async function* numbers() {
      yield 1
    }
    await expect(collect(streamText(numbers() as unknown as StreamSource))).rejects.toThrow(/yield strings/)
  })

  it('yields the first event of a real HTTP SSE response before the server has sent the rest', async () => {
    let res: ServerResponse | null = null
    const server = createServer((_req, r) => {
      res = r
      r.writeHead(200, { 'content-type': 'text/event-stream' })
      r.write('data: first\n\n')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    closeServer = () => new Promise((resolve) => server.close(() => resolve()))
    const { port } = server.address() as AddressInfo
    const response = await fetch(`http://127.0.0.1:${port}/`)
    const pieces: string[] = []
    for await (const piece of streamText(response)) {
      pieces.push(piece)
      // The server only sends the rest once the first event was seen here.
      if (pieces.length === 1) {
        res!.write('data: second\n\n')
        res!.end()
      }
    }
    expect(pieces).toEqual(['first', 'second'])
  })

  it("reads an API client response's body as it arrives", async () => {
    let res: ServerResponse | null = null
    const server = createServer((req, r) => {
      res = r
      r.writeHead(200, { 'content-type': 'text/event-stream' })
      r.write(`data: ${req.url}\n\n`)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    closeServer = () => new Promise((resolve) => server.close(() => resolve()))
    const { port } = server.address() as AddressInfo
    const client = new ApiClient({ baseUrl: `http://127.0.0.1:${port}/api` })
    const pieces: string[] = []
    for await (const piece of streamText(await client.get('/chat', { query: { q: 'hi' } }))) {
      pieces.push(piece)
      if (pieces.length === 1) res!.end('data: done\n\n')
    }
    expect(pieces).toEqual(['/api/chat?q=hi', 'done'])
  })
})
