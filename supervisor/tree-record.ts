import type { ExitReport, ReloadReport } from '../ipc/control.js'

/** Why a slot's process (or page thread) was started again: it crashed, ran past ui_run_timeout_s, or was recycled for a limit. */
export type RestartReason = 'crash' | 'run_timeout' | 'memory' | 'requests'
export type RecycleReason = 'memory' | 'requests'
export type TreeRole = 'gateway' | 'sidecar' | 'page_thread'

interface SlotRecord {
  restarts: number
  lastExit: ExitReport | null
}

/**
 * What happened to the tree since it started, for `svc status` and the process metrics: each
 * slot's restarts and last unplanned exit, the reloads (counted, the last one kept) and the
 * recycles. Planned drains (a reload's, a shutdown's) are not exits here.
 */
export class TreeRecord {
  readonly startedAt = new Date()
  readonly #slots = new Map<string, SlotRecord>()
  /** `role\0reason` → restarts (the metric's labels). */
  readonly #restarts = new Map<string, number>()
  readonly #recycles = new Map<string, number>()
  #reloads = { ok: 0, failed: 0, last: null as ReloadReport | null }

  /** `id` (`gateway-0`) ended unplanned; `detail` says how, for people. */
  exited(id: string, reason: ExitReport['reason'], detail: string): void {
    this.#slot(id).lastExit = { at: new Date().toISOString(), reason, detail }
  }

  /** `id` was started again in its slot. */
  restarted(id: string, role: TreeRole, reason: RestartReason): void {
    this.#slot(id).restarts++
    const key = `${role}\0${reason}`
    this.#restarts.set(key, (this.#restarts.get(key) ?? 0) + 1)
  }

  /** `id` was replaced for a limit: its exit, its restart, and the recycle count. */
  recycled(id: string, role: TreeRole, reason: RecycleReason, detail: string): void {
    this.exited(id, 'recycled', detail)
    this.restarted(id, role, reason)
    const key = `${role}\0${reason}`
    this.#recycles.set(key, (this.#recycles.get(key) ?? 0) + 1)
  }

  reloaded(report: ReloadReport): void {
    if (report.result === 'ok') this.#reloads.ok++
    else this.#reloads.failed++
    this.#reloads.last = report
  }

  slot(id: string): Readonly<SlotRecord> {
    return this.#slots.get(id) ?? { restarts: 0, lastExit: null }
  }

  get reloads(): Readonly<{ ok: number; failed: number; last: ReloadReport | null }> {
    return this.#reloads
  }

  /** Recycles by reason, every role together. */
  recyclesByReason(): Record<RecycleReason, number> {
    const out: Record<RecycleReason, number> = { memory: 0, requests: 0 }
    for (const [key, n] of this.#recycles) out[key.split('\0')[1] as RecycleReason] += n
    return out
  }

  /** Restarts as `[role, reason, count]`. */
  restartCounts(): [TreeRole, RestartReason, number][] {
    return [...this.#restarts].map(([key, n]) => [...(key.split('\0') as [TreeRole, RestartReason]), n])
  }

  /** Recycles as `[role, reason, count]`. */
  recycleCounts(): [TreeRole, RecycleReason, number][] {
    return [...this.#recycles].map(([key, n]) => [...(key.split('\0') as [TreeRole, RecycleReason]), n])
  }

  #slot(id: string): SlotRecord {
    let s = this.#slots.get(id)
    if (!s) this.#slots.set(id, (s = { restarts: 0, lastExit: null }))
    return s
  }
}
