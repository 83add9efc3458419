import type { Logger } from 'pino'
import type { Readable } from 'node:stream'
import { setTimeout as delay } from 'node:timers/promises'
import { SvcError, isSvcError, svcErrorFromData } from '../src/errors.js'
import type { ResolvedSettings } from '../src/settings/schema.js'
import type { BoundPort } from './bind.js'
import type { AppProfile, GatewayToSupervisor } from '../ipc/messages.js'
import { describeExit, forkSidecar, Sidecar, type SidecarExit, type SidecarLauncher, type SidecarSpec } from './sidecar.js'
import { forkWorker, WorkerHandle, type ListenTarget, type WorkerProcess } from './worker.js'
import { ConnectionDispatcher } from './connection-dispatch.js'
import { RevokedSessions } from './revoked-sessions.js'
import { MetricsCollector } from './metrics-collector.js'
import { killTree, newTreeId } from '../src/process/kill-tree.js'
import { childEnv } from '../src/process/child-env.js'
import { Lifecycle } from '../src/internal/lifecycle.js'
import { FAILURE_DRAIN_MS, MAX_RETIRING_PER_SLOT, STATS_ANSWER_MS } from '../src/internal/deadlines.js'
import { TreeRecord, type RecycleReason } from './tree-record.js'
import type { Recycler } from './recycler.js'
import type { MetricJson } from '../src/internal/tree-metrics.js'

/**
 * The supervisor actor: owns the sidecar and the gateway workers and reacts to their events
 * (ready, fatal, exit) and to requests (reload, shutdown). Lifecycle:
 * idle → starting → running ⇄ reloading → stopping → stopped.
 */
export type SupervisorState = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped'
export type ReloadScope = 'gateway' | 'full'

/**
 * When a crashed worker is restarted: after `backoffBaseMs` × 2^(n−1), at most `backoffMaxMs`,
 * where n counts the crashes within `windowMs`; the `crashLimit`-th is a crash loop, which stops
 * svc instead of restarting forever.
 */
export interface RestartPolicy {
  crashLimit: number
  windowMs: number
  backoffBaseMs: number
  backoffMaxMs: number
}

export const RESTART_POLICY: RestartPolicy = { crashLimit: 5, windowMs: 60_000, backoffBaseMs: 100, backoffMaxMs: 5_000 }

/**
 * How the supervisor starts its children and sweeps what its run left: `forkChildren` forks real
 * processes; the unit tests pass in-memory fakes that speak the same IPC over `ipc/memory-channel.ts`.
 * Everything above the process (WorkerHandle, Sidecar, the supervisor) is the real code either way.
 */
export interface Children {
  worker(env: NodeJS.ProcessEnv, logger: Logger, cookie: string, stdout?: (stream: Readable) => void): WorkerProcess
  sidecar: SidecarLauncher
  /** End every process still carrying this run's id (`SVC_TREE_ID=<treeId>` or `<treeId>.<member>`). */
  sweep(treeId: string): Promise<void>
}

export const forkChildren: Children = {
  worker: forkWorker,
  sidecar: forkSidecar,
  sweep: async (treeId) => {
    await killTree({ cookie: treeId, instance: true })
  },
}

export interface SupervisorOptions {
  /** `SVC_TREE_ID` instance of this run when the caller made it first (the probe carried it); else a new one. */
  treeId?: string
  /** The app as the probe read it: its final settings (the supervisor never imports the app), pages and components. */
  profile: AppProfile
  logger: Logger
  /** Bind the public port for these settings. */
  bind: (s: ResolvedSettings) => Promise<BoundPort>
  /** The port is bound (nothing else started yet). */
  onBound?: (bound: BoundPort) => void
  /** Spec of a sidecar on a fresh port (each full reload gets a new one). */
  sidecarSpec: (s: ResolvedSettings, bound: BoundPort) => Promise<SidecarSpec>
  /** Env for gateway workers, given the sidecar URL. */
  workerEnv: (s: ResolvedSettings, bound: BoundPort, uiUpstream: string) => NodeJS.ProcessEnv
  /** Where the workers' standard output goes (`log_file`); the supervisor's own when absent. */
  workerStdout?: (stream: Readable) => void
  /** Called whenever what runs where changes (state file). */
  onTopology: (t: Topology) => void
  /**
   * The tree is done: exit the process with this code. `startError` is the error code when the
   * start failed (nothing served; `svc dev --reload` may wait for a fix instead of exiting).
   */
  onExit: (code: number, message?: string, startError?: string) => void
  /** Default `forkChildren`. */
  children?: Children
  /** Default `RESTART_POLICY`. */
  restart?: RestartPolicy
  /**
   * Keep one standby worker per slot (svc dev --reload): forked ahead with svc's runtime loaded,
   * it only imports the app when a reload starts it, so new code is served sooner.
   */
  standbyWorkers?: boolean
}

export interface Topology {
  /** `SVC_TREE_ID` instance of this run: every child's cookie starts with it. */
  treeId: string
  settings: ResolvedSettings
  bound: BoundPort
  sidecar: Sidecar
  workers: readonly WorkerHandle[]
}

/**
 * Settings a gateway reload cannot change: the bound address, the pid file, and how the sidecar
 * is started (a `full` reload starts a new one, so it may change those).
 */
