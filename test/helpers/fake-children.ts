import { EventEmitter, once } from 'node:events'
import type { Logger } from 'pino'
import type { Channel } from '../../ipc/channel.js'
import { memoryChannelPair } from '../../ipc/memory-channel.js'
import { GatewayToSupervisor, SidecarToSupervisor, SupervisorToGateway, SupervisorToSidecar } from '../../ipc/messages.js'
import { parseChildEnv } from '../../src/process/child-env.js'
import { optionsLayer, resolveSettings } from '../../src/settings/resolve.js'
import type { Children } from '../../supervisor/supervisor.js'
import type { SidecarProcess, SidecarSpec } from '../../supervisor/sidecar.js'
import type { WorkerProcess } from '../../supervisor/worker.js'

/**
 * In-memory children for the supervisor's unit tests: each fake speaks the real IPC protocol over
 * `ipc/memory-channel.ts`, so WorkerHandle, Sidecar and Supervisor run unchanged above them.
 * No process is started and no pid is real (fakes count from FAKE_PID_BASE, beyond pid_max), so
 * nothing here can signal a process of the machine.
 */
const FAKE_PID_BASE = 10_000_000

/** How a fake worker behaves: by default it loads (once started), listens, switches upstream and drains at once. */
export interface WorkerScript {
  /** `hold`: the app "imports" until `finishLoading()`; `never`: it never does. */
  load?: 'now' | 'hold' | 'never'
  /** `hang`: a drain never finishes (only a kill ends it). */
  drain?: 'now' | 'hang'
}

type Exit = { code: number | null; signal: NodeJS.Signals | null }

export class FakeWorker {
  readonly pid: number
  readonly slot: string
  readonly env: NodeJS.ProcessEnv
  /** Every message the supervisor sent, in order. */
  readonly received: SupervisorToGateway[] = []
  exit: Exit | null = null
  readonly process: WorkerProcess
  readonly #channel: Channel<SupervisorToGateway, GatewayToSupervisor>
  readonly #exitListeners: ((code: number | null, signal: NodeJS.Signals | null) => void)[] = []
  readonly #closeListeners: (() => void)[] = []
  readonly #script: WorkerScript
  readonly #log: string[]
  readonly #appOptions: Record<string, unknown>
  /** Forked as a standby worker (`SVC_WORKER_STANDBY=1`); every worker "loads" only on `start`. */
  readonly standby: boolean

