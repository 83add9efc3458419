import { afterEach, describe, expect, it } from 'vitest'
import { createServer, request, type IncomingMessage, type Server } from 'node:http'
import { once } from 'node:events'
import { randomBytes } from 'node:crypto'
import type { Readable } from 'node:stream'
import { DiskBudget, RequestBody } from '../../../gateway/request-body.js'

/** RequestBody against real HTTP requests on loopback: memory, temporary file, limits, failures. */
const servers: Server[] = []
afterEach(() => {
  for (const s of servers.splice(0)) s.close()
})

/** A server that hands each request to `onRequest`; returns a function that POSTs `body` to it. */
async function serve(onRequest: (req: IncomingMessage) => Promise<unknown>): Promise<(body: Buffer) => Promise<void>> {
  const server = createServer((req, res) => {
    void onRequest(req).finally(() => res.end())
  })
  servers.push(server)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  return (body) =>
    new Promise((resolve) => {
      const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/' }, (res) => {
        res.resume()
        res.once('end', resolve)
      })
      req.on('error', () => resolve())
      req.end(body)
    })
}

async function bytesOf(content: Buffer | Readable): Promise<Buffer> {
  if (Buffer.isBuffer(content)) return content
  const chunks: Buffer[] = []
  for await (const chunk of content) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

describe('RequestBody', () => {
  it('keeps a small body in memory and a large one in a temporary file, byte for byte; the budget counts only the file', async () => {
    const disk = new DiskBudget(0)
    const seen: { length: number; inMemory: boolean; same: boolean; usedWhileHeld: number }[] = []
    const bodies = [randomBytes(1_000), randomBytes(300_000)]
    const post = await serve(async (req) => {
      const body = await RequestBody.read(req, { maxBytes: 0, memoryBytes: 64 * 1024, disk }, new AbortController().signal)
      const content = await body.content()
      const expected = bodies[seen.length]!
      seen.push({ length: body.length, inMemory: Buffer.isBuffer(content), same: (await bytesOf(content)).equals(expected), usedWhileHeld: disk.used })
      await body.dispose()
    })
    for (const b of bodies) await post(b)
    expect(seen).toEqual([
      { length: 1_000, inMemory: true, same: true, usedWhileHeld: 0 },
      { length: 300_000, inMemory: false, same: true, usedWhileHeld: 300_000 },
    ])
    expect(disk.used).toBe(0)
  })

  it('refuses past maxBytes, past the disk budget, and when the temporary file cannot be written; nothing stays reserved', async () => {
    const disk = new DiskBudget(200_000)
    const outcomes: string[] = []
    let maxBytes = 100_000
    let dir: string | undefined = undefined
    const post = await serve((req) =>
      RequestBody.read(req, { maxBytes, memoryBytes: 64 * 1024, disk, ...(dir ? { dir } : {}) }, new AbortController().signal).then(
        (b) => b.dispose().then(() => outcomes.push('ok')),
        // What the budget holds when the refusal comes: a client told 503 may retry at once.
        (err: { code?: string }) => outcomes.push(`${err.code ?? 'error'} used=${disk.used}`),
      ),
    )
    await post(randomBytes(150_000))
    maxBytes = 500_000
    await post(randomBytes(300_000))
    dir = '/nonexistent/svc-body-dir'
    await post(randomBytes(100_000))
    // A refused body's file is closed (its writes finish first) and its bytes given back before the refusal.
    expect(outcomes).toEqual(['SVC_ERR_PROXY_BODY_TOO_LARGE used=0', 'SVC_ERR_PROXY_BUFFER_FULL used=0', 'SVC_ERR_PROXY_BUFFER_FULL used=0'])
  })

  it('an aborted exchange ends the read and releases the file, even while the client still sends', async () => {
    const disk = new DiskBudget(0)
    const ended = new AbortController()
    let outcome: string | null = null
    let held = 0
    const server = createServer((req) => {
      req.once('data', () => {
        // The first chunks are in; stop once the file holds some of them.
        setTimeout(() => {
          held = disk.used
          ended.abort()
        }, 100)
      })
      RequestBody.read(req, { maxBytes: 0, memoryBytes: 1_024, disk }, ended.signal).then(
        () => (outcome = 'resolved'),
        (err: { code?: string }) => (outcome = err.code ?? 'error'),
      )
    })
    servers.push(server)
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const req = request({ port: (server.address() as { port: number }).port, host: '127.0.0.1', method: 'POST', path: '/', headers: { 'content-length': '1000000' } })
    req.on('error', () => {})
    req.write(randomBytes(50_000))
    for (let i = 0; i < 100 && outcome === null; i++) await new Promise((r) => setTimeout(r, 20))
    req.destroy()
    expect(held).toBeGreaterThan(0)
    expect(outcome).toBe('ABORT_ERR')
    for (let i = 0; i < 50 && disk.used > 0; i++) await new Promise((r) => setTimeout(r, 20))
    expect(disk.used).toBe(0)
  })
})
