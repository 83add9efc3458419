import type { Logger } from 'pino'
import type { ApiClient } from '../../client/api-client.js'
import type { RegisteredSecrets } from '../../secrets/register.js'

/**
 * Tasks: work a page starts that outlives its run (`app.task` declares it, `st.task` starts it and
 * reads its state). These are the public shapes; `TaskRecord` is what travels between the page
 * session, the page server's task manager and the task thread that runs it.
 */

/** Where a task is: not started, waiting for a free slot, running, or ended one of three ways. */
export type TaskStatus = 'idle' | 'queued' | 'running' | 'done' | 'error' | 'cancelled'

/** Ended: `done`, `error` or `cancelled`. */
export function isTaskFinished(status: TaskStatus): boolean {
  return status === 'done' || status === 'error' || status === 'cancelled'
}

/**
 * Why a task failed, as the visitor may see it: the same rules as a page error
 * (`show_error_details`): with details off, a generic message and the request ID.
 */
export interface TaskFailure {
  readonly name: string
  readonly message: string
  readonly stack: string | null
  /** True when the details were withheld (`show_error_details` off). */
  readonly hidden: boolean
  /** The request ID of the page socket that started the task (the log lines carry it). */
  readonly requestId: string | null
}

/** What a task function gets besides its input. */
export interface TaskContext<P = unknown> {
  /** Aborted when the task is cancelled (from the page, its session ended, or `ui_task_timeout_s`): stop then. */
  readonly signal: AbortSignal
  /**
   * Report how far the task is: `value` from 0 to 1 (null: unknown), with an optional message.
   * Cheap to call often: the page sees the latest value a few times a second.
   */
  progress(value: number | null, message?: string): void
  /** A partial result the page may show before the task ends (the latest one wins). */
  partial(value: P): void
  /** The app's API client (`client` of a page). */
  readonly client: ApiClient
  readonly secrets: RegisteredSecrets
  /** Logger `svc.ui.task` with the task's name. */
  readonly logger: Logger
}

export type TaskFn<I, R, P> = (input: I, task: TaskContext<P>) => R | Promise<R>

const kTaskDefinition = Symbol.for('svc.taskDefinition')

/**
 * A kind of task the app declared with `app.task(name, fn)`. Tasks run on the page server's task
 * threads, which load the app and find the function by `name`; the input, partial results and
 * the result cross threads as structured clones.
 */
export class TaskDefinition<I = unknown, R = unknown, P = unknown> {
  readonly [kTaskDefinition] = true
  constructor(
    readonly name: string,
    /** The task's function; call it directly in a unit test of its own. */
    readonly fn: TaskFn<I, R, P>,
  ) {}
}

export function isTaskDefinition(value: unknown): value is TaskDefinition {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kTaskDefinition] === true
}

/** Options of `st.task(key, task, options)`. */
export interface TaskOptions<I> {
  /** Start the task with this input when the key has no task yet in this session (once per key). */
  input?: I
  /** Keep running after the session ends (its tab closed past `ui_session_ttl_s`); its result is then dropped. */
  outliveSession?: boolean
}

interface TaskHandleBase<I, P> {
  readonly key: string
  /** The task's name (`app.task(name, …)`). */
  readonly name: string
  /** `queued` or `running`. */
  readonly running: boolean
  /** 0..1 as the task last reported, null before it reports or when it said "unknown". */
  readonly progress: number | null
  readonly message: string | null
  /** The task's latest `partial(value)`, if any. */
  readonly partial: P | undefined
  readonly startedAt: Date | null
  readonly finishedAt: Date | null
  /**
   * Start the task with `input` unless it is queued or running (then false). A finished task
   * starts again. The page reruns once it shows the new state.
   */
  start(input: I): boolean
  /** Stop the task if it is queued or running (false otherwise); its status becomes `cancelled` at once. */
  cancel(): boolean
  /** Forget the task of this key (cancelling it when it runs): `st.task` sees `idle` again. */
  clear(): void
}

/**
 * A task as one run of the page sees it (a snapshot: the values do not change during the run;
 * the page, or the fragment that read it, reruns when they do). `status` narrows `result` and `error`.
 */
export type TaskHandle<I = unknown, R = unknown, P = unknown> = TaskHandleBase<I, P> &
  (
    | { readonly status: 'idle' | 'queued' | 'running' | 'cancelled'; readonly result: undefined; readonly error: null }
    | { readonly status: 'done'; readonly result: R; readonly error: null }
    | { readonly status: 'error'; readonly result: undefined; readonly error: TaskFailure }
  )

/** One run of a task, as the page session, the task manager and snapshots hold it. */
export interface TaskRecord {
  /** Random id of this run: late news of an earlier run of the same key is ignored. */
  run: string
  name: string
  status: TaskStatus
  progress: number | null
  message: string | null
  partial?: unknown
  result?: unknown
  error: TaskFailure | null
  /** Epoch ms. */
  startedAt: number | null
  finishedAt: number | null
  outlive: boolean
}