  constructor(pid: number, env: NodeJS.ProcessEnv, logger: Logger, script: WorkerScript, log: string[], appOptions: Record<string, unknown>) {
    this.pid = pid
    this.env = env
    const parsed = parseChildEnv(env)
    this.slot = parsed.workerId ?? '?'
    this.standby = parsed.standby
    this.#script = script
    this.#log = log
    this.#appOptions = appOptions
    const [supervisorSide, workerSide] = memoryChannelPair({ a: GatewayToSupervisor, b: SupervisorToGateway }, logger, { a: 'supervisor', b: `fake worker ${pid}` })
    this.#channel = workerSide
    workerSide.onMessage((msg) => this.#onMessage(msg))
    this.process = {
      pid,
      channel: supervisorSide,
      onExit: (l) => void this.#exitListeners.push(l),
      onClose: (l) => void this.#closeListeners.push(l),
      kill: async () => this.die(null, 'SIGKILL'),
    }
  }

  get name(): string {
    return `worker${this.slot}#${this.pid - FAKE_PID_BASE}`
  }

  /** The app "imported"; `options`: its `new Svc({...})` options (none by default). */
  finishLoading(options: Record<string, unknown> = {}): void {
    this.#channel.send({ svc: 1, type: 'loaded', pid: this.pid, settings: resolveSettings([optionsLayer(options)]) })
  }

  /** The process ends (a crash when the supervisor did not ask). Exit listeners run on a later turn, as node's do. */
  die(code: number | null, signal: NodeJS.Signals | null = null): void {
    if (this.exit) return
    this.exit = { code, signal }
    this.#log.push(`${this.name}:exit`)
    this.#channel.disconnect()
    setImmediate(() => {
      for (const l of this.#exitListeners) l(code, signal)
      for (const l of this.#closeListeners) l()
    })
  }

  #onMessage(msg: SupervisorToGateway): void {
    this.received.push(msg)
    this.#log.push(`${this.name}:${msg.type}`)
    switch (msg.type) {
      case 'start':
        if ((this.#script.load ?? 'now') === 'now') this.finishLoading(this.#appOptions)
        return
      case 'listen':
      case 'take_connections':
        this.#channel.send({ svc: 1, type: 'ready', pid: this.pid })
        return
      case 'upstream':
        this.#channel.send({ svc: 1, type: 'upstream_drained', pid: this.pid, url: msg.url })
        return
      case 'drain':
        if (this.#script.drain === 'hang') return
        this.#channel.send({ svc: 1, type: 'drained', pid: this.pid, connections: 0 })
        this.die(0)
        return
      default:
    }
  }
}

export class FakeSidecar {
  readonly pid: number
  readonly spec: SidecarSpec
  /** Answers its health URL (200) once true; refuses connections before. */
  healthy: boolean
  exit: Exit | null = null
  readonly process: SidecarProcess
  readonly #exitListeners: ((code: number | null, signal: string | null) => void)[] = []
  readonly #channel: Channel<SupervisorToSidecar, SidecarToSupervisor>
  readonly #log: string[]
  /** How it answers the supervisor's `reload` (the bundled page server under --reload). */
  pagesReload: { moved: number } | { failed: string } = { moved: 0 }

  constructor(pid: number, spec: SidecarSpec, logger: Logger, healthy: boolean, log: string[]) {
    this.pid = pid
    this.spec = spec
    this.healthy = healthy
    this.#log = log
    const [supervisorSide, sidecarSide] = memoryChannelPair({ a: SidecarToSupervisor, b: SupervisorToSidecar }, logger, { a: 'supervisor', b: `fake sidecar ${pid}` })
    this.#channel = sidecarSide
    sidecarSide.onMessage((m) => {
      const r = this.pagesReload
      if (m.type === 'reload') {
        this.#log.push(`${this.name}:reload`)
        sidecarSide.send('failed' in r ? { svc: 1, type: 'reload_failed', id: m.id, summary: r.failed } : { svc: 1, type: 'reload_ready', id: m.id, ms: 1 })
      } else if (m.type === 'reload_commit') {
        this.#log.push(`${this.name}:reload_commit`)
        sidecarSide.send({ svc: 1, type: 'reloaded', id: m.id, moved: 'moved' in r ? r.moved : 0, ms: 1 })
      } else if (m.type === 'reload_abort') {
        this.#log.push(`${this.name}:reload_abort`)
      }
    })
    this.process = {
      pid,
      channel: supervisorSide,
      onExit: (l) => void this.#exitListeners.push(l),
      terminate: () => {
        this.#log.push(`${this.name}:terminate`)
        this.die(0)
      },
      kill: async () => this.die(null, 'SIGKILL'),
      health: async () => {
        if (!this.healthy) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
        return 200
      },
    }
  }

  get name(): string {
    return `sidecar:${this.spec.port}`
  }

  /** The bundled server's own report of a failed start, then its exit. */
  fail(code: string, message: string): void {
    this.#channel.send({ svc: 1, type: 'fatal', code, message })
    setImmediate(() => this.die(1))
  }

  die(code: number | null, signal: NodeJS.Signals | null = null): void {
    if (this.exit) return
    this.exit = { code, signal }
    this.#log.push(`${this.name}:exit`)
    this.#channel.disconnect()
    setImmediate(() => {
      for (const l of this.#exitListeners) l(code, signal)
    })
  }
}

/** The `Children` seam, faked; `workers`/`sidecars` list every fake in start order. */
export class FakeChildren extends EventEmitter<{ worker: [FakeWorker]; sidecar: [FakeSidecar] }> {
  readonly workers: FakeWorker[] = []
  readonly sidecars: FakeSidecar[] = []
  /** One line per event across all fakes (`worker0#1:drain`, `sidecar:5001:terminate`), in order. */
  readonly log: string[] = []
  /** Scripts for the next workers started, in order; then the default. */
  readonly scripts: WorkerScript[] = []
  /** Whether the next sidecars answer their health check at once; then true. */
  readonly sidecarHealth: boolean[] = []
  sweeps = 0
  /** The options the fake app passes to `new Svc({...})`, reported in each worker's `loaded`. */
  appOptions: Record<string, unknown> = {}
  #pids = FAKE_PID_BASE

  readonly children: Children = {
    worker: (env, logger) => {
      const w = new FakeWorker(++this.#pids, env, logger, this.scripts.shift() ?? {}, this.log, this.appOptions)
      this.workers.push(w)
      this.log.push(`${w.name}:start`)
      this.emit('worker', w)
      return w.process
    },
    sidecar: (spec, _cookie, logger) => {
      const s = new FakeSidecar(++this.#pids, spec, logger, this.sidecarHealth.shift() ?? true, this.log)
      this.sidecars.push(s)
      this.log.push(`${s.name}:start`)
      this.emit('sidecar', s)
      return s.process
    },
    sweep: async () => {
      this.sweeps++
    },
  }

  /** Fakes still "running" (not exited). */
  live(): FakeWorker[] {
    return this.workers.filter((w) => !w.exit)
  }

  async nextWorker(): Promise<FakeWorker> {
    const [w] = await once(this, 'worker')
    return w as FakeWorker
  }

  async nextSidecar(): Promise<FakeSidecar> {
    const [s] = await once(this, 'sidecar')
    return s as FakeSidecar
  }
}
