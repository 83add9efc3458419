import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import { Lifecycle } from '../../internal/lifecycle.js'
import { sessionRef } from '../session-ref.js'
import { svcTaskFailure, type TaskEvent, type TaskJob } from './task-runner.js'
import type { TaskRecord } from './task-types.js'

/** What a page session asks of the tasks of the page server (directly, or from a page thread by message). */
export interface TaskPort {
  start(sessionId: string, key: string, request: TaskStartRequest): void
  cancel(sessionId: string, key: string): void
  /** Cancel if running, and drop the record. */
  forget(sessionId: string, key: string): void
  /** The session was restored (another page thread, another replica): send the current record of each key, or null for a key this server does not know. */
  sync(sessionId: string, keys: readonly string[]): void
}

export interface TaskStartRequest {
  name: string
  input: unknown
  outlive: boolean
  requestId: string | null
}

/** Where task runs happen: the page server's task threads, or this thread (the test handle). */
export interface TaskExecutor {
  /** Start `job`; report through `onEvent` until its last event (`done`, `failed` or `ended`). */
  run(job: TaskJob, onEvent: (event: TaskEvent) => void): void
  /** Ask the run to stop (its signal aborts); an executor that cannot stop it otherwise ends it by force. */
  cancel(run: string): void
  /** The close contract (src/internal/lifecycle.ts): runs already cancelled get their time to stop. */
  close(): Promise<void>
  /** Every run ends now. */
  destroy(err?: Error): Promise<void>
}

/** Hands a record to the session that owns the key (null: this server does not know the key). */
export type TaskDelivery = (sessionId: string, key: string, record: TaskRecord | null) => void

export interface TaskLimits {
  /** `ui_task_max_running`: more wait queued. */
  maxRunning: number
  /** `ui_task_max_per_session`: more are refused. */
  maxPerSession: number
  /** `ui_task_timeout_s` in ms; 0 = none. */
  timeoutMs: number
}

interface Entry {
  readonly sessionId: string
  readonly key: string
  readonly record: TaskRecord
  readonly job: TaskJob
  /** Where the run is as far as the executor goes (the record may say `cancelled` while it still stops). */
  phase: 'queued' | 'running' | 'ended'
  timer: NodeJS.Timeout | null
  /** Its session ended and it outlives it: nobody is told about it any more. */
  orphan: boolean
}

interface IdleWaiter {
  sessionId: string | null
  resolve: () => void
}

function active(record: TaskRecord): boolean {
  return record.status === 'queued' || record.status === 'running'
}

/**
 * Every task of the page server: their records by session and key, the queue behind
 * `ui_task_max_running`, timeouts, cancellation, and the end of tasks with their session. Transport-free:
 * the page server wires it to page threads and task threads; the test handle runs it in-process.
 */
export class TaskManager extends Lifecycle implements TaskPort {
  readonly #executor: TaskExecutor
  readonly #deliver: TaskDelivery
  readonly #limits: TaskLimits
  readonly #logger: Logger
  readonly #sessions = new Map<string, Map<string, Entry>>()
  readonly #queue: Entry[] = []
  #running = 0
  readonly #detached = new Map<string, NodeJS.Timeout>()
  #idleWaiters: IdleWaiter[] = []

  constructor(options: { executor: TaskExecutor; deliver: TaskDelivery; limits: TaskLimits; logger: Logger }) {
    super()
    this.#executor = options.executor
    this.#deliver = options.deliver
    this.#limits = options.limits
    this.#logger = options.logger
  }

  /** Tasks running now (not those queued). */
  get running(): number {
    return this.#running
  }

  /** Tasks waiting for a place under `ui_task_max_running`. */
  get queued(): number {
    return this.#queue.length
  }

