import { fork, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import pino from 'pino'
import { WebSocket } from 'ws'
import { RenderDecoder } from '../../src/ui/client/patch.js'
import type { ServerMessage, WireServerMessage } from '../../src/ui/protocol.js'

const ROOT = join(import.meta.dirname, '..', '..')
export const SIDECAR_MAIN = join(ROOT, 'dist', 'src', 'ui', 'server', 'main.js')
/** The built probe runner (the one the supervisor uses): it forks dist/probe/main.js. */
const RUN_PROBE = pathToFileURL(join(ROOT, 'dist', 'probe', 'run-probe.js')).href

export async function freePort(): Promise<number> {
  const srv = createServer()
  srv.listen(0, '127.0.0.1')
  await once(srv, 'listening')
  const port = (srv.address() as { port: number }).port
  await new Promise((r) => srv.close(r))
  return port
}

export interface Sidecar {
  proc: ChildProcess
  port: number
  url: string
  stderr: () => string
  /** Its log lines (JSON) so far. */
  stdout: () => string
  stop(): Promise<void>
}

/**
 * Fork the built sidecar main like the supervisor does: the probe reads the app first, the page
 * server gets its profile as its first IPC message (`configure`); then wait for health.
 */
export async function startSidecar(app: string, env: Record<string, string> = {}, deadlineMs = 15_000): Promise<Sidecar> {
  const port = await freePort()
  const childEnv = { ...process.env, SVC_APP: app, SVC_UI_PORT: String(port), SVC_UI_HOST: '127.0.0.1', SVC_ROOT_PATH: '', ...env }
  const { runProbe } = (await import(RUN_PROBE)) as typeof import('../../probe/run-probe.js')
  const probed = await runProbe({ flags: {} }, { env: childEnv, cwd: ROOT, cookie: null, logger: pino({ level: 'silent' }) }).outcome
  if (!probed.ok) throw new Error(`the probe could not read ${app}: ${probed.message}`)
  const proc = fork(SIDECAR_MAIN, [], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
  proc.send({ svc: 1, type: 'configure', profile: probed.profile })
  let err = ''
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()))
  let out = ''
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  const base = env.SVC_ROOT_PATH ?? ''
  const deadline = Date.now() + deadlineMs
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`sidecar exited ${proc.exitCode}: ${err}`)
    try {
      const res = await fetch(`http://127.0.0.1:${port}${base}/_stcore/health`)
      if (res.status === 200) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill('SIGKILL')
      throw new Error(`sidecar not healthy within ${deadlineMs} ms: ${err}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    proc,
    port,
    url: `http://127.0.0.1:${port}`,
    stderr: () => err,
    stdout: () => out,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return
      const exited = once(proc, 'exit')
      proc.kill('SIGTERM')
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    },
  }
}

/** A deadline only: a session on a loaded machine (page threads starting, a first run) may take a while. */
const HELLO_TIMEOUT_MS = 20_000

/** Say hello on `c` (a new session, or `sessionId` again) at `/`; its session message and first final render. */
export async function sayHello(c: PageClient, sessionId: string | null = null) {
  c.send({ type: 'hello', sessionId, path: '/', query: '' })
  return { session: await c.next('session', HELLO_TIMEOUT_MS), render: await c.render(HELLO_TIMEOUT_MS) }
}

/**
 * A page server for one describe block and the page sockets its tests open: `start()` in
 * beforeAll, `stop()` in afterAll (every socket, then the server).
 */
export class PageServerFixture {
  #sidecar: Sidecar | null = null
  readonly #clients: PageClient[] = []

  async start(app: string, env: Record<string, string> = {}, deadlineMs = 60_000): Promise<Sidecar> {
    this.#sidecar = await startSidecar(app, env, deadlineMs)
    return this.#sidecar
  }

  /** A page socket, closed by `stop()`. */
  async connect(headers: Record<string, string> = {}): Promise<PageClient> {
    if (this.#sidecar === null) throw new Error('PageServerFixture.connect() before start()')
    const c = await new PageClient(`ws://127.0.0.1:${this.#sidecar.port}/_stcore/stream`, headers).open()
    this.#clients.push(c)
    return c
  }

  /** `sayHello` on one of this fixture's sockets. */
  hello(c: PageClient, sessionId: string | null = null) {
    return sayHello(c, sessionId)
  }

  async stop(): Promise<void> {
    await Promise.all(this.#clients.splice(0).map((c) => c.close()))
    await this.#sidecar?.stop()
  }
}

/** A page-protocol client that queues server messages and waits on them with a deadline. */
export class PageClient {
  readonly ws: WebSocket
  readonly #queue: ServerMessage[] = []
  readonly #decoder = new RenderDecoder()
  #wake: (() => void) | null = null

  constructor(url: string, headers: Record<string, string> = {}) {
    this.ws = new WebSocket(url, { headers })
    this.ws.on('message', (d) => {
      this.#queue.push(this.#decoder.decode(JSON.parse(d.toString()) as WireServerMessage))
      this.#wake?.()
    })
  }

  async open(): Promise<this> {
    await once(this.ws, 'open')
    return this
  }

  /** Messages sent after `hello` (the server counts them the same way; renders say how many they reflect). */
  #sent = 0

  send(msg: object): void {
    if ((msg as { type?: unknown }).type !== 'hello') this.#sent++
    this.ws.send(JSON.stringify({ v: 1, ...msg }))
  }

  /** The next message of `type` (earlier messages of other types are skipped). */
  next<T extends ServerMessage['type']>(type: T, timeoutMs = 5000, accept: (m: Extract<ServerMessage, { type: T }>) => boolean = () => true): Promise<Extract<ServerMessage, { type: T }>> {
    return this.nextWhere((m): m is Extract<ServerMessage, { type: T }> => m.type === type && accept(m as Extract<ServerMessage, { type: T }>), timeoutMs, type)
  }

  /** The next message `accept` takes (earlier ones are skipped); `what` names it in the timeout's error. */
  async nextWhere<M extends ServerMessage>(accept: (m: ServerMessage) => m is M, timeoutMs: number, what: string): Promise<M> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      while (this.#queue.length) {
        const m = this.#queue.shift()!
        if (accept(m)) return m
      }
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no ${what} message within ${timeoutMs} ms`)
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left)
        this.#wake = () => {
          clearTimeout(t)
          resolve()
        }
      })
    }
  }

  /** Final (non-partial) render. */
  render(timeoutMs = 5000): Promise<Extract<ServerMessage, { type: 'render' }>> {
    return this.next('render', timeoutMs, (m) => !m.partial)
  }

  /** The first final render that reflects every message sent so far (earlier ones are skipped). */
  settled(timeoutMs = 5000): Promise<Extract<ServerMessage, { type: 'render' }>> {
    const sent = this.#sent
    return this.next('render', timeoutMs, (m) => !m.partial && (m.seen ?? 0) >= sent)
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return
    const closed = once(this.ws, 'close')
    this.ws.close()
    await closed
  }
}

export function textOf(render: Extract<ServerMessage, { type: 'render' }>): string {
  return render.main.filter((n) => n.type === 'text').map((n) => String(n.props.text)).join('\n')
}
