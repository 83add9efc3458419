import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import { TASK_CANCEL_GRACE_MS, THREAD_CLOSE_MS } from '../../internal/deadlines.js'
import { Lifecycle } from '../../internal/lifecycle.js'
import type { TaskExecutor } from '../tasks/task-manager.js'
import { svcTaskFailure, type TaskEvent, type TaskJob } from '../tasks/task-runner.js'
import { pageThreadResourceLimits } from './page-thread.js'
import type { FromTaskThread, TaskThreadData, ToTaskThread } from './task-thread-messages.js'

/** A task thread with nothing to run for this long ends (the next task starts a new one). */
export const TASK_THREAD_IDLE_MS = 30_000

interface Run {
  job: TaskJob
  onEvent: (event: TaskEvent) => void
  /** Set once cancelled: the thread is terminated when the run has not stopped by then. */
  grace: NodeJS.Timeout | null
}

class TaskThread {
  readonly worker: Worker
  readonly runs = new Map<string, Run>()
  /** Takes new runs; false once it is being replaced (a dev reload) or stops. */
  placeable = true
  ready = false
  idle: NodeJS.Timeout | null = null
  /** Why it ended, for the runs it still had. */
  failure: string | null = null

  constructor(data: TaskThreadData, heapCapMb: number) {
    // As for page threads: esbuild's synchronous calls in a process of their own, waited for at once.
    const env = { ...process.env, ESBUILD_WORKER_THREADS: '0' }
    this.worker = new Worker(new URL('./task-thread-main.js', import.meta.url), { workerData: data, env, resourceLimits: pageThreadResourceLimits(heapCapMb) })
  }

  post(m: ToTaskThread): void {
    this.worker.postMessage(m)
  }
}

/**
 * The page server's task threads (`ui_task_threads`), separate from page threads: a task burning
 * CPU slows the tasks sharing its thread, never a page session. Threads start with the first
 * task (each loads the app, like a page thread), take runs while they have fewer than the
 * others, and end after `TASK_THREAD_IDLE_MS` without one. A cancelled run gets its signal
 * aborted; one still running `TASK_CANCEL_GRACE_MS` later (it never yields) has its thread
 * terminated, which also ends the other runs on it as interrupted.
 */
export class TaskThreadPool extends Lifecycle implements TaskExecutor {
  readonly #size: number
  readonly #data: TaskThreadData
  readonly #heapCapMb: number
  readonly #logger: Logger
  readonly #threads: TaskThread[] = []

  /** `heapCapMb`: each task thread's heap cap, as page threads' (`ui_page_thread_max_heap_mb`); a task past it fails with its thread. */
  constructor(options: { size: number; data: TaskThreadData; logger: Logger; heapCapMb?: number }) {
    super()
    this.#heapCapMb = options.heapCapMb ?? 0
    this.#size = Math.max(1, options.size)
    this.#data = options.data
    this.#logger = options.logger
  }

  get threads(): number {
    return this.#threads.length
  }

  run(job: TaskJob, onEvent: (event: TaskEvent) => void): void {
    if (this.closed) {
      onEvent({ kind: 'failed', failure: svcTaskFailure('TaskInterrupted', 'The page server is stopping; start the task again once the page is back.', job.requestId) })
      return
    }
    const thread = this.#pick()
    if (thread.idle) clearTimeout(thread.idle)
    thread.idle = null
    thread.runs.set(job.run, { job, onEvent, grace: null })
    if (thread.ready) thread.post({ t: 'run', job })
  }

  cancel(run: string): void {
    for (const thread of this.#threads) {
      const entry = thread.runs.get(run)
      if (!entry || entry.grace) continue
      if (!thread.ready) {
        // Still loading the app: the run was never handed over, so it ends here.
        this.#finish(thread, run)
        entry.onEvent({ kind: 'ended' })
        continue
      }
      thread.post({ t: 'cancel', run })
      entry.grace = setTimeout(() => {
        if (!thread.runs.has(run)) return
        this.#logger.warn({ task: entry.job.name, session_ref: entry.job.sessionRef, grace_ms: TASK_CANCEL_GRACE_MS }, 'ui task did not stop after it was cancelled (does it check task.signal?); its task thread was terminated')
        thread.failure = `its task thread was stopped to end the cancelled task "${entry.job.name}", which did not stop`
        thread.placeable = false
        void thread.worker.terminate()
      }, TASK_CANCEL_GRACE_MS)
      entry.grace.unref()
    }
  }

