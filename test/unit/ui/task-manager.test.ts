import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { TaskManager, type TaskExecutor, type TaskLimits } from '../../../src/ui/tasks/task-manager.js'
import type { TaskEvent, TaskJob } from '../../../src/ui/tasks/task-runner.js'
import type { TaskRecord } from '../../../src/ui/tasks/task-types.js'

/** An executor the test drives by hand: it records what it was asked and reports what the test says. */
class FakeExecutor implements TaskExecutor {
  readonly runs = new Map<string, { job: TaskJob; emit: (e: TaskEvent) => void }>()
  readonly cancelled: string[] = []
  run(job: TaskJob, onEvent: (event: TaskEvent) => void): void {
    this.runs.set(job.name, { job, emit: onEvent })
    onEvent({ kind: 'running' })
  }
  cancel(run: string): void {
    this.cancelled.push(run)
  }
  async close(): Promise<void> {}
  async destroy(): Promise<void> {}
}

function setup(limits: Partial<TaskLimits> = {}) {
  const executor = new FakeExecutor()
  const seen: { sessionId: string; key: string; record: TaskRecord | null }[] = []
  const manager = new TaskManager({
    executor,
    deliver: (sessionId, key, record) => seen.push({ sessionId, key, record }),
    limits: { maxRunning: 8, maxPerSession: 4, timeoutMs: 0, ...limits },
    logger: pino({ level: 'silent' }),
  })
  const last = (key: string): TaskRecord | null | undefined => seen.filter((s) => s.key === key).at(-1)?.record
  const start = (sessionId: string, key: string, name = key, outlive = false) => manager.start(sessionId, key, { name, input: null, outlive, requestId: null })
  return { executor, manager, seen, last, start }
}

describe('TaskManager', () => {
  it('queues past ui_task_max_running and starts the next when one ends', () => {
    const { executor, last, start } = setup({ maxRunning: 1 })
    start('s1', 'a')
    start('s1', 'b')
    expect([last('a')?.status, last('b')?.status]).toEqual(['running', 'queued'])
    executor.runs.get('a')!.emit({ kind: 'done', result: 42 })
    expect(last('a')).toMatchObject({ status: 'done', result: 42, progress: 1 })
    expect(last('b')?.status).toBe('running')
  })

  it('a second start of a running key changes nothing; a finished key starts a new run', () => {
    const { executor, last, start } = setup()
    start('s1', 'a')
    const first = last('a')!.run
    start('s1', 'a')
    expect(last('a')!.run).toBe(first)
    executor.runs.get('a')!.emit({ kind: 'done', result: 1 })
    start('s1', 'a')
    expect(last('a')!.run).not.toBe(first)
    expect(last('a')!.status).toBe('running')
  })

  it('refuses a start past ui_task_max_per_session with an error record', () => {
    const { last, start } = setup({ maxPerSession: 1 })
    start('s1', 'a')
    start('s1', 'b')
    expect(last('b')).toMatchObject({ status: 'error', error: { name: 'TaskLimit' } })
    start('s2', 'c')
    expect(last('c')?.status).toBe('running')
  })

  it('tasks end with their session, unless they outlive it; news of an orphan goes nowhere', () => {
    const { executor, manager, seen, start } = setup()
    start('s1', 'a')
    start('s1', 'keep', 'keep', true)
    manager.endSession('s1')
    expect(executor.cancelled).toEqual([executor.runs.get('a')!.job.run])
    const before = seen.length
    executor.runs.get('keep')!.emit({ kind: 'done', result: 'sent' })
    expect(seen.length).toBe(before)
  })

  it('cancel marks the record at once; late progress of that run is dropped; the slot frees when the run ends', async () => {
    const { executor, manager, last, start } = setup({ maxRunning: 1 })
    start('s1', 'a')
    start('s1', 'b')
    manager.cancel('s1', 'a')
    expect(last('a')?.status).toBe('cancelled')
    executor.runs.get('a')!.emit({ kind: 'update', progress: 0.5, message: null })
    expect(last('a')?.status).toBe('cancelled')
    expect(last('b')?.status).toBe('queued')
    executor.runs.get('a')!.emit({ kind: 'ended' })
    expect(last('b')?.status).toBe('running')
    const idle = manager.idle('s1')
    executor.runs.get('b')!.emit({ kind: 'done', result: null })
    await idle
  })

  it('a task past ui_task_timeout_s ends as an error and is cancelled', async () => {
    const { executor, last, start } = setup({ timeoutMs: 20 })
    start('s1', 'slow')
    await expect.poll(() => last('slow')?.status).toBe('error')
    expect(last('slow')!.error).toMatchObject({ name: 'TaskTimeout' })
    expect(executor.cancelled).toEqual([executor.runs.get('slow')!.job.run])
  })

  it('sync answers each key with its record, or null for a key this server does not know', () => {
    const { manager, seen, start } = setup()
    start('s1', 'a')
    seen.length = 0
    manager.sync('s1', ['a', 'gone'])
    expect(seen.map((s) => [s.key, s.record?.status ?? null])).toEqual([['a', 'running'], ['gone', null]])
  })

  it('a detached session (its page thread crashed) ends after the TTL unless it is opened again', async () => {
    const { executor, manager, start } = setup()
    start('s1', 'a')
    start('s2', 'b')
    manager.detach('s1', 10)
    manager.detach('s2', 10)
    manager.attach('s2')
    await expect.poll(() => executor.cancelled.length).toBe(1)
    expect(executor.cancelled).toEqual([executor.runs.get('a')!.job.run])
  })
})