const BIND_KEYS = ['gateway_host', 'gateway_port', 'pidfile', 'no_pidfile'] as const
const SIDECAR_LAUNCH_KEYS = ['ui_command', 'ui_health_path', 'root_path'] as const

/** How one reload ended: the new code serves, or why not (the running code serves on). */
export type ReloadResult =
  | { ok: true; scope: ReloadScope; workers: number[]; pagesMoved: number | null; ms: number }
  | { ok: false; scope: ReloadScope; code: string; message: string; ms: number }

export class Supervisor extends Lifecycle {
  readonly #o: SupervisorOptions
  readonly #children: Children
  readonly #restart: RestartPolicy
  #settings: ResolvedSettings
  /** The app as last read: the probe's at start, a reload's after it. */
  #profile: AppProfile
  #bound: BoundPort | null = null
  /** With several workers: the supervisor accepts and deals connections round-robin. */
  #dispatcher: ConnectionDispatcher | null = null
  #state: SupervisorState = 'idle'
  #sidecar: Sidecar | null = null
  /** A full reload's new sidecar until it answers: its death is the reload's failure, reported there. */
  #freshSidecar: Sidecar | null = null
  /** The sidecar a full reload replaces, until it exits; `draining` once the workers switched away from it. */
  #outgoingSidecar: { sidecar: Sidecar; draining: boolean } | null = null
  #workers: WorkerHandle[] = []
  /**
   * Workers a reload replaced, oldest first, until they exit: they keep their WebSockets up to
   * `gateway_ws_reload_grace_s`; `hurried` once told to close them now (too many generations).
   */
  #retiring: { worker: WorkerHandle; slot: number; hurried: boolean }[] = []
  /** Standby workers by slot (`standbyWorkers`); not serving, not in the topology. */
  #spares: (WorkerHandle | undefined)[] = []
  readonly #crashes: number[] = []
  /** Sign-outs made in the tree, handed to every gateway worker and page server it starts. */
  readonly #revoked = new RevokedSessions()
  #reloading: Promise<ReloadResult> | null = null
  #reloadPending: ReloadScope | null = null
  /** The newest probe read among the requests made while a reload ran. */
  #pendingProfile: AppProfile | null = null
  /** The reload that runs after the current one, for the requests made meanwhile. */
  #reloadQueued: Promise<ReloadResult> | null = null
  readonly #metrics: MetricsCollector
  /** What happened to the tree: restarts, exits, reloads, recycles (`svc status`, metrics). */
  readonly record = new TreeRecord()
  /** Watches the workers' memory for `gateway_max_memory_mb` while running. */
  #recycler: Recycler | null = null
  /** Slots whose worker is being replaced for a limit (one replacement per slot at a time). */
  readonly #replacing = new Set<number>()
  #statsIds = 0
  /** `stats_request`s to workers not answered yet, by id. */
  readonly #statsAnswers = new Map<number, (requests: number) => void>()
  /** Every process this run starts carries `SVC_TREE_ID=<treeId>.<member>` (`src/process/kill-tree.ts`). */
  readonly treeId: string
  #members = 0

  constructor(opts: SupervisorOptions) {
    super()
    this.#o = opts
    this.treeId = opts.treeId ?? newTreeId()
    this.#children = opts.children ?? forkChildren
    this.#restart = opts.restart ?? RESTART_POLICY
    this.#settings = opts.profile.settings
    this.#profile = opts.profile
    this.#metrics = new MetricsCollector(opts.logger, () => this.#workers.filter((w) => w.phase === 'ready'), () => this.#treeMetrics())
  }

  get state(): SupervisorState {
    return this.#state
  }

  get workers(): readonly WorkerHandle[] {
    return this.#workers
  }

  get sidecar(): Sidecar | null {
    return this.#sidecar
  }

  /** A full reload's new sidecar while it starts (`sidecar` is already it): not serving yet. */
  get sidecarStarting(): boolean {
    return this.#sidecar !== null && this.#sidecar === this.#freshSidecar
  }

  /**
   * The sidecar a full reload replaces, as `svc status` lists it: serving while the new one starts,
   * `draining` once the workers switched to the new one, until it exits.
   */
  get outgoingSidecar(): { sidecar: Sidecar; draining: boolean } | null {
    return this.#outgoingSidecar?.sidecar.exited ? null : this.#outgoingSidecar
  }

  /**
   * Every gateway worker with a pid, as `svc status` lists them: the serving set by slot, then
   * those a reload or a recycle replaced, still draining (oldest first).
   */
  get gatewayWorkers(): readonly { worker: WorkerHandle; slot: number; replaced: boolean }[] {
    return [
      ...this.#workers.map((worker, slot) => ({ worker, slot, replaced: false })),
      ...this.#retiring.filter((e) => e.worker.phase !== 'exited').map((e) => ({ worker: e.worker, slot: e.slot, replaced: true })),
    ]
  }

  /** The public port, once bound. */
  get bound(): BoundPort | null {
    return this.#bound
  }

  /** The settings the tree serves with (a reload that loads other settings replaces them). */
  get settings(): ResolvedSettings {
    return this.#settings
  }

