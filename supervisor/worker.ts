import { fork } from 'node:child_process'
import { EventEmitter } from 'node:events'
import type { Socket } from 'node:net'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import type { Logger } from 'pino'
import { processChannel, type Channel } from '../ipc/channel.js'
import { GatewayToSupervisor, SupervisorToGateway } from '../ipc/messages.js'
import { killTree, type Tree } from '../src/process/kill-tree.js'
import { childEnv } from '../src/process/child-env.js'
import { ConnectionDispatcher, type ConnectionTaker } from './connection-dispatch.js'
import { ComposedLifecycle } from '../src/internal/lifecycle.js'
import { WORKER_KILL_MARGIN_MS, WS_RETIRE_SPREAD_MS } from '../src/internal/deadlines.js'
import { childExecArgv } from './child-exec-argv.js'
import type { ResolvedSettings } from '../src/settings/schema.js'

/**
 * One gateway worker as the supervisor sees it, over a WorkerProcess (`forkWorker`: own process
 * group, own tree cookie, IPC channel): `start` (with the settings) → `loaded` → sent the listening handle (or, with several
 * workers, told to take connections from the supervisor's dispatcher) → `ready`; stopped with an
 * IPC `drain`, its tree SIGKILLed if it is still there after the grace plus a margin. Whatever the app started and left
 * behind is killed before `exit` is emitted.
 */
export const GATEWAY_MAIN = fileURLToPath(new URL('../gateway/main.js', import.meta.url))

/** `standby`: forked, waiting for `start()` (a spare under svc dev --reload loaded svc's runtime meanwhile). */
export type WorkerPhase = 'standby' | 'starting' | 'loaded' | 'ready' | 'draining' | 'exited'

export interface WorkerEvents {
  /** The app loaded in this worker, with the settings it resolved. */
  loaded: [ResolvedSettings]
  ready: []
  fatal: [{ code: string; message: string }]
  exit: [{ code: number | null; signal: NodeJS.Signals | null; phase: WorkerPhase }]
  /** Requests in flight to the previous sidecar are done; new ones go to this URL. */
  upstream_drained: [string]
  message: [GatewayToSupervisor]
}

/** What a worker accepts on: the bound public port itself, or connections dealt by the supervisor. */
export type ListenTarget = object | ConnectionDispatcher

/**
 * The process under a WorkerHandle: forked by `forkWorker`, or in the supervisor's unit tests an
 * in-memory fake over `ipc/memory-channel.ts` (the seam that lets crash loops and reload races
 * run without processes).
 */
export interface WorkerProcess {
  readonly pid: number
  readonly channel: Channel<GatewayToSupervisor, SupervisorToGateway>
  /** It exited and whatever it left behind is gone. */
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void
  /** It exited and its channel was read to the end: every message it sent has arrived. */
  onClose(listener: () => void): void
  /** SIGKILL its whole tree (it, its group, its descendants, its cookie). */
  kill(): Promise<void>
}

/**
 * Fork `gateway/main.js` as its own process group with the tree cookie `cookie` in its env.
 * `stdout`: where its standard output goes (`log_file`); the supervisor's own by default.
 */
export function forkWorker(env: NodeJS.ProcessEnv, logger: Logger, cookie: string | null, stdout?: (stream: Readable) => void): WorkerProcess {
  const child = fork(GATEWAY_MAIN, [], {
    env: { ...env, ...childEnv({ treeId: cookie ?? undefined }) },
    execArgv: childExecArgv(env),
    detached: true,
    stdio: ['ignore', stdout ? 'pipe' : 'inherit', 'inherit', 'ipc'],
  })
  if (stdout && child.stdout) stdout(child.stdout)
  const tree: Tree = { pid: child.pid ?? null, cookie }
  const kill = async (): Promise<void> => {
    await killTree(tree)
  }
  child.on('error', () => {})
  return {
    pid: child.pid ?? -1,
    channel: processChannel(child, { incoming: GatewayToSupervisor, outgoing: SupervisorToGateway }, logger, `gateway worker ${child.pid}`),
    onExit: (listener) => child.once('exit', (code, signal) => void kill().then(() => listener(code, signal))),
    // 'close': exited and its IPC channel read to the end, so every acknowledgement it sent has
    // arrived; what it did not acknowledge, it never read. ('disconnect' is not enough: node
    // postpones it while a sent handle waits for the dead process's receipt, i.e. for ever.)
    onClose: (listener) => child.once('close', () => listener()),
    kill,
  }
}

export class WorkerHandle extends EventEmitter<WorkerEvents> implements ConnectionTaker {
  readonly startedAt = new Date()
  readonly #proc: WorkerProcess
  readonly #channel: Channel<GatewayToSupervisor, SupervisorToGateway>
  #phase: WorkerPhase = 'standby'
  /** The settings the app resolved when it loaded here; null before. */
  #settings: ResolvedSettings | null = null
  readonly #lifecycle = new ComposedLifecycle({ drain: () => this.#close(), abort: () => this.#kill() })
  /** Set by the first `drainWithin`; a plain `close()` is a shutdown within `shutdownGraceMs`. */
  #plan: { graceMs: number; reason: 'reload' | 'shutdown'; wsGraceMs: number } | null = null
  /** While draining: the SIGKILL if the worker has not exited by `#killAt`. */
  #killTimer: NodeJS.Timeout | null = null
  #killAt = 0

  /** What to listen on once loaded; null when not asked yet (or already sent). */
  #listenTarget: ListenTarget | null = null
  /** Set once this worker takes its connections from the supervisor. */
  #dispatcher: ConnectionDispatcher | null = null

