import { Socket } from 'node:net'
import type { Logger } from 'pino'
import { isSvcError } from '../src/errors.js'
import { loadTarget, stopAppTransforms } from '../src/target/load-target.js'
import type { Channel } from '../ipc/channel.js'
import type { GatewayToSupervisor, SupervisorToGateway } from '../ipc/messages.js'
import { buildGateway, type Gateway } from './build.js'
import { createObservability } from './observability/worker-observability.js'
import { GatewayRuntime } from './runtime.js'
import { ORPHAN_GRACE_MS } from '../src/internal/deadlines.js'
import { Lifecycle } from '../src/internal/lifecycle.js'
import type { ResolvedSettings } from '../src/settings/schema.js'

/**
 * A gateway worker as an actor: it reacts to the supervisor's messages (listen, upstream, drain,
 * metrics) and to the supervisor vanishing (IPC disconnect → drain briefly and exit, so that
 * `kill -9` of the supervisor leaves no process and no bound port behind).
 */
export type WorkerState = 'idle' | 'loading' | 'loaded' | 'ready' | 'draining' | 'stopped'

export interface GatewayActorOptions {
  target: string
  /** The sidecar URL the worker starts with (`SVC_UI_UPSTREAM`). */
  uiUpstream: string
  /** The stable worker slot, the `worker` label of the metrics (`SVC_WORKER_ID`). */
  workerId: string
  logger: Logger
  /** Started by `svc dev` (`SVC_DEV_MODE`): mode-dependent defaults take their dev value. Default false. */
  devMode?: boolean
  /** How long a `close()` (a signal, not the supervisor's `drain`) gives in-flight work: `shutdown_grace_s`. */
  shutdownGraceMs: number
  channel: Channel<SupervisorToGateway, GatewayToSupervisor>
  exit: (code: number) => void
}

export class GatewayActor extends Lifecycle {
  readonly #opts: GatewayActorOptions
  #state: WorkerState = 'idle'
  #gateway: Gateway | null = null
  #runtime: GatewayRuntime | null = null
  /** Set by the first `drainWithin`; a plain `close()` drains within `shutdownGraceMs`. */
  #graces: { graceMs: number; wsGraceMs: number } | null = null
  #metricsJson: (() => Promise<unknown>) | null = null
  #nextMetricsId = 1
  readonly #pendingMetrics = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>()
  /** Takes a sign-out made elsewhere in the tree into the app's record; null until the app loaded (the supervisor sends the list after `loaded`). */
  #receiveSignOut: ((sid: string, until: number) => void) | null = null

  constructor(opts: GatewayActorOptions) {
    super()
    this.#opts = opts
  }

  get state(): WorkerState {
    return this.#state
  }

