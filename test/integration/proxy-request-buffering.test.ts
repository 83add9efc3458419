import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type Socket } from 'node:net'
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { request } from 'undici'
import { fdTargets, REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { waitUntil } from '../helpers/cli-processes.js'

/**
 * UI request bodies are read in full before they take an upstream connection (memory, then an
 * unlinked temporary file), over a real `svc run` tree (echo sidecar) and raw sockets. A pool of
 * two connections and 1 s timeouts make every limit trip within a second or two.
 */

const POOL = 2

/** A raw client connection: `write` sends bytes as they are, `answer` waits for one JSON answer. */
class Upload {
  readonly socket: Socket
  received = ''
  /** Bytes written after the first write (the head). */
  bodySent = 0
  readonly closed: Promise<void>
  #headSent = false

  /** `allowHalfOpen`: the client keeps its side open (and may keep sending) after the gateway's FIN. */
  constructor(port: number, allowHalfOpen = false) {
    this.socket = connect({ port, host: '127.0.0.1', allowHalfOpen })
    this.socket.on('data', (d: Buffer) => (this.received += d.toString('latin1')))
    this.socket.on('error', () => {})
    // Not events.once: that rejects on the EPIPE of a write the gateway already cut.
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()))
  }

  write(bytes: string | Buffer): void {
    if (!this.socket.writable) return
    if (this.#headSent) this.bodySent += bytes.length
    this.#headSent = true
    this.socket.write(bytes)
  }

  async answer(timeoutMs = 5_000): Promise<{ status: number; body: Record<string, unknown> }> {
    const deadline = Date.now() + timeoutMs
    let m: RegExpExecArray | null = null
    while (!(m = /^HTTP\/1\.1 (\d{3}) [\s\S]*?\r\n\r\n(\{[\s\S]*\})$/.exec(this.received))) {
      if (Date.now() > deadline) throw new Error(`no answer within ${timeoutMs} ms; got ${JSON.stringify(this.received)}`)
      await Promise.race([this.closed, new Promise((r) => setTimeout(r, 25))])
    }
    return { status: Number(m[1]), body: JSON.parse(m[2]!) as Record<string, unknown> }
  }
}

/** Descriptors of `pid` that are buffered request bodies (unlinked, so they show as deleted). */
function bodyFiles(pid: number): string[] {
  return fdTargets(pid).filter((t) => t.includes('svc-body-'))
}

/** Body files with a name under the temp dir (tsx keeps its cache there too). */
function namedBodyFiles(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.startsWith('svc-body-'))
}