  /** A dev reload: new runs go to fresh threads (the new code); the old ones end once their runs have. */
  retireAll(): void {
    for (const thread of this.#threads) {
      thread.placeable = false
      if (thread.runs.size === 0) void thread.worker.terminate()
    }
  }

  /** Threads are terminated once their runs end (the task manager cancelled them), at most `THREAD_CLOSE_MS` later. */
  protected async drain(): Promise<void> {
    const deadline = Date.now() + THREAD_CLOSE_MS
    await Promise.all(
      this.#threads.map(async (thread) => {
        thread.placeable = false
        while (thread.runs.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
        thread.failure ??= 'the page server stopped'
        await thread.worker.terminate()
      }),
    )
  }

  protected async abort(): Promise<void> {
    await Promise.all(
      this.#threads.map((thread) => {
        thread.placeable = false
        thread.failure ??= 'the page server stopped'
        return thread.worker.terminate()
      }),
    )
  }

  /** The thread with the fewest runs, or a new one while there are fewer than `ui_task_threads` and none is free. */
  #pick(): TaskThread {
    const live = this.#threads.filter((t) => t.placeable)
    const free = live.find((t) => t.runs.size === 0)
    if (free) return free
    if (live.length < this.#size) return this.#spawn()
    let best = live[0]!
    for (const t of live) if (t.runs.size < best.runs.size) best = t
    return best
  }

  #spawn(): TaskThread {
    const thread = new TaskThread(this.#data, this.#heapCapMb)
    this.#threads.push(thread)
    thread.worker.on('message', (m: FromTaskThread) => this.#onMessage(thread, m))
    thread.worker.on('error', (err) => {
      thread.failure ??= `its task thread crashed (${err.message})`
      this.#logger.error({ err }, 'ui task thread crashed')
    })
    thread.worker.on('exit', (code) => this.#onExit(thread, code))
    this.#logger.info({ task_threads: this.#threads.length }, 'ui task thread starting')
    return thread
  }

  #onMessage(thread: TaskThread, m: FromTaskThread): void {
    switch (m.t) {
      case 'ready':
        thread.ready = true
        for (const { job } of thread.runs.values()) thread.post({ t: 'run', job })
        return
      case 'fatal':
        thread.failure = `the task thread could not load the app: ${m.message}`
        thread.placeable = false
        return
      case 'event': {
        const entry = thread.runs.get(m.run)
        if (!entry) return
        const last = m.event.kind === 'done' || m.event.kind === 'failed' || m.event.kind === 'ended'
        if (last) this.#finish(thread, m.run)
        entry.onEvent(m.event)
        return
      }
      default: {
        const never: never = m
        return never
      }
    }
  }

  #finish(thread: TaskThread, run: string): void {
    const entry = thread.runs.get(run)
    if (entry?.grace) clearTimeout(entry.grace)
    thread.runs.delete(run)
    if (thread.runs.size > 0) return
    if (!thread.placeable) {
      void thread.worker.terminate()
      return
    }
    thread.idle = setTimeout(() => {
      if (thread.runs.size > 0) return
      thread.placeable = false
      void thread.worker.terminate()
    }, TASK_THREAD_IDLE_MS)
    thread.idle.unref()
  }

  /** The thread ended: its runs still going end too (cancelled ones as ended, the others as interrupted). */
  #onExit(thread: TaskThread, code: number): void {
    thread.placeable = false
    if (thread.idle) clearTimeout(thread.idle)
    const index = this.#threads.indexOf(thread)
    if (index >= 0) this.#threads.splice(index, 1)
    const why = thread.failure ?? `its task thread stopped (exit code ${code})`
    for (const [run, entry] of [...thread.runs]) {
      this.#finish(thread, run)
      entry.onEvent(entry.grace ? { kind: 'ended' } : { kind: 'failed', failure: svcTaskFailure('TaskInterrupted', `The task was interrupted: ${why}. Start it again.`, entry.job.requestId) })
    }
  }
}