  start(sessionId: string, key: string, request: TaskStartRequest): void {
    const existing = this.#sessions.get(sessionId)?.get(key)
    if (existing && active(existing.record)) return this.#send(existing)
    const run = randomUUID()
    const record: TaskRecord = { run, name: request.name, status: 'queued', progress: null, message: null, error: null, startedAt: Date.now(), finishedAt: null, outlive: request.outlive }
    if (this.closed || this.#activeIn(sessionId) >= this.#limits.maxPerSession) {
      record.status = 'error'
      record.finishedAt = record.startedAt
      record.error = this.closed
        ? svcTaskFailure('TaskInterrupted', 'The page server is stopping; start the task again once the page is back.', request.requestId)
        : svcTaskFailure('TaskLimit', `This page already has ${this.#limits.maxPerSession} tasks queued or running (ui_task_max_per_session); wait for one to end.`, request.requestId)
      this.#deliver(sessionId, key, { ...record })
      return
    }
    const job: TaskJob = { run, name: request.name, input: request.input, requestId: request.requestId, sessionRef: sessionRef(sessionId) }
    const entry: Entry = { sessionId, key, record, job, phase: 'queued', timer: null, orphan: false }
    let keys = this.#sessions.get(sessionId)
    if (!keys) this.#sessions.set(sessionId, (keys = new Map<string, Entry>()))
    keys.set(key, entry)
    this.#queue.push(entry)
    this.#send(entry)
    this.#pump()
  }

  cancel(sessionId: string, key: string): void {
    const entry = this.#sessions.get(sessionId)?.get(key)
    if (entry) this.#cancel(entry)
  }

  forget(sessionId: string, key: string): void {
    const keys = this.#sessions.get(sessionId)
    const entry = keys?.get(key)
    if (!entry) return
    this.#cancel(entry)
    keys!.delete(key)
  }

  sync(sessionId: string, keys: readonly string[]): void {
    this.attach(sessionId)
    const held = this.#sessions.get(sessionId)
    for (const key of keys) {
      const entry = held?.get(key)
      if (entry) this.#send(entry)
      else this.#deliver(sessionId, key, null)
    }
  }

  /** The session ended: its tasks stop, but those that outlive it (they finish unobserved). */
  endSession(sessionId: string): void {
    const timer = this.#detached.get(sessionId)
    if (timer) clearTimeout(timer)
    this.#detached.delete(sessionId)
    const keys = this.#sessions.get(sessionId)
    if (!keys) return
    this.#sessions.delete(sessionId)
    for (const entry of keys.values()) {
      if (entry.record.outlive && active(entry.record)) entry.orphan = true
      else this.#cancel(entry, false)
    }
    this.#wake()
  }