describe('UI request bodies are buffered before they take an upstream connection', () => {
  let svc: SvcTree
  let worker = 0
  const tmp = `${REPO}test/.tmp/bodies-${randomUUID()}`

  const upload = (head: string): Upload => {
    const u = new Upload(svc.port)
    if (head !== '') u.write(head)
    return u
  }

  beforeAll(async () => {
    mkdirSync(tmp, { recursive: true })
    svc = await startSvc({
      env: {
        TMPDIR: tmp,
        SVC_GATEWAY_CLIENT_HEADER_TIMEOUT_S: '1',
        SVC_GATEWAY_CLIENT_BODY_TIMEOUT_S: '2',
        SVC_GATEWAY_UPSTREAM_POOL_SIZE: String(POOL),
        SVC_GATEWAY_UPSTREAM_QUEUE_TIMEOUT_S: '1',
        SVC_GATEWAY_MAX_PROXY_REQUEST_BODY_BYTES: '600000',
        SVC_GATEWAY_PROXY_BUFFER_DISK_BYTES: '1000000',
      },
    })
    const res = await request(svc.url + '/api/pid')
    worker = ((await res.body.json()) as { pid: number }).pid
  })
  afterAll(async () => {
    try {
      // Nothing is ever left under the temp dir: each file is unlinked as soon as it is open.
      expect(namedBodyFiles(tmp)).toEqual([])
    } finally {
      await stopAllTrees()
      rmSync(tmp, { recursive: true, force: true })
    }
  })

  it('a trickle flood of large uploads does not hold the pool: other UI requests answer at once, the uploads arrive whole', async () => {
    // Three times as many uploads as pooled connections, each 100 kB, a byte every 100 ms after
    // the head (below the body timeout): before, the first two took both connections for as
    // long as they trickled, and every other UI request got 503 after the 1 s queue timeout.
    const flood = Array.from({ length: POOL * 3 }, (_, i) => upload(`POST /upload/${i} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n`))
    const drip = setInterval(() => {
      for (const u of flood) u.write('a')
    }, 100)
    try {
      for (let i = 0; i < 3; i++) {
        const res = await request(`${svc.url}/during-flood/${i}`)
        expect(res.statusCode).toBe(200)
        await res.body.dump()
      }
      // The uploads are still being received, not refused.
      for (const u of flood) expect(u.received).toBe('')
      // They complete: the rest arrives at once and each reaches the sidecar whole.
      clearInterval(drip)
      for (const u of flood) u.write(Buffer.alloc(100_000 - u.bodySent, 98))
      for (const u of flood) expect(await u.answer()).toMatchObject({ status: 200, body: { bodyBytes: 100_000 } })
    } finally {
      clearInterval(drip)
      for (const u of flood) u.socket.destroy()
    }
  })

  it('silent and slowloris connections opened after a flood are cut at the header timeout, also when they keep sending after their 408', async () => {
    const flood = Array.from({ length: POOL * 3 }, (_, i) => upload(`POST /flood/${i} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n`))
    const drip = setInterval(() => {
      for (const u of flood) u.write('a')
    }, 100)
    const opened = Date.now()
    // Silent ones, and slowloris ones that ignore the gateway's FIN and go on sending headers.
    const silent = Array.from({ length: 5 }, () => new Upload(svc.port))
    const loris = Array.from({ length: 5 }, () => new Upload(svc.port, true))
    for (const p of loris) p.write('GET /slowloris HTTP/1.1\r\nHost: x\r\n')
    const feed = setInterval(() => {
      for (const p of loris) p.write(`X-Drip-${Date.now()}: 1\r\n`)
    }, 150)
    const cutWithin = async (p: Upload, ms: number): Promise<void> => {
      const late = new Promise((_, reject) => setTimeout(() => reject(new Error(`still open after ${ms} ms: ${JSON.stringify(p.received)}`)), ms))
      await Promise.race([p.closed, late])
      expect(p.received).toMatch(/^HTTP\/1\.1 408 /)
    }
    try {
      // 1 s header timeout, checked every 250 ms, then at most 1 s to read the 408. Before, a
      // client that kept sending after it was held by the lingering close for 10 s more.
      for (const p of [...silent, ...loris]) await cutWithin(p, 6_000)
      expect(Date.now() - opened).toBeLessThan(6_000)
    } finally {
      clearInterval(drip)
      clearInterval(feed)
      for (const u of [...flood, ...silent, ...loris]) u.socket.destroy()
    }
  })

  it('an upload that stalls gets 408 and is cut within a second even if it starts sending again', async () => {
    const u = new Upload(svc.port, true)
    u.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n')
    u.write(Buffer.alloc(1_000, 97))
    await u.answer(6_000)
    expect(u.received).toMatch(/^HTTP\/1\.1 408 /)
    const answered = Date.now()
    const feed = setInterval(() => u.write('a'), 100)
    try {
      await Promise.race([u.closed, new Promise((_, reject) => setTimeout(() => reject(new Error('still open 6 s after its 408')), 6_000))])
      // Before: held up to 10 s by the lingering close while it kept sending.
      expect(Date.now() - answered).toBeLessThan(6_000)
    } finally {
      clearInterval(feed)
    }
  })

  it('a body past 64 KiB goes to an unlinked temporary file, released when the exchange ends and when the client leaves', async () => {
    await waitUntil('no buffered body left from earlier tests', () => bodyFiles(worker).length === 0)
    const done = upload('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\nConnection: close\r\n\r\n')
    done.write(Buffer.alloc(100_000, 97))
    // Open and unlink are two steps: on a loaded machine the file can be seen between them.
    await waitUntil('an unlinked temporary file while the body arrives', () => {
      const files = bodyFiles(worker)
      return files.length === 1 && /\(deleted\)$/.test(files[0]!)
    })
    expect(namedBodyFiles(tmp)).toEqual([])
    done.write(Buffer.alloc(100_000, 97))
    expect(await done.answer()).toMatchObject({ status: 200, body: { bodyBytes: 200_000 } })
    await waitUntil('the file released after the answer', () => bodyFiles(worker).length === 0)

    const gone = upload('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n')
    gone.write(Buffer.alloc(100_000, 97))
    await waitUntil('a temporary file while the body arrives', () => bodyFiles(worker).length === 1)
    gone.socket.destroy()
    await waitUntil('the file released when the client left', () => bodyFiles(worker).length === 0)
  })

  it('a chunked body is sent on with its length once whole; past the limit it gets 413 and its file is released', async () => {
    const ok = upload('POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n')
    for (let i = 0; i < 3; i++) ok.write(`${(50_000).toString(16)}\r\n${'c'.repeat(50_000)}\r\n`)
    ok.write('0\r\n\r\n')
    const answer = await ok.answer()
    expect(answer).toMatchObject({ status: 200, body: { bodyBytes: 150_000 } })
    const headers = answer.body.headers as Record<string, string>
    expect(headers['content-length']).toBe('150000')
    expect(headers['transfer-encoding']).toBeUndefined()

    const big = upload('POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n')
    for (let i = 0; i < 13; i++) big.write(`${(50_000).toString(16)}\r\n${'c'.repeat(50_000)}\r\n`)
    expect(await big.answer()).toMatchObject({ status: 413, body: { error: 'payload_too_large' } })
    await waitUntil('the file released after the 413', () => bodyFiles(worker).length === 0)
    big.socket.destroy()
  })

  it('answers 503 request_buffer_full once the disk budget is taken, and 502 when the sidecar fails; no file is left', async () => {
    const first = upload('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 600000\r\nConnection: close\r\n\r\n')
    first.write(Buffer.alloc(550_000, 97))
    await waitUntil('the first body on disk', () => bodyFiles(worker).length === 1)
    // 550 000 of the 1 000 000 budget are taken; this one passes it.
    const second = upload('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 600000\r\nConnection: close\r\n\r\n')
    second.write(Buffer.alloc(550_000, 97))
    const refused = await second.answer()
    expect(refused).toMatchObject({ status: 503, body: { error: 'request_buffer_full', message: expect.stringMatching(/gateway_proxy_buffer_disk_bytes/) } })
    first.write(Buffer.alloc(50_000, 97))
    expect(await first.answer()).toMatchObject({ status: 200, body: { bodyBytes: 600_000 } })

    const hangup = upload('POST /hangup HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n')
    hangup.write(Buffer.alloc(100_000, 97))
    expect(await hangup.answer()).toMatchObject({ status: 502, body: { error: 'bad_gateway' } })
    await waitUntil('every file released', () => bodyFiles(worker).length === 0)
  })
})
