import { fork, type ChildProcess } from 'node:child_process'
import { EventEmitter } from 'node:events'
import type { Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import type { Logger } from 'pino'
import { processChannel, type Channel } from '../ipc/channel.js'
import { GatewayToSupervisor, SupervisorToGateway } from '../ipc/messages.js'
import { killTree } from './kill-tree.js'
import { ConnectionDispatcher, type ConnectionTaker } from './connection-dispatch.js'

/**
 * One gateway worker as the supervisor sees it: forked (own process group, IPC channel),
 * `loaded` → sent the listening handle (or, with several workers, told to take connections from
 * the supervisor's dispatcher) → `ready`; stopped with an IPC `drain`, SIGKILL if it is
 * still there after the grace plus a margin.
 */
export const GATEWAY_MAIN = fileURLToPath(new URL('../gateway/main.js', import.meta.url))
/** Time a worker gets past the drain grace before SIGKILL. */
const KILL_MARGIN_MS = 2_000

export type WorkerPhase = 'starting' | 'loaded' | 'ready' | 'draining' | 'exited'

export interface WorkerEvents {
  /** The app loaded in this worker; its resolved settings (authoritative for the supervisor). */
  loaded: [Record<string, unknown>]
  ready: []
  fatal: [{ code: string; message: string }]
  exit: [{ code: number | null; signal: NodeJS.Signals | null; phase: WorkerPhase }]
  message: [GatewayToSupervisor]
}

/** What a worker accepts on: the bound public port itself, or connections dealt by the supervisor. */
export type ListenTarget = object | ConnectionDispatcher

export class WorkerHandle extends EventEmitter<WorkerEvents> implements ConnectionTaker {
  readonly startedAt = new Date()
  readonly #child: ChildProcess
  readonly #channel: Channel<GatewayToSupervisor, SupervisorToGateway>
  #phase: WorkerPhase = 'starting'
  #stopping: Promise<void> | null = null

  /** What to listen on once loaded; null when not asked yet (or already sent). */
  #listenTarget: ListenTarget | null = null
  /** Set once this worker takes its connections from the supervisor. */
  #dispatcher: ConnectionDispatcher | null = null

  constructor(env: NodeJS.ProcessEnv, logger: Logger) {
    super()
    this.#child = fork(GATEWAY_MAIN, [], { env, detached: true, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    this.#channel = processChannel(this.#child, { incoming: GatewayToSupervisor, outgoing: SupervisorToGateway }, logger, `gateway worker ${this.#child.pid}`)
    this.#channel.onMessage((msg) => {
      switch (msg.type) {
        case 'loaded':
          this.#phase = 'loaded'
          this.emit('loaded', msg.settings)
          this.#sendListen()
          return
        case 'ready':
          this.#phase = 'ready'
          this.#dispatcher?.join(this)
          this.emit('ready')
          return
        case 'connection_ack':
          this.#dispatcher?.acknowledged(this, msg.id, msg.accepted)
          return
        case 'fatal':
          this.emit('fatal', { code: msg.code, message: msg.message })
          return
        default:
          this.emit('message', msg)
      }
    })
    // 'close': exited and its IPC channel read to the end, so every acknowledgement it sent has
    // arrived; what it did not acknowledge, it never read. ('disconnect' is not enough: node
    // postpones it while a sent handle waits for the dead process's receipt, i.e. for ever.)
    this.#child.once('close', () => this.#dispatcher?.leave(this))
    this.#child.on('error', () => {})
    this.#child.once('exit', (code, signal) => {
      const phase = this.#phase
      this.#phase = 'exited'
      this.emit('exit', { code, signal, phase })
    })
  }

  get pid(): number {
    return this.#child.pid ?? -1
  }

  get phase(): WorkerPhase {
    return this.#phase
  }

  /** Start accepting as soon as the app is loaded (at start: once the sidecar is healthy). */
  listen(target: ListenTarget): void {
    this.#listenTarget = target
    if (this.#phase === 'loaded') this.#sendListen()
  }

  #sendListen(): void {
    const target = this.#listenTarget
    this.#listenTarget = null
    if (target instanceof ConnectionDispatcher) {
      this.#dispatcher = target
      this.#channel.send({ svc: 1, type: 'take_connections' })
    } else if (target) {
      this.#channel.send({ svc: 1, type: 'listen' }, target)
    }
  }

  /** Hand over an accepted connection; the supervisor keeps its copy until `connection_ack`. */
  sendConnection(id: number, socket: Socket): boolean {
    if (!this.#channel.connected) return false
    this.#channel.send({ svc: 1, type: 'connection', id }, socket, { keepOpen: true })
    return true
  }

  send(msg: SupervisorToGateway): void {
    this.#channel.send(msg)
  }

  /** Drain over IPC within `graceMs`; SIGKILL after the grace plus a margin. Idempotent. */
  stop(graceMs: number, reason: 'reload' | 'shutdown'): Promise<void> {
    this.#stopping ??= new Promise<void>((resolve) => {
      if (this.#phase === 'exited') return resolve()
      this.once('exit', () => resolve())
      this.#phase = 'draining'
      if (!this.#channel.send({ svc: 1, type: 'drain', grace_ms: graceMs, reason })) void killTree(this.pid)
      const timer = setTimeout(() => void killTree(this.pid), graceMs + KILL_MARGIN_MS)
      timer.unref()
      this.once('exit', () => clearTimeout(timer))
    })
    return this.#stopping
  }

  kill(): Promise<void> {
    return killTree(this.pid)
  }
}
