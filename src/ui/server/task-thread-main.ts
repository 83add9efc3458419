import { parentPort, threadId, workerData } from 'node:worker_threads'
import { getClient } from '../../client/api-client.js'
import { markPagesOnly } from '../../internal/process-role.js'
import { childLogger, createRootLogger } from '../../logging/logger.js'
import { loadTarget, stopAppTransforms } from '../../target/load-target.js'
import { pageSideOf, type PageServerApp } from '../page-app.js'
import { unknownTask } from '../tasks/inline-executor.js'
import { runTaskJob, svcTaskFailure, type TaskRunDeps } from '../tasks/task-runner.js'
import type { FromTaskThread, TaskThreadData, ToTaskThread } from './task-thread-messages.js'

// One task thread of the page server (task-thread-pool.ts): it loads the app, finds each task by
// the name `app.task` gave it and runs it, reporting progress and the outcome to the main thread.
const port = parentPort!
const data = workerData as TaskThreadData
const post = (m: FromTaskThread): void => port.postMessage(m)

let app: PageServerApp
try {
  markPagesOnly()
  app = pageSideOf((await loadTarget(data.target, data.cwd)).app)
  await stopAppTransforms()
} catch (err) {
  await stopAppTransforms()
  post({ t: 'fatal', message: (err as Error)?.message ?? String(err) })
  process.exit(1)
}

const settings = app.settings
const logger = childLogger(createRootLogger(settings), 'svc.ui').child({ thread: threadId })
const client = getClient(app)
const secrets = (app.secrets ?? {}) as TaskRunDeps['secrets']
const showErrorDetails = settings.show_error_details ?? data.devMode
const runs = new Map<string, AbortController>()

port.on('message', (m: ToTaskThread) => {
  switch (m.t) {
    case 'run': {
      const { job } = m
      const task = app.tasks?.get(job.name)
      if (!task) {
        post({ t: 'event', run: job.run, event: { kind: 'failed', failure: svcTaskFailure('TaskUnknown', unknownTask(job.name), job.requestId) } })
        return
      }
      const abort = new AbortController()
      runs.set(job.run, abort)
      void runTaskJob(task, job, { client, secrets, logger, showErrorDetails, signal: abort.signal, emit: (event) => post({ t: 'event', run: job.run, event }) }).finally(() => runs.delete(job.run))
      return
    }
    case 'cancel':
      runs.get(m.run)?.abort()
      return
    default: {
      const never: never = m
      return never
    }
  }
})

post({ t: 'ready' })