  /**
   * Bind the public port, start the sidecar and the workers (in parallel), then let the workers
   * accept once the sidecar is healthy. The settings are final: the probe read them before.
   */
  async start(): Promise<void> {
    this.#state = 'starting'
    try {
      const settings = this.#settings
      const bound = await this.#o.bind(settings)
      this.#bound = bound
      this.#stillStarting()
      this.#o.logger.debug({ host: bound.host, port: bound.port }, `bound ${bound.host}:${bound.port}`)
      this.#o.onBound?.(bound)
      const sidecar = await this.#startSidecar()
      this.#workers = Array.from({ length: settings.workers }, (_, slot) => this.#spawnWorker(sidecar.url, slot))
      await sidecar.waitHealthy(settings.ui_startup_timeout_s * 1000)
      this.#tellRevoked(sidecar)
      this.#stillStarting()
      // One worker listens on the port itself: no supervisor hop to pay for.
      if (settings.workers > 1) {
        this.#dispatcher = new ConnectionDispatcher(bound.handle, this.#o.logger)
        await this.#dispatcher.listen()
        this.#stillStarting()
      }
      for (const w of this.#workers) w.listen(this.#listenTarget())
      await Promise.all(this.#workers.map((w) => waitReady(w)))
    } catch (err) {
      // Stopped while starting (Ctrl-C, svc shutdown): what failed did so because it was told
      // to stop, and the stop in progress ends the tree with its own exit code.
      if (this.#state !== 'starting') return
      const code = isSvcError(err) ? err.code : 'SVC_ERR_PROCESS_WORKER_START'
      // The human reads it once, as the `svc: error:` line on stderr; a JSON log keeps a record
      // for machines, a pretty one would only print it a second time.
      if (this.#settings.log_format === 'json') this.#o.logger.error({ code }, (err as Error).message)
      await this.#teardown()
      // The app's own options or module were bad: a usage error, as when found before start.
      const usage = code.startsWith('SVC_ERR_TARGET_') || code.startsWith('SVC_ERR_PIDFILE_') || code.startsWith('SVC_ERR_CONFIG_') || code === 'SVC_ERR_PROCESS_HOST_UNRESOLVABLE'
      this.#finish(usage ? 2 : 1, (err as Error).message, code)
      return
    }
    if (this.#state !== 'starting') return
    this.#state = 'running'
    // A sidecar that died after its health check but before the workers were ready.
    const died = this.#sidecar?.exited
    if (died && this.#sidecar) {
      this.#onSidecarExit(this.#sidecar, died)
      return
    }
    this.#topology()
    this.#refillSpares()
    void this.#watchMemory()
  }

  /** `gateway_max_memory_mb` set (at start, or by a reload): watch the workers' memory; unset: stop. Loaded only when set. */
  async #watchMemory(): Promise<void> {
    if (this.#settings.gateway_max_memory_mb === 0) {
      void this.#recycler?.close()
      this.#recycler = null
      return
    }
    if (this.#recycler) return
    const { Recycler } = await import('./recycler.js')
    if (this.#state !== 'running' || this.#recycler) return
    this.#recycler = new Recycler({ logger: this.#o.logger, workers: () => (this.#state === 'running' ? this.#workers : []), settings: () => this.#settings, recycle: (w, detail) => void this.replaceWorker(w, 'memory', detail) })
  }

  /**
   * Called after every wait in start(): a stop asked for meanwhile (Ctrl-C, svc shutdown) has
   * stopped what was started so far, so nothing more may start.
   */
  #stillStarting(): void {
    if (this.#state !== 'starting') throw new SvcError('SVC_ERR_PROCESS_START_CANCELLED', 'svc stopped while starting')
  }

  /** Fork a standby worker for every slot without a live one (only with `standbyWorkers`). */
  #refillSpares(): void {
    if (!this.#o.standbyWorkers || this.#state !== 'running' || !this.#sidecar) return
    for (let slot = 0; slot < this.#settings.workers; slot++) {
      const spare = this.#spares[slot]
      if (spare && spare.phase === 'standby') continue
      this.#spares[slot] = this.#spawnWorker(this.#sidecar.url, slot, true)
    }
  }

  /** The standby worker of `slot`, started with `settings`; undefined when there is none alive. */
  #startSpare(slot: number, settings: ResolvedSettings): WorkerHandle | undefined {
    const spare = this.#spares[slot]
    this.#spares[slot] = undefined
    return spare?.start(settings) ? spare : undefined
  }

  #dropSpares(): Promise<void> {
    const spares = this.#spares.filter((w): w is WorkerHandle => w !== undefined)
    this.#spares = []
    return Promise.all(spares.map((w) => w.destroy())).then(() => undefined)
  }

  /** A page server that answers its health check listens to IPC: it gets the sign-outs so far. */
  #tellRevoked(sidecar: Sidecar): void {
    const sessions = this.#revoked.list()
    if (sessions.length > 0) sidecar.tell({ svc: 1, type: 'sessions_revoked', sessions })
  }

  async #startSidecar(settings = this.#settings): Promise<Sidecar> {
    const spec = await this.#o.sidecarSpec(settings, this.#bound!)
    // A stop began while the port was picked: it has stopped the sidecars it knew of.
    if (this.#state === 'stopping' || this.#state === 'stopped') throw new SvcError('SVC_ERR_PROCESS_START_CANCELLED', 'svc is stopping')
    const sidecar = new Sidecar(spec, this.#cookie('sidecar'), this.#children.sidecar)
    sidecar.once('exit', (e) => this.#onSidecarExit(sidecar, e))
    sidecar.start(this.#o.logger, this.#profile)
    this.#o.logger.debug({ pid: sidecar.pid, port: spec.port, kind: spec.kind }, `started the ui sidecar (pid ${sidecar.pid}, port ${spec.port})`)
    this.#sidecar = sidecar
    return sidecar
  }

  #onSidecarExit(sidecar: Sidecar, e: SidecarExit): void {
    // While starting, start() itself notices (waitHealthy) and the first worker's verdict on the
    // app (a bad module is exit 2) must win over the sidecar tripping on the same bad app.
    if (sidecar !== this.#sidecar || sidecar === this.#freshSidecar || this.#state !== 'running') return
    const message = `ui sidecar exited (${describeExit(e)}); stopping svc`
    this.#o.logger.error({ code: 'SVC_ERR_PROCESS_SIDECAR_EXIT', exit_code: e.code, signal: e.signal }, message)
    void this.#stopAll(FAILURE_DRAIN_MS).then(() => this.#finish(1, message))
  }

  /**
   * `slot` (0..workers-1) is the stable worker id: a replacement keeps its predecessor's. A
   * standby worker waits for `start`; the others are told to load the app at once.
   */
  #spawnWorker(uiUpstream: string, slot: number, standby = false, settings = this.#settings): WorkerHandle {
    const env = { ...this.#o.workerEnv(settings, this.#bound!, uiUpstream), ...childEnv({ workerId: String(slot), standby }) }
    const w = new WorkerHandle(this.#children.worker(env, this.#o.logger, this.#cookie('worker'), this.#o.workerStdout), { loadTimeoutMs: settings.gateway_start_timeout_s * 1000, shutdownGraceMs: settings.shutdown_grace_s * 1000 })
    w.on('message', (msg) => this.#onWorkerMessage(w, msg))
    w.on('loaded', () => {
      const sessions = this.#revoked.list()
      if (sessions.length > 0) w.send({ svc: 1, type: 'sessions_revoked', sessions })
    })
    w.once('exit', (e) => this.#onWorkerExit(w, e))
    if (!standby) w.start(settings)
    this.#o.logger.debug({ pid: w.pid, worker: slot, standby }, `forked ${standby ? 'standby' : 'gateway'} worker ${w.pid} (slot ${slot})`)
    return w
  }

  #onWorkerMessage(w: WorkerHandle, msg: GatewayToSupervisor): void {
    switch (msg.type) {
      case 'metrics_request':
        void this.#metrics.collect().then(
          (text) => w.send({ svc: 1, type: 'metrics_result', id: msg.id, text }),
          (err: Error) => w.send({ svc: 1, type: 'metrics_result', id: msg.id, error: err.message }),
        )
        return
      case 'metrics_data':
        this.#metrics.receive(msg.id, msg.data)
        return
      case 'sessions_revoked': {
        // A sign-out on one worker: every other process of the tree refuses that sign-in too.
        const sessions = this.#revoked.add(msg.sessions)
        if (sessions.length === 0) return
        for (const other of [...this.#workers, ...this.#spares, ...this.#retiring.map((e) => e.worker)]) {
          if (other && other !== w) other.send({ svc: 1, type: 'sessions_revoked', sessions })
        }
        for (const sidecar of new Set([this.#sidecar, this.#freshSidecar])) sidecar?.tell({ svc: 1, type: 'sessions_revoked', sessions })
        return
      }
      case 'stats':
        this.#statsAnswers.get(msg.id)?.(msg.requests)
        this.#statsAnswers.delete(msg.id)
        return
      case 'recycle_request':
        void this.replaceWorker(w, 'requests', `${msg.requests} requests served, gateway_max_requests ${this.#settings.gateway_max_requests}`)
        return
      case 'drained':
      case 'upstream_drained':
      case 'connection_ack':
      case 'loaded':
      case 'ready':
      case 'fatal':
        return
      default:
        msg satisfies never
    }
  }

  #onWorkerExit(w: WorkerHandle, e: { code: number | null; signal: NodeJS.Signals | null; phase: string }): void {
    const i = this.#workers.indexOf(w)
    if (i === -1 || e.phase === 'draining' || this.#state !== 'running') return
    const policy = this.#restart
    const now = Date.now()
    this.#crashes.push(now)
    while (this.#crashes.length > 0 && now - this.#crashes[0]! > policy.windowMs) this.#crashes.shift()
    const how = e.signal ? `signal ${e.signal}` : `exit code ${e.code}`
    this.record.exited(`gateway-${i}`, 'crashed', how)
    if (this.#crashes.length >= policy.crashLimit) {
      const message = `gateway worker crashed ${policy.crashLimit} times within ${policy.windowMs / 1000} s (last: pid ${w.pid}, ${how}); stopping svc`
      this.#o.logger.error({ code: 'SVC_ERR_PROCESS_CRASH_LOOP' }, message)
      void this.#stopAll(FAILURE_DRAIN_MS).then(() => this.#finish(1, message))
      return
    }
    const backoff = Math.min(policy.backoffBaseMs * 2 ** (this.#crashes.length - 1), policy.backoffMaxMs)
    this.#o.logger.warn({ pid: w.pid, backoff_ms: backoff }, `gateway worker ${w.pid} exited unexpectedly (${how}); restarting in ${backoff} ms`)
    setTimeout(() => {
      if (this.#state !== 'running' || !this.#sidecar) return
      // A reload may have replaced the whole set meanwhile: the slot is filled, a restart would
      // serve untracked (never drained, never told a new upstream).
      const slot = this.#workers.indexOf(w)
      if (slot === -1) {
        this.#o.logger.info({ pid: w.pid }, `gateway worker ${w.pid} was replaced by a reload while waiting to restart; not restarting it`)
        return
      }
      const replacement = this.#spawnWorker(this.#sidecar.url, slot)
      this.#workers[slot] = replacement
      this.record.restarted(`gateway-${slot}`, 'gateway', 'crash')
      replacement.listen(this.#listenTarget())
      void waitReady(replacement).then(
        () => {
          this.#topology()
          this.#o.logger.info({ pid: replacement.pid, worker: slot, reason: 'crash' }, `gateway worker ${w.pid} restarted after a crash; ${replacement.pid} serves slot ${slot}`)
        },
        (err: Error) => this.#o.logger.error(`restarted gateway worker failed: ${err.message}`),
      )
    }, backoff).unref()
  }

  /**
   * Replace one worker that crossed a limit (`gateway_max_memory_mb`, `gateway_max_requests`)
   * the way a reload does: its successor in the same slot is ready before it drains, so no
   * request fails. Skipped while a reload runs (that replaces it anyway) or while its slot is
   * being replaced. Resolves true once the successor serves.
   */
  async replaceWorker(w: WorkerHandle, reason: RecycleReason, detail: string): Promise<boolean> {
    const slot = this.#workers.indexOf(w)
    if (slot === -1 || this.#state !== 'running' || this.#reloading || this.#replacing.has(slot) || !this.#sidecar) return false
    this.#replacing.add(slot)
    const { logger } = this.#o
    logger.info({ pid: w.pid, worker: slot, reason }, `recycling gateway worker ${w.pid} (${detail}): a new worker takes its place before it drains`)
    const next = this.#startSpare(slot, this.#settings) ?? this.#spawnWorker(this.#sidecar.url, slot)
    next.listen(this.#listenTarget())
    try {
      await waitReady(next)
    } catch (err) {
      await next.destroy()
      logger.error({ code: isSvcError(err) ? err.code : 'SVC_ERR_PROCESS_WORKER_START', pid: w.pid }, `recycling gateway worker ${w.pid} failed, it keeps serving: ${(err as Error).message}`)
      return false
    } finally {
      this.#replacing.delete(slot)
    }
    // A reload or a crash restart took the slot meanwhile: this successor is not needed.
    if (this.#state !== 'running' || this.#workers[slot] !== w) {
      await next.destroy()
      return false
    }
    this.#workers[slot] = next
    this.record.recycled(`gateway-${slot}`, 'gateway', reason, detail)
    this.#topology()
    this.#retire([{ worker: w, slot }])
    this.#refillSpares()
    logger.info({ pid: next.pid, worker: slot, reason }, `gateway worker ${w.pid} recycled (${reason}); ${next.pid} serves slot ${slot}`)
    return true
  }

  /** The tree's own series for a scrape (src/internal/tree-metrics.ts): restarts, memory by role, sessions, reloads, recycles. */
  async #treeMetrics(): Promise<MetricJson[]> {
    const [{ readProcesses }, { treeMetric }] = await Promise.all([import('./process-stats.js'), import('../src/internal/tree-metrics.js')])
    const sidecarPid = this.#sidecar?.spec.kind === 'command' ? (this.#sidecar.commandPid ?? this.#sidecar.pid) : (this.#sidecar?.pid ?? null)
    const gateways = [...this.#workers, ...this.#retiring.map((e) => e.worker)].map((w) => w.pid)
    const [readings, pages] = await Promise.all([readProcesses([process.pid, ...(sidecarPid ? [sidecarPid] : []), ...gateways]), this.#sidecar?.stats(STATS_ANSWER_MS, 0) ?? null])
    const rss = (pids: number[]): number => pids.reduce((sum, pid) => sum + (readings.get(pid)?.rssBytes ?? 0), 0)
    const restarts = this.record.restartCounts().map(([role, reason, value]) => ({ value, labels: { role, reason } }))
    const recycles = this.record.recycleCounts().map(([role, reason, value]) => ({ value, labels: { role, reason } }))
    if (pages) {
      const ends = pages.thread_exits
      restarts.push({ value: ends.crashed, labels: { role: 'page_thread', reason: 'crash' } }, { value: ends.killed, labels: { role: 'page_thread', reason: 'run_timeout' } }, { value: ends.recycled, labels: { role: 'page_thread', reason: 'memory' } })
      recycles.push({ value: ends.recycled, labels: { role: 'page_thread', reason: 'memory' } })
    }
    // The common series start at zero, so rate() works from the first scrape.
    if (!restarts.some((r) => r.labels.role === 'gateway' && r.labels.reason === 'crash')) restarts.push({ value: 0, labels: { role: 'gateway', reason: 'crash' } })
    return [
      treeMetric('svc_process_restarts_total', restarts),
      treeMetric('svc_process_resident_memory_bytes', [
        { value: rss([process.pid]), labels: { role: 'supervisor' } },
        { value: sidecarPid ? rss([sidecarPid]) : 0, labels: { role: 'sidecar' } },
        { value: rss(gateways), labels: { role: 'gateway' } },
      ]),
      treeMetric('svc_ui_page_sessions', pages ? [{ value: pages.sessions, labels: {} }] : []),
      treeMetric('svc_reloads_total', [
        { value: this.record.reloads.ok, labels: { result: 'ok' } },
        { value: this.record.reloads.failed, labels: { result: 'failed' } },
      ]),
      treeMetric('svc_recycles_total', recycles),
    ]
  }

  /** Requests each of `workers` served so far, by pid (a worker that does not answer within the deadline is left out). */
  async workerRequests(workers: readonly WorkerHandle[]): Promise<Map<number, number>> {
    const out = new Map<number, number>()
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            const id = ++this.#statsIds
            const timer = setTimeout(() => {
              this.#statsAnswers.delete(id)
              resolve()
            }, STATS_ANSWER_MS)
            this.#statsAnswers.set(id, (requests) => {
              clearTimeout(timer)
              out.set(w.pid, requests)
              resolve()
            })
            w.send({ svc: 1, type: 'stats_request', id })
          }),
      ),
    )
    return out
  }

  /**
   * Reload: `gateway` replaces the workers with zero downtime (new ones ready before the old
   * drain) and has the bundled page server load the new pages on fresh threads; `full` also
   * restarts the sidecar on a new port and tells the gateways. `profile`: the app as a probe just
   * read it (`svc reload`): its settings start the new workers (and how many); without it (a dev
   * save) they start with the running settings and report the app's when they load. Calls during
   * a reload coalesce into one more reload afterwards, whose result each of them gets.
   */
  reload(scope: ReloadScope, profile?: AppProfile): Promise<ReloadResult> {
    if (this.#state !== 'running') return Promise.resolve({ ok: false, scope, code: 'SVC_ERR_PROCESS_START_CANCELLED', message: `svc is ${this.#state}, not running`, ms: 0 })
    if (!this.#reloading) return this.#runReload(scope, profile)
    // Every request made while one runs is covered by the one reload queued after it (full if any asked for full).
    this.#reloadPending = this.#reloadPending === 'full' ? 'full' : scope
    if (profile) this.#pendingProfile = profile
    this.#reloadQueued ??= this.#reloading.then(() => {
      const next = this.#reloadPending ?? scope
      const nextProfile = this.#pendingProfile ?? undefined
      this.#reloadPending = null
      this.#pendingProfile = null
      this.#reloadQueued = null
      return this.#state === 'running' ? this.#runReload(next, nextProfile) : { ok: false, scope: next, code: 'SVC_ERR_PROCESS_START_CANCELLED', message: 'svc stopped before the reload ran', ms: 0 }
    })
    return this.#reloadQueued
  }

  #runReload(scope: ReloadScope, profile: AppProfile | undefined): Promise<ReloadResult> {
    const started = Date.now()
    const run = this.#reload(scope, profile)
      .catch((err: Error): ReloadResult => ({ ok: false, scope, code: isSvcError(err) ? err.code : 'SVC_ERR_PROCESS_WORKER_START', message: err.message, ms: 0 }))
      .then((r) => ({ ...r, ms: Date.now() - started }))
      .finally(() => {
        if (this.#reloading === run) this.#reloading = null
      })
    this.#reloading = run
    return run
  }

  async #reload(scope: ReloadScope, profile: AppProfile | undefined): Promise<ReloadResult> {
    const { logger } = this.#o
    const running = this.#settings
    const settings = profile?.settings ?? running
    const refused = profile ? this.#unreloadable(scope, settings) : null
    if (refused) {
      logger.error({ code: 'SVC_ERR_PROCESS_RELOAD_REFUSED' }, `reload refused, the running workers keep serving: ${refused}`)
      return { ok: false, scope, code: 'SVC_ERR_PROCESS_RELOAD_REFUSED', message: refused, ms: 0 }
    }
    if (scope === 'full') {
      // Standby workers were forked with the old sidecar's URL.
      await this.#dropSpares()
      const old = this.#sidecar!
      const outgoing = { sidecar: old, draining: false }
      this.#outgoingSidecar = outgoing
      let fresh: Sidecar
      if (profile) this.#profile = profile
      try {
        fresh = await this.#startSidecar(settings)
        this.#freshSidecar = fresh
        await fresh.waitHealthy(settings.ui_startup_timeout_s * 1000)
        this.#tellRevoked(fresh)
      } catch (err) {
        const message = `ui sidecar reload failed: ${(err as Error).message}`
        const code = isSvcError(err) ? err.code : 'SVC_ERR_PROCESS_SIDECAR_START'
        logger.error({ code }, message)
        // The workers still proxy to the old sidecar: it stops after them.
        void this.#stopAll(FAILURE_DRAIN_MS)
          .then(() => old.close())
          .then(() => this.#finish(1, message))
        return { ok: false, scope, code, message, ms: 0 }
      } finally {
        this.#freshSidecar = null
      }
      // Switch first, let what is in flight to the old sidecar finish (bounded by the grace), then
      // stop it: stopping it at once cut those requests (502s under load).
      // Workers retired by an earlier reload may still finish requests (and relay WebSockets) to
      // the old sidecar: they switch too, or its stop cuts theirs.
      const serving = [...this.#workers, ...this.#retiring.map((e) => e.worker)]
      outgoing.draining = true
      const switched = Promise.all(serving.map((w) => w.switchUpstream(fresh.url)))
      await Promise.race([switched, delay(running.shutdown_grace_s * 1000, undefined, { ref: false })])
      await old.close()
      if (this.#outgoingSidecar === outgoing) this.#outgoingSidecar = null
    }
    const sidecar = this.#sidecar!
    // The page server loads the new code next to the workers; its sessions move there once the
    // new workers serve (their reruns call the new API), and the reload is announced then.
    const pagesTimeoutMs = settings.ui_startup_timeout_s * 1000
    const pages = scope === 'gateway' ? sidecar.reloadPages(pagesTimeoutMs) : null
    const next = Array.from({ length: settings.workers }, (_, slot) => this.#startSpare(slot, settings) ?? this.#spawnWorker(sidecar.url, slot, false, settings))
    if (settings.workers > 1 && !this.#dispatcher) {
      // More workers than the start had: from now on the supervisor deals the connections.
      this.#dispatcher = new ConnectionDispatcher(this.#bound!.handle, logger)
      await this.#dispatcher.listen()
    }
    for (const w of next) w.listen(this.#listenTarget())
    const failed = async (code: string, message: string): Promise<ReloadResult> => {
      const loaded = await pages
      if (loaded?.ok) sidecar.abortPages(loaded.id)
      await Promise.all(next.map((w) => w.destroy()))
      logger.error({ code }, `reload failed, the running workers keep serving: ${message}`)
      this.#refillSpares()
      return { ok: false, scope, code, message, ms: 0 }
    }
    try {
      await Promise.all(next.map((w) => waitReady(w)))
    } catch (err) {
      // The pages failed on the same code (or not): either way one line, the workers' verdict.
      await pages
      return failed(isSvcError(err) ? err.code : 'SVC_ERR_PROCESS_WORKER_START', (err as Error).message)
    }
    const loaded = next[0]?.settings ?? settings
    // A save (no probe) is read by the new workers: what they cannot change here fails the reload.
    const drift = profile ? null : this.#unreloadable(scope, loaded)
    if (drift) {
      await pages
      return failed('SVC_ERR_PROCESS_RELOAD_REFUSED', drift)
    }
    const paged = await pages
    // Pages that did not switch keep the old code: so does the API, or the two would serve different saves.
    if (paged && !paged.ok) return failed('SVC_ERR_TARGET_IMPORT_FAILED', paged.summary)
    if (this.#state !== 'running') {
      if (paged?.ok) sidecar.abortPages(paged.id)
      await Promise.all(next.map((w) => w.destroy()))
      return { ok: false, scope, code: 'SVC_ERR_PROCESS_START_CANCELLED', message: 'svc stopped during the reload', ms: 0 }
    }
    const old = this.#workers
    this.#workers = next
    // A probe's settings are as asked (`--port 0` stays 0); a save's are as a worker resolved them.
    this.#settings = profile ? settings : loaded
    if (profile) this.#profile = profile
    this.#topology()
    this.#retire(old.map((worker, slot) => ({ worker, slot })))
    const moved = paged ? await sidecar.commitPages(paged.id, pagesTimeoutMs) : null
    void this.#watchMemory()
    const workers = next.map((w) => w.pid)
    if (paged) logger.info({ scope, workers, pages_moved: moved?.moved ?? null, pages_ms: paged.ms + (moved?.ms ?? 0) }, `reloaded (${scope}): ${next.length} new gateway worker(s) and fresh pages ready`)
    else logger.info({ scope, workers }, `reloaded (${scope}): ${next.length} new gateway worker(s) ready`)
    this.#refillSpares()
    return { ok: true, scope, workers, pagesMoved: moved ? moved.moved : null, ms: 0 }
  }

  /** Why `next` cannot be served by a reload of `scope`, or null. */
  #unreloadable(scope: ReloadScope, next: ResolvedSettings): string | null {
    const keys: readonly (keyof ResolvedSettings)[] = scope === 'gateway' ? [...BIND_KEYS, ...SIDECAR_LAUNCH_KEYS] : BIND_KEYS
    // Workers see the bound port in SVC_GATEWAY_PORT (never 0): that is no change.
    const same = (k: keyof ResolvedSettings): boolean => JSON.stringify(next[k]) === JSON.stringify(this.#settings[k]) || (k === 'gateway_port' && next.gateway_port === this.#bound?.port)
    const changed = keys.filter((k) => !same(k))
    if (changed.length === 0) return null
    const what = changed.map((k) => `${k} ${JSON.stringify(this.#settings[k])} → ${JSON.stringify(next[k])}`).join(', ')
    const launch = changed.every((k) => (SIDECAR_LAUNCH_KEYS as readonly string[]).includes(k))
    return launch ? `a gateway reload cannot change ${what}; run svc reload --scope full to restart the sidecar with it` : `a reload cannot change ${what}; restart svc to apply it`
  }

  /**
   * Drain the workers a reload replaced without waiting for them: they finish their requests
   * within `shutdown_grace_s` and keep their proxied WebSockets until those close or
   * `gateway_ws_reload_grace_s` passes (as nginx keeps upgraded connections on old workers).
   * Beyond `MAX_RETIRING_PER_SLOT` such generations (a burst of saves), the oldest close their
   * WebSockets now, still spread over time, so replaced workers do not pile up.
   */
  #retire(old: readonly { worker: WorkerHandle; slot: number }[]): void {
    const s = this.#settings
    const graceMs = s.shutdown_grace_s * 1000
    for (const { worker, slot } of old) {
      const entry = { worker, slot, hurried: false }
      this.#retiring.push(entry)
      void worker.drainWithin(graceMs, 'reload', s.gateway_ws_reload_grace_s * 1000).then(() => {
        this.#retiring = this.#retiring.filter((e) => e !== entry)
      })
    }
    const excess = this.#retiring.length - s.workers * MAX_RETIRING_PER_SLOT
    for (const entry of this.#retiring.slice(0, Math.max(0, excess))) {
      if (entry.hurried) continue
      entry.hurried = true
      void entry.worker.drainWithin(graceMs, 'reload', 0)
    }
  }

  /**
   * Graceful (`close()`): drain every worker within the grace, then stop the sidecar. A stop asked
   * for by a signal or `svc shutdown` says so in the log: a silent exit read like a crash.
   */
  protected async drain(): Promise<void> {
    const grace = this.#settings.shutdown_grace_s
    if (this.#state === 'running') this.#o.logger.info({ grace_s: grace }, 'stopping: gateway workers drain, then the ui sidecar stops')
    await this.#stopAll(grace * 1000)
    this.#o.logger.info('stopped')
    this.#finish(0)
  }

  /** Second Ctrl-C (`destroy()`): kill every worker tree now (the sidecar gets its short stop); exit 1. */
  protected async abort(): Promise<void> {
    this.#state = 'stopping'
    await this.#teardown()
    this.#finish(1, 'forced stop')
  }

  async #stopAll(graceMs: number): Promise<void> {
    if (this.#state === 'stopped') return
    this.#state = 'stopping'
    void this.#recycler?.close()
    void this.#dispatcher?.close()
    const retiring = this.#retiring.map((e) => e.worker)
    await Promise.all([...[...this.#workers, ...retiring].map((w) => w.drainWithin(graceMs, 'shutdown')), this.#dropSpares()])
    await this.#sidecar?.close()
  }

  async #teardown(): Promise<void> {
    this.#state = 'stopping'
    void this.#recycler?.destroy()
    void this.#dispatcher?.destroy()
    const retiring = this.#retiring.map((e) => e.worker)
    await Promise.all([...[...this.#workers, ...retiring].map((w) => w.destroy()), this.#dropSpares(), this.#sidecar?.close()])
  }

  #cookie(role: 'sidecar' | 'worker'): string {
    return `${this.treeId}.${role}-${++this.#members}`
  }

  #listenTarget(): ListenTarget {
    return this.#dispatcher ?? this.#bound!.handle
  }

  #topology(): void {
    if (this.#sidecar && this.#bound) {
      this.#o.onTopology({ treeId: this.treeId, settings: this.#settings, bound: this.#bound, sidecar: this.#sidecar, workers: this.#workers })
    }
  }

  #finish(code: number, message?: string, startError?: string): void {
    if (this.#state === 'stopped') return
    this.#state = 'stopped'
    // Every child is gone by now; anything of this run still around left the trees unnoticed.
    void this.#children.sweep(this.treeId).finally(() => this.#o.onExit(code, message, startError))
  }
}

/**
 * Resolve when the worker is `ready`; reject with its fatal error (rebuilt as the SvcError it
 * was) or its unexpected exit.
 */
function waitReady(w: WorkerHandle): Promise<void> {
  if (w.phase === 'ready') return Promise.resolve()
  return new Promise((resolve, reject) => {
    const onPhase = (): void => {
      cleanup()
      resolve()
    }
    const onFatal = (f: { code: string; message: string }): void => {
      cleanup()
      // A target error already says which file and why; other codes say which process.
      const message = f.code.startsWith('SVC_ERR_TARGET_') ? f.message : `gateway worker ${w.pid} could not load the app: ${f.message}`
      reject(svcErrorFromData({ code: f.code, message }))
    }
    const onExit = (e: { code: number | null; signal: NodeJS.Signals | null }): void => {
      cleanup()
      reject(new SvcError('SVC_ERR_PROCESS_WORKER_START', `gateway worker ${w.pid} exited during start-up (${e.signal ?? `exit code ${e.code}`})`))
    }
    const cleanup = (): void => {
      w.off('ready', onPhase)
      w.off('fatal', onFatal)
      w.off('exit', onExit)
    }
    w.on('ready', onPhase)
    w.on('fatal', onFatal)
    w.on('exit', onExit)
  })
}
