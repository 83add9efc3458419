import type { Logger } from 'pino'
import type { ReloadReport } from '../ipc/control.js'
import type { ProbeOutcome } from '../probe/run-probe.js'
import type { ReloadScope, ReloadResult, Supervisor } from './supervisor.js'

export type ReloadTrigger = ReloadReport['trigger']

interface Queued {
  scope: ReloadScope
  trigger: ReloadTrigger
  probe: boolean
  /** When the first of the requests it serves was received (epoch ms). */
  receivedAt: number
  report: Promise<ReloadReport> | null
}

/**
 * Every reload of a running tree goes through here, one at a time: `svc reload` and SIGHUP read
 * the app again with a probe first (the new settings, workers count included, and a syntax error
 * found before anything starts); a save under `svc dev --reload` goes straight to new workers
 * (standby workers keep that fast). Requests made while one runs are served by one more reload
 * afterwards (full if any asked for full, with a probe if any asked for one), whose report each
 * of them gets: reloads are serialised, never interleaved. A report's time runs from the moment
 * the request was received (the first one, for such a reload), so it covers the wait and the probe.
 */
export class Reloads {
  readonly #supervisor: Supervisor
  readonly #probe: () => Promise<ProbeOutcome>
  readonly #logger: Logger
  #running: Promise<ReloadReport> | null = null
  #queued: Queued | null = null

  constructor(options: { supervisor: Supervisor; probe: () => Promise<ProbeOutcome>; logger: Logger }) {
    this.#supervisor = options.supervisor
    this.#probe = options.probe
    this.#logger = options.logger
  }

  request(scope: ReloadScope, trigger: ReloadTrigger): Promise<ReloadReport> {
    const probe = trigger !== 'watch'
    const receivedAt = Date.now()
    if (!this.#running) return this.#start(scope, trigger, probe, receivedAt)
    if (this.#queued) {
      const q = this.#queued
      q.scope = q.scope === 'full' ? 'full' : scope
      q.probe ||= probe
      q.trigger = trigger
      return q.report!
    }
    const q: Queued = { scope, trigger, probe, receivedAt, report: null }
    q.report = this.#running.then(() => {
      this.#queued = null
      return this.#start(q.scope, q.trigger, q.probe, q.receivedAt)
    })
    this.#queued = q
    return q.report
  }

  #start(scope: ReloadScope, trigger: ReloadTrigger, probe: boolean, receivedAt: number): Promise<ReloadReport> {
    const run = this.#run(scope, trigger, probe, receivedAt).finally(() => {
      if (this.#running === run) this.#running = null
    })
    this.#running = run
    return run
  }

  async #run(scope: ReloadScope, trigger: ReloadTrigger, probe: boolean, receivedAt: number): Promise<ReloadReport> {
    const startedAt = Date.now()
    let result: ReloadResult
    let loadMs: number | null = null
    if (probe) {
      const outcome = await this.#probe()
      loadMs = Date.now() - startedAt
      if (outcome.ok) result = await this.#supervisor.reload(scope, outcome.profile)
      else {
        this.#logger.error({ code: outcome.code }, `reload failed, the running code keeps serving: ${outcome.message}`)
        result = { ok: false, scope, code: outcome.code, message: outcome.message, ms: 0 }
      }
    } else result = await this.#supervisor.reload(scope)
    const report: ReloadReport = {
      at: new Date(receivedAt).toISOString(),
      trigger,
      scope,
      result: result.ok ? 'ok' : 'failed',
      duration_ms: Date.now() - receivedAt,
      queued_ms: startedAt - receivedAt,
      load_ms: loadMs,
      switch_ms: result.ms,
      workers: result.ok ? result.workers : [],
      pages_moved: result.ok ? result.pagesMoved : null,
      error: result.ok ? null : { code: result.code, message: result.message },
    }
    this.#supervisor.record.reloaded(report)
    return report
  }
}