  async start(): Promise<void> {
    const { channel } = this.#opts
    channel.onMessage((msg, handle) => this.#onMessage(msg, handle))
    // Nobody waits for an orphan: WebSockets a reload's drain was keeping close now too.
    channel.onDisconnect(() => this.#onDrain(ORPHAN_GRACE_MS, 'shutdown', 0))
    this.#state = 'loading'
    let settings: ResolvedSettings
    try {
      const { app } = await loadTarget(this.#opts.target).finally(stopAppTransforms)
      settings = app.settings
      // Sign-outs made here (the logout route) reach the rest of the tree through the supervisor.
      const revocations = app.sessionRevocations
      revocations.relayTo((sid, until) => channel.send({ svc: 1, type: 'sessions_revoked', sessions: [{ sid, until }] }))
      this.#receiveSignOut = (sid, until) => revocations.receive(sid, until)
      const runtime = new GatewayRuntime(this.#opts.uiUpstream)
      this.#runtime = runtime
      if (settings.gateway_max_requests > 0) {
        // Each worker draws its own jitter, so workers started together are not replaced together.
        runtime.requestLimit = settings.gateway_max_requests + Math.floor(Math.random() * (settings.gateway_max_requests_jitter + 1))
        runtime.onRequestLimit = () => channel.send({ svc: 1, type: 'recycle_request', reason: 'requests', requests: runtime.requests })
      }
      const obs = await createObservability(app, { collectMetrics: () => this.#collectMetrics(), runtime, workerId: this.#opts.workerId })
      this.#metricsJson = obs.metricsJson
      this.#gateway = await buildGateway(app, { observer: obs.observer, internal: obs.internal, runtime, devMode: this.#opts.devMode })
      // Stopped while the app loaded: nothing was announced, nothing may serve.
      if (this.closed) {
        await this.#gateway.destroy()
        return
      }
    } catch (err) {
      if (this.closed) return
      // An app may throw anything, not only an Error.
      const message = err instanceof Error ? err.message : String(err)
      channel.send({ svc: 1, type: 'fatal', code: isSvcError(err) ? err.code : 'SVC_ERR_TARGET_IMPORT_FAILED', message })
      this.#state = 'stopped'
      this.#opts.exit(1)
      return
    }
    this.#state = 'loaded'
    channel.send({ svc: 1, type: 'loaded', pid: process.pid, settings })
  }

  #onMessage(msg: SupervisorToGateway, handle: unknown): void {
    switch (msg.type) {
      case 'start':
        // Read before the actor exists (gateway/await-start.ts): nothing to do here.
        return
      case 'listen':
        void this.#listen(handle)
        return
      case 'take_connections':
        this.#takeConnections()
        return
      case 'connection':
        this.#acceptConnection(msg.id, handle)
        return
      case 'upstream':
        void this.#switchUpstream(msg.url)
        return
      case 'drain':
        this.#onDrain(msg.grace_ms, msg.reason, msg.ws_grace_ms ?? 0)
        return
      case 'metrics_collect':
        void this.#answerCollect(msg.id)
        return
      case 'stats_request':
        this.#opts.channel.send({ svc: 1, type: 'stats', id: msg.id, requests: this.#runtime?.requests ?? 0 })
        return
      case 'metrics_result': {
        const pending = this.#pendingMetrics.get(msg.id)
        this.#pendingMetrics.delete(msg.id)
        if (msg.text !== undefined) pending?.resolve(msg.text)
        else pending?.reject(new Error(msg.error ?? 'metrics collection failed'))
        return
      }
      case 'sessions_revoked':
        for (const { sid, until } of msg.sessions) this.#receiveSignOut?.(sid, until)
        return
      default:
        msg satisfies never
    }
  }

  async #listen(handle: unknown): Promise<void> {
    const gw = this.#gateway
    if (!gw || this.#state !== 'loaded' || !handle) return
    try {
      await gw.server.listen(handle as object)
    } catch (err) {
      const e = err as NodeJS.ErrnoException
      this.#opts.channel.send({ svc: 1, type: 'fatal', code: 'SVC_ERR_PROCESS_PORT_IN_USE', message: `cannot listen on the public port: ${e.code ?? e.message}` })
      this.#state = 'stopped'
      this.#opts.exit(1)
      return
    }
    this.#state = 'ready'
    this.#opts.channel.send({ svc: 1, type: 'ready', pid: process.pid })
  }

  /** New requests go to `url` at once; the supervisor hears when those to the old sidecar are done. */
  async #switchUpstream(url: string): Promise<void> {
    await this.#gateway?.setUpstream(url)
    this.#opts.channel.send({ svc: 1, type: 'upstream_drained', pid: process.pid, url })
  }

  #takeConnections(): void {
    const gw = this.#gateway
    if (!gw || this.#state !== 'loaded') return
    gw.server.takeConnections()
    this.#state = 'ready'
    this.#opts.channel.send({ svc: 1, type: 'ready', pid: process.pid })
  }

  /**
   * A connection from the supervisor. The answer goes out before anything is read from the socket
   * (reads only start on the next turn of the event loop), so a refused or never-answered one is
   * still whole for the next worker.
   */
  #acceptConnection(id: number, handle: unknown): void {
    if (!(handle instanceof Socket)) {
      this.#opts.channel.send({ svc: 1, type: 'connection_ack', id, accepted: false })
      return
    }
    const accepted = this.#gateway?.server.acceptSocket(handle) ?? false
    this.#opts.channel.send({ svc: 1, type: 'connection_ack', id, accepted })
    // Only this process's copy: the supervisor still holds the connection.
    if (!accepted) handle.destroy()
  }

  async #answerCollect(id: number): Promise<void> {
    const data = this.#metricsJson ? await this.#metricsJson().catch(() => []) : []
    this.#opts.channel.send({ svc: 1, type: 'metrics_data', id, data })
  }

  #collectMetrics(): Promise<string> {
    const { channel } = this.#opts
    const id = this.#nextMetricsId++
    return new Promise((resolve, reject) => {
      this.#pendingMetrics.set(id, { resolve, reject })
      if (!channel.send({ svc: 1, type: 'metrics_request', id })) {
        this.#pendingMetrics.delete(id)
        reject(new Error('supervisor unreachable'))
      }
    })
  }

  /**
   * The supervisor's `drain`. A reload's keeps proxied WebSockets up to `wsGraceMs`; a second
   * drain while one runs changes only what happens to the WebSockets: a shutdown closes them now,
   * a reload moves their deadline.
   */
  #onDrain(graceMs: number, reason: 'reload' | 'shutdown', wsGraceMs: number): void {
    if (!this.closed) {
      void this.drainWithin(graceMs, reason === 'reload' ? wsGraceMs : 0)
      return
    }
    if (reason === 'shutdown') this.#gateway?.closeWebSockets()
    else this.#gateway?.retireWebSockets(wsGraceMs)
  }

  /**
   * Drain within `graceMs` (WebSockets: see Gateway.drainWithin), tell the supervisor, exit 0. The
   * same promise as `close()`; the first call sets the graces.
   */
  drainWithin(graceMs: number, wsGraceMs = 0): Promise<void> {
    this.#graces ??= { graceMs, wsGraceMs }
    return this.close()
  }

  protected async drain(): Promise<void> {
    if (this.#state === 'stopped') return
    const { graceMs, wsGraceMs } = this.#graces ?? { graceMs: this.#opts.shutdownGraceMs, wsGraceMs: 0 }
    this.#state = 'draining'
    const connections = (await this.#gateway?.server.openConnections()) ?? 0
    // Also a worker that never listened: its app may hold open pools its onClose hooks release.
    if (this.#gateway) await this.#gateway.drainWithin(graceMs, wsGraceMs)
    // destroy() cut the drain short and ends the worker itself.
    if (this.destroyed) return
    this.#state = 'stopped'
    this.#opts.channel.send({ svc: 1, type: 'drained', pid: process.pid, connections })
    this.#opts.logger.flush?.()
    this.#opts.exit(0)
  }

  /**
   * Stop now: connections and WebSockets dropped, the upstream pool aborted (requests waiting on it
   * fail with `err`), the app closed, exit 1 (not drained).
   */
  protected async abort(err: Error | undefined): Promise<void> {
    if (this.#state === 'stopped') return
    this.#state = 'stopped'
    await this.#gateway?.destroy(err)
    this.#opts.logger.flush?.()
    this.#opts.exit(1)
  }
}