  /**
   * The session lost its page thread (a crash) and may not come back: its tasks end with it after
   * `ttlMs` unless a page thread opens it again (`attach`, `sync`).
   */
  detach(sessionId: string, ttlMs: number): void {
    if (!this.#sessions.has(sessionId) || this.#detached.has(sessionId)) return
    const timer = setTimeout(() => this.endSession(sessionId), Math.max(1, ttlMs))
    timer.unref()
    this.#detached.set(sessionId, timer)
  }

  attach(sessionId: string): void {
    const timer = this.#detached.get(sessionId)
    if (timer) clearTimeout(timer)
    this.#detached.delete(sessionId)
  }

  /** Resolves once no task of `sessionId` (of any session, with null) is queued or running. */
  idle(sessionId: string | null = null): Promise<void> {
    if (this.#quiet(sessionId)) return Promise.resolve()
    return new Promise((resolve) => this.#idleWaiters.push({ sessionId, resolve }))
  }

  /**
   * The page server stops and its tasks end with it, those that outlive their session too: each
   * is cancelled, and the executor waits for the runs to stop (bounded: task-thread-pool.ts).
   */
  protected async drain(): Promise<void> {
    this.#cancelAll()
    await this.#executor.close()
  }

  /** Every task is cancelled and its run ends now, stopped or not. */
  protected async abort(err: Error | undefined): Promise<void> {
    this.#cancelAll()
    await this.#executor.destroy(err)
  }

  #cancelAll(): void {
    for (const keys of this.#sessions.values()) for (const entry of keys.values()) this.#cancel(entry, false)
    for (const timer of this.#detached.values()) clearTimeout(timer)
    this.#detached.clear()
  }

  #activeIn(sessionId: string): number {
    let n = 0
    for (const entry of this.#sessions.get(sessionId)?.values() ?? []) if (active(entry.record)) n++
    return n
  }

  #pump(): void {
    while (this.#running < this.#limits.maxRunning && this.#queue.length > 0) {
      const entry = this.#queue.shift()!
      entry.phase = 'running'
      this.#running++
      if (this.#limits.timeoutMs > 0) {
        entry.timer = setTimeout(() => this.#timedOut(entry), this.#limits.timeoutMs)
        entry.timer.unref()
      }
      this.#executor.run(entry.job, (event) => this.#onEvent(entry, event))
    }
  }

  #onEvent(entry: Entry, event: TaskEvent): void {
    if (entry.phase === 'ended') return
    const record = entry.record
    switch (event.kind) {
      case 'running':
        if (record.status !== 'queued') return
        record.status = 'running'
        break
      case 'update':
        if (!active(record)) return
        record.progress = event.progress
        record.message = event.message
        if (event.partial) record.partial = event.partial.value
        break
      case 'done':
        return this.#ended(entry, { status: 'done', result: event.result, progress: 1 })
      case 'failed':
        return this.#ended(entry, { status: 'error', error: event.failure })
      case 'ended':
        return this.#ended(entry, { status: 'cancelled' })
      default: {
        const never: never = event
        return never
      }
    }
    this.#send(entry)
    this.#wake()
  }

  /** The run's last word: its slot frees; a record still going takes the outcome (one cancelled or timed out keeps its own). */
  #ended(entry: Entry, outcome: Partial<TaskRecord>): void {
    this.#end(entry)
    if (active(entry.record)) {
      Object.assign(entry.record, outcome, { finishedAt: Date.now() })
      this.#send(entry)
    }
    this.#wake()
  }

  #timedOut(entry: Entry): void {
    entry.timer = null
    if (entry.phase !== 'running' || !active(entry.record)) return
    const seconds = this.#limits.timeoutMs / 1000
    this.#logger.warn({ code: 'SVC_ERR_UI_TASK_TIMEOUT', task: entry.record.name, session_ref: entry.job.sessionRef, seconds }, `ui task took longer than ${seconds} s (ui_task_timeout_s) and was cancelled`)
    entry.record.status = 'error'
    entry.record.error = svcTaskFailure('TaskTimeout', `The task took longer than ${seconds} s (ui_task_timeout_s) and was stopped.`, entry.job.requestId)
    entry.record.finishedAt = Date.now()
    this.#send(entry)
    this.#executor.cancel(entry.record.run)
    this.#wake()
  }

  /** The record says `cancelled` at once; a running task is asked to stop and holds its slot until it has. */
  #cancel(entry: Entry, tell = true): void {
    if (!active(entry.record)) return
    entry.record.status = 'cancelled'
    entry.record.finishedAt = Date.now()
    if (entry.phase === 'queued') {
      this.#queue.splice(this.#queue.indexOf(entry), 1)
      entry.phase = 'ended'
    } else this.#executor.cancel(entry.record.run)
    if (tell) this.#send(entry)
    this.#wake()
  }

  #end(entry: Entry): void {
    entry.phase = 'ended'
    this.#running--
    if (entry.timer) clearTimeout(entry.timer)
    entry.timer = null
    if (entry.orphan) this.#logger.info({ task: entry.record.name, session_ref: entry.job.sessionRef }, 'ui task that outlived its session ended')
    this.#pump()
  }

  #send(entry: Entry): void {
    if (entry.orphan) return
    this.#deliver(entry.sessionId, entry.key, { ...entry.record })
  }

  #quiet(sessionId: string | null): boolean {
    const sessions = sessionId === null ? [...this.#sessions.values()] : [this.#sessions.get(sessionId) ?? new Map<string, Entry>()]
    return sessions.every((keys) => [...keys.values()].every((e) => !active(e.record) && e.phase !== 'running' && e.phase !== 'queued'))
  }

  #wake(): void {
    if (this.#idleWaiters.length === 0) return
    const still: IdleWaiter[] = []
    for (const w of this.#idleWaiters) {
      if (this.#quiet(w.sessionId)) w.resolve()
      else still.push(w)
    }
    this.#idleWaiters = still
  }
}
