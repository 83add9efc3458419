import { chmodSync, unlinkSync } from 'node:fs'
import { createConnection, createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { ControlAnswer, ControlRequest, MAX_CONTROL_REQUEST_BYTES } from '../ipc/control.js'
import { Lifecycle } from '../src/internal/lifecycle.js'
import { SvcError } from '../src/errors.js'

/** A socket path longer than this does not fit `sockaddr_un` everywhere (104 bytes on macOS, 108 on Linux). */
const MAX_SOCKET_PATH_BYTES = 100
/** A client that has not sent its request line within this is dropped. */
const REQUEST_IDLE_MS = 5_000
/** Control connections at once; more are refused (an operator runs a command or two, not hundreds). */
const MAX_CONTROL_CONNECTIONS = 16

/** FNV-1a over the path: a short, stable name for a socket whose natural path is too long. */
function shortName(path: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193) >>> 0
  return h.toString(16).padStart(8, '0')
}

/**
 * Where the control socket of the tree holding `pidfile` lives: `<pidfile>.sock` next to it, or,
 * when that path is too long for a Unix socket, one named after it in the temporary folder. On
 * Windows, a named pipe. The state file records it; `svc status` and `svc reload` read it there.
 */
export function controlSocketPath(pidfile: string): string {
  if (process.platform === 'win32') return `\\\\.\\pipe\\svc-${shortName(pidfile)}`
  const beside = `${pidfile}.sock`
  return Buffer.byteLength(beside) <= MAX_SOCKET_PATH_BYTES ? beside : join(tmpdir(), `svc-${shortName(pidfile)}.sock`)
}

export type ControlHandler = (request: ControlRequest) => Promise<ControlAnswer>

/**
 * The supervisor's control socket: a Unix socket only its owner may open (mode 0600, created
 * under a umask that never lets anyone else in), one JSON request line and one JSON answer line
 * per connection, both checked against `ipc/control.ts`. A socket file left by a supervisor that
 * was killed is replaced (the pid file claim says no other svc uses it).
 */
export class ControlServer extends Lifecycle {
  readonly path: string
  readonly #server: Server
  readonly #logger: Logger
  readonly #handle: ControlHandler
  readonly #sockets = new Set<Socket>()
  readonly #inFlight = new Set<Promise<unknown>>()

  constructor(options: { path: string; logger: Logger; handle: ControlHandler }) {
    super()
    this.path = options.path
    this.#logger = options.logger
    this.#handle = options.handle
    this.#server = createServer((socket) => this.#accept(socket))
    this.#server.maxConnections = MAX_CONTROL_CONNECTIONS
    this.#server.on('error', (err) => this.#logger.warn({ err }, `control socket ${this.path}: ${err.message}`))
  }

  async listen(): Promise<void> {
    if (await answers(this.path)) {
      throw new SvcError('SVC_ERR_CONTROL_UNREACHABLE', `another process answers on the control socket ${this.path}; stop it, or give this svc another --pidfile`)
    }
    removeSocketFile(this.path)
    // The socket file is created by listen(): with this umask nobody but the owner can connect.
    const umask = process.umask(0o177)
    try {
      await new Promise<void>((resolve, reject) => {
        this.#server.once('error', reject)
        this.#server.listen(this.path, () => {
          this.#server.off('error', reject)
          resolve()
        })
      })
    } finally {
      process.umask(umask)
    }
    if (process.platform !== 'win32') chmodSync(this.path, 0o600)
  }

  /** Stop accepting; answers under way are given (a reload's waits for its end), then the socket file goes. */
  protected async drain(): Promise<void> {
    this.#server.close()
    await Promise.allSettled([...this.#inFlight])
    for (const s of this.#sockets) s.end()
    removeSocketFile(this.path)
  }

  protected async abort(): Promise<void> {
    this.#server.close()
    for (const s of this.#sockets) s.destroy()
    removeSocketFile(this.path)
  }

  #accept(socket: Socket): void {
    if (this.closed) {
      socket.destroy()
      return
    }
    this.#sockets.add(socket)
    socket.once('close', () => this.#sockets.delete(socket))
    socket.on('error', () => {})
    socket.setTimeout(REQUEST_IDLE_MS, () => socket.destroy())
    let buffered = ''
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8')
      const end = buffered.indexOf('\n')
      if (end === -1 && Buffer.byteLength(buffered) <= MAX_CONTROL_REQUEST_BYTES) return
      socket.off('data', onData)
      socket.setTimeout(0)
      const line = end === -1 ? null : buffered.slice(0, end)
      const answering = this.#answer(line).then((answer) => socket.end(JSON.stringify(answer) + '\n'))
      this.#inFlight.add(answering)
      void answering.finally(() => this.#inFlight.delete(answering))
    }
    socket.on('data', onData)
  }

  async #answer(line: string | null): Promise<ControlAnswer> {
    const refuse = (message: string): ControlAnswer => ({ svc: 1, ok: false, error: { code: 'SVC_ERR_CONTROL_BAD_REQUEST', message } })
    if (line === null) return refuse(`a request is one JSON line of at most ${MAX_CONTROL_REQUEST_BYTES} bytes`)
    let data: unknown
    try {
      data = JSON.parse(line)
    } catch {
      return refuse('the request is not JSON')
    }
    const request = ControlRequest.safeParse(data)
    if (!request.success) return refuse(`not a control request: ${request.error.issues.map((i) => i.message).join('; ')}`)
    try {
      return ControlAnswer.parse(await this.#handle(request.data))
    } catch (err) {
      this.#logger.error({ err }, `control request ${request.data.op} failed: ${(err as Error).message}`)
      return { svc: 1, ok: false, error: { code: 'SVC_ERR_CONTROL_BAD_REQUEST', message: `the supervisor could not answer: ${(err as Error).message}` } }
    }
  }
}

/** Whether something accepts connections on `path` now. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createConnection(path)
    probe.once('connect', () => {
      probe.destroy()
      resolve(true)
    })
    probe.once('error', () => resolve(false))
  })
}

function removeSocketFile(path: string): void {
  if (process.platform === 'win32') return
  try {
    unlinkSync(path)
  } catch {
    // gone already
  }
}
