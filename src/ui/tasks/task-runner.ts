import type { Logger } from 'pino'
import { SvcError } from '../../errors.js'
import type { ApiClient } from '../../client/api-client.js'
import { runWithRequestId } from '../../logging/context.js'
import { scrubShownText } from '../../logging/secret-scrub.js'
import type { RegisteredSecrets } from '../../secrets/register.js'
import type { TaskContext, TaskDefinition, TaskFailure } from './task-types.js'

/** Progress and partial results go to the page at most this often (the latest values win). */
export const TASK_UPDATE_EVERY_MS = 100

/** One run of a task, as the task manager hands it to an executor. */
export interface TaskJob {
  run: string
  name: string
  input: unknown
  /** The request ID of the page socket that started it (log lines carry it). */
  requestId: string | null
  /** `sessionRef` of the session (never the id itself). */
  sessionRef: string
}

/** What an executor reports about a run; `done`, `failed` and `ended` are its last word. */
export type TaskEvent =
  | { kind: 'running' }
  | { kind: 'update'; progress: number | null; message: string | null; partial?: { value: unknown } }
  | { kind: 'done'; result: unknown }
  | { kind: 'failed'; failure: TaskFailure }
  /** The run stopped after it was cancelled (whatever it returned or threw). */
  | { kind: 'ended' }

export interface TaskRunDeps {
  client: ApiClient
  secrets: RegisteredSecrets
  logger: Logger
  showErrorDetails: boolean
  signal: AbortSignal
  /** Throws when the event cannot be sent (a value that cannot be cloned). */
  emit(event: TaskEvent): void
}

/**
 * Run `def` for `job`: progress and partial results are sent at most every
 * `TASK_UPDATE_EVERY_MS` (checked on every call, so a loop that never yields still reports),
 * then exactly one last event. A task that throws gets a failure the visitor may see
 * (`show_error_details` rules); the full error goes to the log.
 */
export async function runTaskJob(def: TaskDefinition, job: TaskJob, deps: TaskRunDeps): Promise<void> {
  const logger = deps.logger.child({ task: job.name, session_ref: job.sessionRef })
  let pending: Extract<TaskEvent, { kind: 'update' }> | null = null
  let state: { progress: number | null; message: string | null } = { progress: null, message: null }
  let sentAt = 0
  let timer: NodeJS.Timeout | null = null
  /** Set when a partial result could not be sent: the next call of the task's context throws it. */
  const fault: { error: Error | null } = { error: null }
  const flush = (): void => {
    if (timer) clearTimeout(timer)
    timer = null
    if (pending === null || fault.error) return
    const event = pending
    pending = null
    sentAt = Date.now()
    try {
      deps.emit(event)
    } catch (err) {
      fault.error = new Error(`the task's partial result cannot be sent to the page (${(err as Error).message}); pass plain data: objects, arrays, strings, numbers, Dates, Maps, typed arrays`)
    }
  }
  const check = (): void => {
    if (fault.error) throw fault.error
  }
  const queue = (patch: Partial<Omit<Extract<TaskEvent, { kind: 'update' }>, 'kind'>>): void => {
    check()
    pending = { kind: 'update', ...state, ...(pending?.partial ? { partial: pending.partial } : {}), ...patch }
    state = { progress: pending.progress, message: pending.message }
    const wait = sentAt + TASK_UPDATE_EVERY_MS - Date.now()
    if (wait <= 0) flush()
    else timer ??= setTimeout(flush, wait)
    check()
  }
  const context: TaskContext = {
    signal: deps.signal,
    progress(value, message) {
      if (value !== null && (typeof value !== 'number' || !Number.isFinite(value))) {
        throw new SvcError('SVC_ERR_UI_BAD_CALL', `task.progress(${String(value)}): pass a number from 0 to 1, or null when the progress is unknown`)
      }
      queue({ progress: value === null ? null : Math.min(1, Math.max(0, value)), ...(message === undefined ? {} : { message: String(message) }) })
    },
    partial(value) {
      queue({ partial: { value } })
    },
    client: deps.client,
    secrets: deps.secrets,
    logger,
  }
  const started = Date.now()
  await runWithRequestId(job.requestId ?? undefined, async () => {
    deps.emit({ kind: 'running' })
    logger.info('ui task started')
    let outcome: { ok: true; value: unknown } | { ok: false; error: unknown }
    try {
      outcome = { ok: true, value: await def.fn(job.input, context) }
    } catch (error) {
      outcome = { ok: false, error }
    }
    flush()
    const ms = Date.now() - started
    if (deps.signal.aborted) {
      logger.info({ ms, status: 'cancelled' }, 'ui task ended')
      deps.emit({ kind: 'ended' })
      return
    }
    if (outcome.ok && !fault.error) {
      try {
        deps.emit({ kind: 'done', result: outcome.value })
        logger.info({ ms, status: 'done' }, 'ui task ended')
        return
      } catch (err) {
        outcome = { ok: false, error: new Error(`the task's result cannot be sent to the page (${(err as Error).message}); return plain data: objects, arrays, strings, numbers, Dates, Maps, typed arrays`) }
      }
    }
    const error = fault.error ?? (outcome as { error: unknown }).error
    logger.error({ err: error, ms, status: 'error', code: 'SVC_ERR_UI_TASK_FAILED' }, 'ui task failed')
    deps.emit({ kind: 'failed', failure: taskFailure(error, deps.showErrorDetails, job.requestId) })
  })
}

/** What the visitor may see of a task's error: the page-error rules (`show_error_details`). */
export function taskFailure(error: unknown, showErrorDetails: boolean, requestId: string | null): TaskFailure {
  const e = error instanceof Error ? error : new Error(String(error))
  if (!showErrorDetails) return { name: 'Error', message: 'This task hit an error.', stack: null, hidden: true, requestId }
  return { name: e.name, message: scrubShownText(e.message), stack: e.stack === undefined ? null : scrubShownText(e.stack), hidden: false, requestId }
}

/** A failure svc itself decides (interrupted, timed out): always shown, it holds nothing of the app's. */
export function svcTaskFailure(name: string, message: string, requestId: string | null): TaskFailure {
  return { name, message, stack: null, hidden: false, requestId }
}
