import { createServer, type Server } from 'node:http'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import type { ClientMessage, ServerMessage } from '../../src/ui/wire/protocol.js'

const DIST = join(import.meta.dirname, '..', '..', 'dist', 'client')

type Outgoing = ServerMessage extends infer M ? (M extends { v: 1 } ? Omit<M, 'v'> : never) : never

/**
 * A scripted stand-in for the page server: serves an HTML shell with the built client
 * (dist/client) under `basePath`, and a WebSocket at `{basePath}/_stcore/stream` whose replies
 * the test decides. It exercises the browser client alone (reconnect, rendering, messages).
 */
export class FakeSidecar {
  readonly basePath: string
  readonly received: ClientMessage[] = []
  #server: Server | null = null
  #wss: WebSocketServer | null = null
  #sockets = new Set<WebSocket>()
  #waiters: { match: (m: ClientMessage) => boolean; resolve: (m: ClientMessage) => void }[] = []
  #port = 0
  /** Called for every client message; replies go through `send`. */
  onMessage: (m: ClientMessage, reply: (m: Outgoing) => void) => void = () => {}

  constructor(basePath = '') {
    this.basePath = basePath
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}${this.basePath}/`
  }

  async start(port = 0): Promise<void> {
    const server = createServer((req, res) => void this.#http(req.url ?? '/', res))
    const wss = new WebSocketServer({ noServer: true })
    server.on('upgrade', (req, socket, head) => {
      if (!(req.url ?? '').startsWith(`${this.basePath}/_stcore/stream`)) return socket.destroy()
      wss.handleUpgrade(req, socket, head, (ws) => this.#connection(ws))
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => resolve())
    })
    this.#port = (server.address() as AddressInfo).port
    this.#server = server
    this.#wss = wss
  }

  /** Close every socket and the listener (a "gateway restart" when followed by `start(samePort)`). */
  async stop(): Promise<number> {
    for (const s of this.#sockets) s.terminate()
    this.#sockets.clear()
    this.#wss?.close()
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()))
    this.#server?.closeAllConnections()
    this.#server = null
    return this.#port
  }

  send(message: Outgoing): void {
    const text = JSON.stringify({ v: 1, ...message })
    for (const s of this.#sockets) s.send(text)
  }

  /** Resolves with the next received message matching `match` (or one already received after `from`). */
  next(match: (m: ClientMessage) => boolean, timeoutMs = 10_000, from = this.received.length): Promise<ClientMessage> {
    const seen = this.received.slice(from).find(match)
    if (seen) return Promise.resolve(seen)
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching client message within ${timeoutMs} ms`)), timeoutMs)
      this.#waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer)
          resolve(m)
        },
      })
    })
  }

  async #http(url: string, res: import('node:http').ServerResponse): Promise<void> {
    const path = url.split('?')[0]!
    const asset = /\/_stcore\/static\/((?:chunks\/)?[\w-]+\.(js|css))$/.exec(path)
    if (asset) {
      // The shell below links the plain entry names; the build names files by content (manifest.json).
      const manifest = JSON.parse(await readFile(join(DIST, 'manifest.json'), 'utf8')) as { entries: Record<string, string> }
      const body = await readFile(join(DIST, manifest.entries[asset[1]!] ?? asset[1]!))
      res.writeHead(200, { 'content-type': asset[2] === 'js' ? 'text/javascript' : 'text/css' })
      res.end(body)
      return
    }
    const config = JSON.stringify({ basePath: this.basePath, title: 'Fake app' }).replace(/</g, '\\u003c')
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fake app</title><link rel="stylesheet" href="${this.basePath}/_stcore/static/app.css">
<script type="application/json" id="svc-config">${config}</script></head>
<body><div id="svc-root"></div><script type="module" src="${this.basePath}/_stcore/static/app.js"></script></body></html>`)
  }

  #connection(ws: WebSocket): void {
    this.#sockets.add(ws)
    ws.on('close', () => this.#sockets.delete(ws))
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as ClientMessage
      this.received.push(m)
      this.#waiters = this.#waiters.filter((w) => {
        if (!w.match(m)) return true
        w.resolve(m)
        return false
      })
      this.onMessage(m, (reply) => ws.send(JSON.stringify({ v: 1, ...reply })))
    })
  }
}
