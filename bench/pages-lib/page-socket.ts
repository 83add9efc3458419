import { once } from 'node:events'
import { performance } from 'node:perf_hooks'
import { WebSocket } from 'ws'
import { RenderDecoder } from '../../src/ui/client/patch.js'
import type { ServerMessage, WireServerMessage, UiNode } from '../../src/ui/wire/protocol.js'

type Render = Extract<ServerMessage, { type: 'render' }>

const WAIT_MS = 10_000

/** One rerun seen from the client: send → final render, and what arrived for it. */
export interface RerunSample {
  latencyMs: number
  /** Bytes of every frame of the run: run_state(running), renders, run_state(done). */
  bytes: number
  /** Bytes the run's final render would take sent whole (no diff against the previous one). */
  fullRenderBytes: number
}

/**
 * A page-protocol client for measuring: it parses every frame (as a browser must) and hands it
 * to the waiter at once, so timing has no polling in it. Frames that arrive with no waiter (ws
 * emits the frames of one TCP read back to back) are queued for the next wait.
 */
export class PageSocket {
  readonly #ws: WebSocket
  #bytes = 0
  readonly #queue: ServerMessage[] = []
  readonly #decoder = new RenderDecoder()
  #waiter: { accept: (m: ServerMessage) => boolean; resolve: (m: ServerMessage) => void } | null = null

  private constructor(ws: WebSocket) {
    this.#ws = ws
    ws.on('message', (data: Buffer) => {
      this.#bytes += data.length
      const msg = this.#decoder.decode(JSON.parse(data.toString()) as WireServerMessage)
      const w = this.#waiter
      if (w === null) this.#queue.push(msg)
      else if (w.accept(msg)) {
        this.#waiter = null
        w.resolve(msg)
      }
    })
  }

  /** Connect, say hello for `path`, and wait for the first complete run. */
  static async open(url: string, path: string): Promise<{ socket: PageSocket; render: Render }> {
    const ws = new WebSocket(url, { perMessageDeflate: false })
    await once(ws, 'open')
    const socket = new PageSocket(ws)
    socket.#send({ type: 'hello', sessionId: null, path, query: '' })
    const render = await socket.#finalRender()
    await socket.#runDone(render.runId)
    return { socket, render }
  }

  /** Change a widget and wait until its rerun is rendered and done. */
  async interact(id: string, value: unknown): Promise<RerunSample> {
    this.#bytes = 0
    const start = performance.now()
    this.#send({ type: 'widget', id, value })
    const render = await this.#finalRender()
    const latencyMs = performance.now() - start
    await this.#runDone(render.runId)
    return { latencyMs, bytes: this.#bytes, fullRenderBytes: Buffer.byteLength(JSON.stringify(render)) }
  }

  async close(): Promise<void> {
    if (this.#ws.readyState === WebSocket.CLOSED) return
    const closed = once(this.#ws, 'close')
    this.#ws.close()
    await closed
  }

  #send(msg: object): void {
    this.#ws.send(JSON.stringify({ v: 1, ...msg }))
  }

  #finalRender(): Promise<Render> {
    return this.#next((m) => m.type === 'render' && !m.partial) as Promise<Render>
  }

  async #runDone(runId: number): Promise<void> {
    await this.#next((m) => m.type === 'run_state' && !m.running && m.runId === runId)
  }

  #next(accept: (m: ServerMessage) => boolean): Promise<ServerMessage> {
    while (this.#queue.length > 0) {
      const m = this.#queue.shift()!
      if (accept(m)) return Promise.resolve(m)
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiter = null
        reject(new Error(`no expected page message within ${WAIT_MS} ms`))
      }, WAIT_MS)
      this.#waiter = {
        accept,
        resolve: (m) => {
          clearTimeout(timer)
          resolve(m)
        },
      }
    })
  }
}

/** Nodes of a render, containers and their children each counted once. */
export function countNodes(nodes: readonly UiNode[]): number {
  return nodes.reduce((n, node) => n + 1 + countNodes(node.children ?? []), 0)
}

export function findWidget(nodes: readonly UiNode[], type: string, key: string): UiNode | undefined {
  for (const node of nodes) {
    if (node.type === type && node.props.key === key) return node
    const inner = findWidget(node.children ?? [], type, key)
    if (inner) return inner
  }
  return undefined
}
