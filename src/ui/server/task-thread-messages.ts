import type { TaskEvent, TaskJob } from '../tasks/task-runner.js'

/** What a task thread starts with (`workerData`). */
export interface TaskThreadData {
  target: string
  cwd: string
  /** `svc dev`: `show_error_details` defaults to on. */
  devMode: boolean
}

/** Main thread → task thread. */
export type ToTaskThread =
  | { t: 'run'; job: TaskJob }
  | { t: 'cancel'; run: string }

/** Task thread → main thread. */
export type FromTaskThread =
  | { t: 'ready' }
  /** The app did not load in the thread. */
  | { t: 'fatal'; message: string }
  | { t: 'event'; run: string; event: TaskEvent }
