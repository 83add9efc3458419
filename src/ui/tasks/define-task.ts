import { SvcError } from '../../errors.js'
import { TaskDefinition, type TaskFn } from './task-types.js'

/** Longest task name. */
export const MAX_TASK_NAME_LENGTH = 200

/** `app.task(name, fn)`: a new task kind in `registry`, refused when the name is taken or invalid. */
export function defineTask<I, R, P>(registry: Map<string, TaskDefinition>, name: string, fn: TaskFn<I, R, P>): TaskDefinition<I, R, P> {
  if (typeof name !== 'string' || name === '' || name.length > MAX_TASK_NAME_LENGTH) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `app.task(name, fn): the name must be a non-empty string of at most ${MAX_TASK_NAME_LENGTH} characters, e.g. app.task('export-orders', async (input, task) => { ... })`)
  }
  if (typeof fn !== 'function') {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `app.task(${JSON.stringify(name)}, fn): pass the task's function, (input, task) => result`)
  }
  if (registry.has(name)) {
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `app.task(${JSON.stringify(name)}): a task with this name is declared already; give each task its own name`)
  }
  const task = new TaskDefinition(name, fn)
  registry.set(name, task as TaskDefinition)
  return task
}
