import { SvcError } from '../../errors.js'
import type { TaskPort } from './task-manager.js'
import { svcTaskFailure } from './task-runner.js'
import { isTaskDefinition, isTaskFinished, type TaskDefinition, type TaskHandle, type TaskOptions, type TaskRecord } from './task-types.js'

/** Longest key of `st.task(key, …)`. */
export const MAX_TASK_KEY_LENGTH = 200

/** A key's task changed: `status` is true when its status did (the page reruns then; fragments that read it on every change). */
export type TaskChange = (key: string, statusChanged: boolean) => void

/**
 * The tasks of one page session as the session sees them: the latest record of each key (the
 * task manager sends them; starts and cancels show at once, before it answers), and the
 * handles `st.task` returns.
 */
export class SessionTasks {
  readonly #records = new Map<string, TaskRecord>()
  /** Per key, the run the page moved past (cancelled, cleared, restarted): late news of it is ignored. */
  readonly #left = new Map<string, string>()
  readonly #sessionId: string
  readonly #port: TaskPort | null
  readonly #maxPerSession: number
  readonly #changed: TaskChange

  constructor(options: { sessionId: string; port: TaskPort | null; maxPerSession: number; changed: TaskChange }) {
    this.#sessionId = options.sessionId
    this.#port = options.port
    this.#maxPerSession = options.maxPerSession
    this.#changed = options.changed
  }

  get size(): number {
    return this.#records.size
  }

  /** `st.task(key, task, options)` in a run: the handle, after starting the task when `input` is given and the key has none. */
  handle<I, R, P>(key: string, task: TaskDefinition<I, R, P>, options: TaskOptions<I>, requestId: string | null): TaskHandle<I, R, P> {
    if (typeof key !== 'string' || key === '' || key.length > MAX_TASK_KEY_LENGTH) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `st.task(key, task): the key must be a non-empty string of at most ${MAX_TASK_KEY_LENGTH} characters, e.g. st.task('export', exportTask)`)
    }
    if (!isTaskDefinition(task)) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `st.task(${JSON.stringify(key)}, task): pass a task declared in the app module with app.task(name, fn)`)
    }
    const held = this.#records.get(key)
    if (held && held.name !== task.name) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `st.task(${JSON.stringify(key)}, …): this key holds the task "${held.name}", not "${task.name}"; give each task its own key`)
    }
    if (!held && 'input' in options && this.#port) this.#start(key, task.name, options.input, options.outliveSession === true, requestId)
    const record = this.#records.get(key)
    const actions = {
      start: (input: I) => this.#start(key, task.name, input, options.outliveSession === true, requestId),
      cancel: () => this.#cancel(key),
      clear: () => this.#clear(key),
    }
    return handleOf(key, task.name, record, actions) as TaskHandle<I, R, P>
  }

  /** A record from the task manager (null: the server does not know the key, after a restore). */
  apply(key: string, record: TaskRecord | null): void {
    const held = this.#records.get(key)
    if (record === null) {
      if (!held || isTaskFinished(held.status)) return
      this.#records.set(key, {
        ...held,
        status: 'error',
        error: svcTaskFailure('TaskInterrupted', 'The task was interrupted: the server that ran it stopped (a restart, or this page moved to another server). Start it again.', null),
        finishedAt: Date.now(),
      })
      return this.#changed(key, true)
    }
    if (record.run === this.#left.get(key)) return
    // A run's end is final: an update that was on its way when the page cancelled it does not bring it back.
    if (held && held.run === record.run && isTaskFinished(held.status) && !isTaskFinished(record.status)) return
    this.#records.set(key, record)
    this.#changed(key, held?.status !== record.status)
  }

  /** Every record, for the session's snapshot. */
  entries(): IterableIterator<[string, TaskRecord]> {
    return this.#records.entries()
  }

  /** Records from a snapshot (another page thread or replica): those still going are checked with this server's task manager. */
  restore(records: ReadonlyMap<string, TaskRecord>): void {
    const going: string[] = []
    for (const [key, record] of records) {
      this.#records.set(key, record)
      if (!isTaskFinished(record.status)) going.push(key)
    }
    if (going.length > 0) this.#port?.sync(this.#sessionId, going)
  }

  #start(key: string, name: string, input: unknown, outlive: boolean, requestId: string | null): boolean {
    const held = this.#records.get(key)
    if (held && !isTaskFinished(held.status)) return false
    if (!this.#port) throw new SvcError('SVC_ERR_UI_BAD_CALL', `st.task(${JSON.stringify(key)}): tasks run only in the page server and the test handle`)
    let active = 0
    for (const r of this.#records.values()) if (!isTaskFinished(r.status)) active++
    if (active >= this.#maxPerSession) {
      throw new SvcError('SVC_ERR_UI_TASK_LIMIT', `st.task(${JSON.stringify(key)}): this page already has ${active} tasks queued or running (ui_task_max_per_session is ${this.#maxPerSession}); wait for one to end or cancel one`)
    }
    try {
      structuredClone(input)
    } catch (err) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `st.task(${JSON.stringify(key)}): the task's input cannot be sent to a task thread (${(err as Error).message}); pass plain data: objects, arrays, strings, numbers, Dates, Maps, typed arrays`)
    }
    if (held) this.#left.set(key, held.run)
    this.#records.set(key, { run: '', name, status: 'queued', progress: null, message: null, error: null, startedAt: Date.now(), finishedAt: null, outlive })
    this.#port.start(this.#sessionId, key, { name, input, outlive, requestId })
    this.#changed(key, true)
    return true
  }

  #cancel(key: string): boolean {
    const held = this.#records.get(key)
    if (!held || isTaskFinished(held.status)) return false
    this.#records.set(key, { ...held, status: 'cancelled', finishedAt: Date.now() })
    this.#port?.cancel(this.#sessionId, key)
    this.#changed(key, true)
    return true
  }

  #clear(key: string): void {
    const held = this.#records.get(key)
    if (!held) return
    this.#left.set(key, held.run)
    this.#records.delete(key)
    this.#port?.forget(this.#sessionId, key)
    this.#changed(key, true)
  }
}

interface Actions {
  start(input: unknown): boolean
  cancel(): boolean
  clear(): void
}

function handleOf(key: string, name: string, record: TaskRecord | undefined, actions: Actions): TaskHandle {
  const status = record?.status ?? 'idle'
  return Object.freeze({
    key,
    name,
    status,
    running: status === 'queued' || status === 'running',
    progress: record?.progress ?? null,
    message: record?.message ?? null,
    partial: record?.partial,
    result: status === 'done' ? record!.result : undefined,
    error: status === 'error' ? record!.error! : null,
    startedAt: record?.startedAt == null ? null : new Date(record.startedAt),
    finishedAt: record?.finishedAt == null ? null : new Date(record.finishedAt),
    ...actions,
  }) as TaskHandle
}
