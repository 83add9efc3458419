import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { once } from 'node:events'
import { connect, type Socket } from 'node:net'
import { readdirSync, readFileSync } from 'node:fs'
import type { ClientRequest } from 'node:http'
import { WebSocket } from 'ws'
import { startSvc, stopAllTrees, descendants, type SvcTree } from '../helpers/svc-process.js'

/**
 * The WebSocket hop against clients that do not play by the rules, over raw sockets: every bad
 * handshake is answered with a JSON error before the sidecar is contacted, the worker survives,
 * no descriptor leaks, oversized messages close 1009 on both legs, the sidecar sees the raw path.
 */

const MAX_MESSAGE = 64 * 1024
const VALID_KEY = 'dGhlIHNhbXBsZSBub25jZQ=='

interface RawAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * Send `request` as is and read until the gateway closes the connection. With `holdOpen`, the
 * client keeps its own half open after the gateway's FIN (a half-open client) and leaves its
 * socket in that list for the caller to destroy.
 */
function rawExchange(port: number, request: string, holdOpen?: Socket[], timeoutMs = 5_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: holdOpen !== undefined })
    holdOpen?.push(socket)
    const chunks: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete answer within ${timeoutMs} ms to ${JSON.stringify(request.split('\r\n')[0])}`))
    }, timeoutMs)
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', () => {})
    socket.on(holdOpen ? 'end' : 'close', () => {
      clearTimeout(timer)
      const text = Buffer.concat(chunks).toString('latin1')
      const split = text.indexOf('\r\n\r\n')
      const [statusLine, ...lines] = (split === -1 ? text : text.slice(0, split)).split('\r\n')
      const headers: Record<string, string> = {}
      for (const l of lines) {
        const i = l.indexOf(':')
        if (i > 0) headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim()
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0), headers, body: split === -1 ? '' : text.slice(split + 4) })
    })
    socket.write(request)
  })
}

/** A valid version-13 handshake for `path`, with `changes` applied (null drops a header). */
function handshake(path: string, changes: Record<string, string | null> = {}, startLine = `GET ${path} HTTP/1.1`): string {
  const headers: Record<string, string | null> = {
    Host: '127.0.0.1',
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    'Sec-WebSocket-Key': VALID_KEY,
    'Sec-WebSocket-Version': '13',
    ...changes,
  }
  const lines = [startLine]
  for (const [name, value] of Object.entries(headers)) if (value !== null) lines.push(`${name}: ${value}`)
  return lines.join('\r\n') + '\r\n\r\n'
}

/**
 * The process whose script (argv[1]) ends with `script`, or whose process title starts with it
 * (`svc gateway`); the sidecar guard only names its script later.
 */
function pidOf(svc: SvcTree, script: string): number {
  const pid = descendants(svc.pid).find((p) => {
    try {
      const cmdline = readFileSync(`/proc/${p}/cmdline`, 'utf8')
      return cmdline.startsWith(script) || cmdline.split('\0')[1]?.endsWith(script)
    } catch {
      return false
    }
  })
  if (pid === undefined) throw new Error(`no process running ${script} in the tree`)
  return pid
}

const fdCount = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

describe('WebSocket proxy under hostile clients', () => {
  let svc: SvcTree
  beforeAll(async () => {
    svc = await startSvc({ env: { SVC_GATEWAY_WS_MAX_MESSAGE_BYTES: String(MAX_MESSAGE) } })
  })
  afterAll(stopAllTrees)

  const wsBase = () => svc.url.replace('http', 'ws')

  /** Open a tunnel (raw request path when given) and wait for the sidecar's hello. */
  async function tunnel(path: string, headers: Record<string, string> = {}): Promise<{ ws: WebSocket; hello: { url: string; headers: Record<string, string> } }> {
    const ws = new WebSocket(wsBase(), {
      // The ws client would normalise the path through a WHATWG URL; send it exactly as written.
      // Headers go on here too: an `Expect` given to the constructor makes Node write the head at once.
      finishRequest: (request: ClientRequest) => {
        request.path = path
        for (const [name, value] of Object.entries(headers)) request.setHeader(name, value)
        request.end()
      },
    })
    const [hello] = await once(ws, 'message')
    return { ws, hello: JSON.parse(hello.toString()) }
  }

  async function sidecarCloseCode(tag: string): Promise<number> {
    let code = 0
    await waitFor(
      async () => {
        const res = await fetch(`${svc.url}/__ws_closes`)
        const { closes } = (await res.json()) as { closes: { url: string; code: number }[] }
        code = closes.find((c) => c.url.includes(tag))?.code ?? 0
        return code !== 0
      },
      5_000,
      () => `the sidecar to see the tunnel ${tag} close`,
    )
    return code
  }

  it('refused handshakes leave no socket open in the worker or the sidecar', async () => {
    const worker = pidOf(svc, 'svc gateway')
    const sidecar = pidOf(svc, 'echo-sidecar.mjs')
    const before = { worker: fdCount(worker), sidecar: fdCount(sidecar) }
    const refused = [
      handshake('/ws', { 'Sec-WebSocket-Key': null }),
      handshake('/ws', { Upgrade: 'h2c' }),
      handshake('/ws', { 'Sec-WebSocket-Version': '7' }),
    ]
    const TOTAL = 300
    const BATCH = 25
    for (let i = 0; i < TOTAL; i += BATCH) {
      const answers = await Promise.all(Array.from({ length: BATCH }, (_, j) => rawExchange(svc.port, refused[(i + j) % refused.length]!)))
      for (const a of answers) expect([400, 426]).toContain(a.status)
    }
    const now = () => `worker ${fdCount(worker)} fds (was ${before.worker}), sidecar ${fdCount(sidecar)} fds (was ${before.sidecar})`
    await waitFor(() => fdCount(worker) <= before.worker + 2 && fdCount(sidecar) <= before.sidecar + 2, 5_000, now)
  })

  it('a refused client that keeps its half of the connection open holds no worker socket', async () => {
    const worker = pidOf(svc, 'svc gateway')
    const before = fdCount(worker)
    const held: Socket[] = []
    try {
      const refused: [string, number][] = [
        [handshake('/api/ws'), 404],
        [handshake('/refuse'), 502],
        [handshake('/ws', { 'Sec-WebSocket-Key': null }), 400],
      ]
      for (let i = 0; i < 60; i += 15) {
        const answers = await Promise.all(Array.from({ length: 15 }, (_, j) => rawExchange(svc.port, refused[(i + j) % 3]![0], held)))
        answers.forEach((a, j) => expect(a.status).toBe(refused[(i + j) % 3]![1]))
      }
      await waitFor(() => fdCount(worker) <= before + 2, 5_000, () => `worker ${fdCount(worker)} fds (was ${before}) with ${held.length} half-open clients`)
    } finally {
      for (const s of held) s.destroy()
    }
  })

  it('a client that leaves while the sidecar is still answering takes the upstream socket down', async () => {
    const worker = pidOf(svc, 'svc gateway')
    const sidecar = pidOf(svc, 'echo-sidecar.mjs')
    const before = { worker: fdCount(worker), sidecar: fdCount(sidecar) }
    const client = connect(svc.port, '127.0.0.1')
    client.on('error', () => {})
    client.write(handshake('/slow-accept?ms=1000'))
    // The gateway has opened its handshake with the sidecar: one more socket there.
    await waitFor(() => fdCount(sidecar) > before.sidecar, 5_000, () => 'the gateway to reach the sidecar')
    client.destroy()
    const now = () => `worker ${fdCount(worker)} fds (was ${before.worker}), sidecar ${fdCount(sidecar)} fds (was ${before.sidecar})`
    await waitFor(() => fdCount(worker) <= before.worker && fdCount(sidecar) <= before.sidecar, 5_000, now)
  })

  it('a handshake the sidecar refuses is a JSON 502 with the request id', async () => {
    const a = await rawExchange(svc.port, handshake('/refuse', { 'X-Request-ID': 'refused-1' }))
    expect(a.status).toBe(502)
    expect(a.headers['x-request-id']).toBe('refused-1')
    expect(JSON.parse(a.body)).toEqual({ error: 'bad_gateway', message: expect.stringContaining('401'), request_id: 'refused-1' })
  })

  const hostile: [string, string, number, string][] = [
    ['a fragment in the target', handshake('/ws#x'), 400, 'fragment'],
    ['a subprotocol with a space', handshake('/ws', { 'Sec-WebSocket-Protocol': 'a b' }), 400, 'Sec-WebSocket-Protocol'],
    ['a duplicated subprotocol', handshake('/ws', { 'Sec-WebSocket-Protocol': 'a, a' }), 400, 'Sec-WebSocket-Protocol'],
    ['an empty subprotocol list', handshake('/ws', { 'Sec-WebSocket-Protocol': 'a,,b' }), 400, 'Sec-WebSocket-Protocol'],
    ['no Sec-WebSocket-Key', handshake('/ws', { 'Sec-WebSocket-Key': null }), 400, 'Sec-WebSocket-Key'],
    ['a key of 5 bytes', handshake('/ws', { 'Sec-WebSocket-Key': 'c2hvcnQ=' }), 400, 'Sec-WebSocket-Key'],
    ['Upgrade: h2c', handshake('/ws', { Upgrade: 'h2c' }), 400, 'Upgrade'],
    ['POST', handshake('/ws', {}, 'POST /ws HTTP/1.1'), 400, 'GET'],
    ['HTTP/1.0', handshake('/ws', {}, 'GET /ws HTTP/1.0'), 400, 'HTTP/1.1'],
    ['version 8', handshake('/ws', { 'Sec-WebSocket-Version': '8' }), 426, '"8"'],
    ['no version', handshake('/ws', { 'Sec-WebSocket-Version': null }), 426, 'missing'],
  ]

  it.each(hostile)('%s: JSON error with its status, the worker survives', async (_name, request, status, mentions) => {
    const worker = pidOf(svc, 'svc gateway')
    const a = await rawExchange(svc.port, request.replace('\r\n', '\r\nX-Request-ID: hostile-1\r\n'))
    expect(a.status).toBe(status)
    expect(a.headers['content-type']).toMatch(/^application\/json/)
    expect(a.headers['x-request-id']).toBe('hostile-1')
    const body = JSON.parse(a.body)
    expect(body).toEqual({ error: status === 426 ? 'upgrade_required' : 'bad_request', message: expect.stringContaining(mentions), request_id: 'hostile-1' })
    if (status === 426) expect(a.headers['sec-websocket-version']).toBe('13')
    // Same worker, still serving: nothing escaped the upgrade path.
    expect(pidOf(svc, 'svc gateway')).toBe(worker)
    const { ws } = await tunnel('/ws')
    ws.close(1000)
    await once(ws, 'close')
  })

  it('an oversized client message closes 1009 on both legs', async () => {
    const tag = `c2s-${process.pid}`
    const { ws } = await tunnel(`/ws?tag=${tag}`)
    ws.send(Buffer.alloc(MAX_MESSAGE + 1, 120), { binary: false })
    const [code] = await once(ws, 'close')
    expect(code).toBe(1009)
    expect(await sidecarCloseCode(tag)).toBe(1009)
  })

  it('an oversized sidecar message closes 1009 on both legs', async () => {
    const tag = `s2c-${process.pid}`
    const { ws } = await tunnel(`/ws?tag=${tag}`)
    ws.send(`big:${MAX_MESSAGE + 1}`)
    const [code] = await once(ws, 'close')
    expect(code).toBe(1009)
    expect(await sidecarCloseCode(tag)).toBe(1009)
  })

  it('a message at the limit still goes through', async () => {
    const { ws } = await tunnel('/ws')
    ws.send(Buffer.alloc(MAX_MESSAGE, 121), { binary: true })
    const [echo] = await once(ws, 'message')
    expect((echo as Buffer).length).toBe(MAX_MESSAGE)
    ws.close(1000)
    await once(ws, 'close')
  })

  it('the sidecar sees the request path exactly as the client sent it', async () => {
    for (const path of ['/tools/x/%2e%2e/%2e%2e/ws?q=%2e%2e', '/ws/%7Ea?x=1&y=%20']) {
      const { ws, hello } = await tunnel(path, { Expect: '100-continue' })
      expect(hello.url).toBe(path)
      ws.close(1000)
      await once(ws, 'close')
    }
  })

  it('client forwarding headers do not reach the sidecar (trust_proxy off)', async () => {
    const { ws, hello } = await tunnel('/ws', {
      'X-Forwarded-Server': 'evil',
      'X-Real-IP': '203.0.113.9',
      'X-Forwarded-For': '203.0.113.9',
      'X-Forwarded-Proto': 'https',
    })
    expect(hello.headers['x-forwarded-server']).toBeUndefined()
    expect(hello.headers['x-real-ip']).toBeUndefined()
    expect(hello.headers['x-forwarded-for']).toBe('127.0.0.1')
    expect(hello.headers['x-forwarded-proto']).toBe('http')
    ws.close(1000)
    await once(ws, 'close')
  })
})
