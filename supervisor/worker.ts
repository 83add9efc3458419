import { fork, type ChildProcess } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { fileURLToPath } from 'node:url'
import type { Logger } from 'pino'
import { processChannel, type Channel } from '../ipc/channel.js'
import { GatewayToSupervisor, SupervisorToGateway } from '../ipc/messages.js'
import { killTree, TREE_ENV, type Tree } from './kill-tree.js'

/**
 * One gateway worker as the supervisor sees it: forked (own process group, own tree cookie, IPC
 * channel), `loaded` → sent the listening handle → `ready`; stopped with an IPC `drain`, its tree
 * SIGKILLed if it is still there after the grace plus a margin. Whatever the app started and left
 * behind is killed before `exit` is emitted.
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
  /** Requests in flight to the previous sidecar are done; new ones go to this URL. */
  upstream_drained: [string]
  message: [GatewayToSupervisor]
}

export class WorkerHandle extends EventEmitter<WorkerEvents> {
  readonly startedAt = new Date()
  readonly #child: ChildProcess
  readonly #channel: Channel<GatewayToSupervisor, SupervisorToGateway>
  #phase: WorkerPhase = 'starting'
  #stopping: Promise<void> | null = null

  /** The handle to listen on once loaded; null when not asked yet (or already sent). */
  #listenHandle: object | null = null

  readonly #tree: Tree
  /** Resolves once `exit` was emitted (the tree is gone by then). */
  readonly #exited: Promise<void>

  /**
   * `cookie`: this worker's `SVC_TREE_ID`, inherited by everything the app starts.
   * `loadTimeoutMs`: a worker still not `loaded` then is killed with a `fatal` timeout.
   */
  constructor(env: NodeJS.ProcessEnv, logger: Logger, cookie: string | null, loadTimeoutMs: number) {
    super()
    this.#child = fork(GATEWAY_MAIN, [], { env: cookie ? { ...env, [TREE_ENV]: cookie } : env, detached: true, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    this.#tree = { pid: this.#child.pid ?? null, cookie }
    this.#exited = new Promise((resolve) => this.once('exit', () => resolve()))
    const loadTimer = setTimeout(() => {
      if (this.#phase !== 'starting') return
      const s = loadTimeoutMs / 1000
      this.emit('fatal', {
        code: 'SVC_ERR_PROCESS_WORKER_START_TIMEOUT',
        message: `it did not finish loading within ${s} s (gateway_start_timeout_s): does the app module await something at import that never settles? Raise SVC_GATEWAY_START_TIMEOUT_S if loading takes longer`,
      })
      void killTree(this.#tree)
    }, loadTimeoutMs)
    this.once('loaded', () => clearTimeout(loadTimer))
    this.once('exit', () => clearTimeout(loadTimer))
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
          this.emit('ready')
          return
        case 'fatal':
          this.emit('fatal', { code: msg.code, message: msg.message })
          return
        case 'upstream_drained':
          this.emit('upstream_drained', msg.url)
          return
        default:
          this.emit('message', msg)
      }
    })
    this.#child.on('error', () => {})
    this.#child.once('exit', (code, signal) => {
      const phase = this.#phase
      this.#phase = 'exited'
      void killTree(this.#tree).then(() => this.emit('exit', { code, signal, phase }))
    })
  }

  get pid(): number {
    return this.#child.pid ?? -1
  }

  get phase(): WorkerPhase {
    return this.#phase
  }

  /** Start accepting on `handle` as soon as the app is loaded (at start: once the sidecar is healthy). */
  listen(handle: object): void {
    this.#listenHandle = handle
    if (this.#phase === 'loaded') this.#sendListen()
  }

  #sendListen(): void {
    const handle = this.#listenHandle
    this.#listenHandle = null
    if (handle) this.#channel.send({ svc: 1, type: 'listen' }, handle)
  }

  send(msg: SupervisorToGateway): void {
    this.#channel.send(msg)
  }

  /** Proxy to `url` from now on; resolves once nothing is in flight to the old sidecar (or the worker is gone). */
  switchUpstream(url: string): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.off('upstream_drained', onDrained)
        resolve()
      }
      const onDrained = (u: string): void => {
        if (u === url) done()
      }
      this.on('upstream_drained', onDrained)
      void this.#exited.then(done)
      if (this.#phase === 'exited' || !this.#channel.send({ svc: 1, type: 'upstream', url })) done()
    })
  }

  /** Drain over IPC within `graceMs`; SIGKILL after the grace plus a margin. Idempotent. */
  stop(graceMs: number, reason: 'reload' | 'shutdown'): Promise<void> {
    this.#stopping ??= (async () => {
      if (this.#phase === 'exited') return this.#exited
      this.#phase = 'draining'
      if (!this.#channel.send({ svc: 1, type: 'drain', grace_ms: graceMs, reason })) void killTree(this.#tree)
      const timer = setTimeout(() => void killTree(this.#tree), graceMs + KILL_MARGIN_MS)
      await this.#exited
      clearTimeout(timer)
    })()
    return this.#stopping
  }

  /** SIGKILL the worker's tree now; resolves once `exit` was emitted. */
  kill(): Promise<void> {
    void killTree(this.#tree)
    return this.#exited
  }
}