  /** Resolves once `exit` was emitted (the tree is gone by then). */
  readonly #exited: Promise<void>

  readonly #loadTimeoutMs: number
  readonly #shutdownGraceMs: number

  /**
   * `loadTimeoutMs`: a worker still not `loaded` that long after `start()` is killed with a
   * `fatal` timeout. `shutdownGraceMs`: the drain grace of a plain `close()`. The worker loads the
   * app only once `start()` says so.
   */
  constructor(proc: WorkerProcess, timing: { loadTimeoutMs: number; shutdownGraceMs: number }) {
    super()
    this.#proc = proc
    this.#channel = proc.channel
    this.#loadTimeoutMs = timing.loadTimeoutMs
    this.#shutdownGraceMs = timing.shutdownGraceMs
    this.#exited = new Promise((resolve) => this.once('exit', () => resolve()))
    this.#channel.onMessage((msg) => {
      switch (msg.type) {
        case 'loaded':
          this.#phase = 'loaded'
          this.#settings = msg.settings
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
        case 'upstream_drained':
          this.emit('upstream_drained', msg.url)
          return
        default:
          this.emit('message', msg)
      }
    })
    proc.onClose(() => this.#dispatcher?.leave(this))
    proc.onExit((code, signal) => {
      const phase = this.#phase
      this.#phase = 'exited'
      this.emit('exit', { code, signal, phase })
    })
  }

  get pid(): number {
    return this.#proc.pid
  }

  /** Load the app now, with `settings` (the load deadline starts here). False if it was started already or is gone. */
  start(settings: ResolvedSettings): boolean {
    if (this.#phase !== 'standby' || !this.#channel.send({ svc: 1, type: 'start', settings })) return false
    this.#phase = 'starting'
    this.#armLoadTimer()
    return true
  }

  #armLoadTimer(): void {
    const loadTimer = setTimeout(() => {
      if (this.#phase !== 'starting') return
      const s = this.#loadTimeoutMs / 1000
      this.emit('fatal', {
        code: 'SVC_ERR_PROCESS_WORKER_START_TIMEOUT',
        message: `it did not finish loading within ${s} s (gateway_start_timeout_s): does the app module await something at import that never settles? Raise SVC_GATEWAY_START_TIMEOUT_S if loading takes longer`,
      })
      void this.#proc.kill()
    }, this.#loadTimeoutMs)
    this.once('loaded', () => clearTimeout(loadTimer))
    this.once('exit', () => clearTimeout(loadTimer))
  }

  get phase(): WorkerPhase {
    return this.#phase
  }

  /** The settings the app resolved when it loaded here; null until then. */
  get settings(): ResolvedSettings | null {
    return this.#settings
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

  /**
   * Drain over IPC within `graceMs`; SIGKILL after the grace plus a margin. A reload's drain keeps
   * the worker's WebSockets up to `wsGraceMs` (then closes them spread over
   * `WS_RETIRE_SPREAD_MS`), and the kill waits for that too. Called again while the worker drains,
   * the new drain goes to it (a shutdown closes its WebSockets now; a reload moves their
   * deadline) and the kill comes no later than the new deadline. The same promise as `close()`.
   */
  drainWithin(graceMs: number, reason: 'reload' | 'shutdown', wsGraceMs = 0): Promise<void> {
    const keepMs = reason === 'reload' ? wsGraceMs : 0
    if (!this.#lifecycle.closed) this.#plan = { graceMs, reason, wsGraceMs: keepMs }
    else if (this.#phase === 'draining' && !this.#lifecycle.destroyed) this.#drain(graceMs, reason, keepMs)
    return this.#lifecycle.close()
  }

  /** A shutdown drain within `shutdownGraceMs` (see `drainWithin`). Same promise on repeat. */
  close(): Promise<void> {
    return this.#lifecycle.close()
  }

  /** SIGKILL the worker's tree now (cutting a drain short); resolves once `exit` was emitted. Same promise on repeat. */
  destroy(): Promise<void> {
    return this.#lifecycle.destroy()
  }

  async #close(): Promise<void> {
    if (this.#phase === 'exited') return this.#exited
    const { graceMs, reason, wsGraceMs } = this.#plan ?? { graceMs: this.#shutdownGraceMs, reason: 'shutdown', wsGraceMs: 0 }
    this.#phase = 'draining'
    this.#drain(graceMs, reason, wsGraceMs)
    await this.#exited
    if (this.#killTimer) clearTimeout(this.#killTimer)
  }

  async #kill(): Promise<void> {
    void this.#proc.kill()
    await this.#exited
    if (this.#killTimer) clearTimeout(this.#killTimer)
  }

  #drain(graceMs: number, reason: 'reload' | 'shutdown', wsGraceMs: number): void {
    const msg = { svc: 1, type: 'drain', grace_ms: graceMs, reason, ...(wsGraceMs > 0 ? { ws_grace_ms: wsGraceMs } : {}) } satisfies SupervisorToGateway
    if (!this.#channel.send(msg)) void this.#proc.kill()
    const deadline = Date.now() + Math.max(graceMs, wsGraceMs > 0 ? wsGraceMs + WS_RETIRE_SPREAD_MS : 0) + WORKER_KILL_MARGIN_MS
    if (this.#killTimer && deadline >= this.#killAt) return
    if (this.#killTimer) clearTimeout(this.#killTimer)
    this.#killAt = deadline
    this.#killTimer = setTimeout(() => void this.#proc.kill(), deadline - Date.now())
  }

}
