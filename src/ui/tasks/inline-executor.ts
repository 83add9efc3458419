import type { Logger } from 'pino'
import type { ApiClient } from '../../client/api-client.js'
import { Lifecycle } from '../../internal/lifecycle.js'
import type { RegisteredSecrets } from '../../secrets/register.js'
import type { TaskExecutor } from './task-manager.js'
import { runTaskJob, svcTaskFailure, type TaskEvent, type TaskJob } from './task-runner.js'
import type { TaskDefinition } from './task-types.js'

export interface InlineTaskExecutorOptions {
  /** The app's tasks by name (read at each start, so a reloaded app's tasks are found). */
  tasks: () => ReadonlyMap<string, TaskDefinition>
  client: ApiClient
  secrets: RegisteredSecrets
  logger: Logger
  showErrorDetails: boolean
}

/**
 * Runs tasks in this thread: the test handle's executor (the page server runs them on task
 * threads). Events are copied with `structuredClone`, as crossing a thread would, so a result
 * that could not leave a task thread fails here too.
 */
export class InlineTaskExecutor extends Lifecycle implements TaskExecutor {
  readonly #runs = new Map<string, AbortController>()
  readonly #opts: InlineTaskExecutorOptions

  constructor(options: InlineTaskExecutorOptions) {
    super()
    this.#opts = options
  }

  run(job: TaskJob, onEvent: (event: TaskEvent) => void): void {
    const def = this.#opts.tasks().get(job.name)
    if (!def) {
      onEvent({ kind: 'failed', failure: svcTaskFailure('TaskUnknown', unknownTask(job.name), job.requestId) })
      return
    }
    const abort = new AbortController()
    this.#runs.set(job.run, abort)
    const { client, secrets, logger, showErrorDetails } = this.#opts
    void runTaskJob(def, job, { client, secrets, logger, showErrorDetails, signal: abort.signal, emit: (event) => onEvent(structuredClone(event)) }).finally(() => this.#runs.delete(job.run))
  }

  cancel(run: string): void {
    this.#runs.get(run)?.abort()
  }

  /**
   * Every run's signal aborts; close does not wait for the runs to stop (in this thread, a run that
   * never checks its signal would hold the test's teardown forever).
   */
  protected async drain(): Promise<void> {
    this.#abortAll()
  }

  protected async abort(): Promise<void> {
    this.#abortAll()
  }

  #abortAll(): void {
    for (const abort of this.#runs.values()) abort.abort()
  }
}

export function unknownTask(name: string): string {
  return `no task named ${JSON.stringify(name)}: declare it in the app module with app.task(${JSON.stringify(name)}, fn)`
}
