import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { isSvcError } from '../../../src/errors.js'
import { createUiTestHandle } from '../../../src/testing/app-test.js'
import type { TaskContext } from '../../../src/ui/tasks/task-types.js'

function app(options: { show_error_details?: boolean; ui_task_max_per_session?: number } = {}): Svc {
  return new Svc({ title: 'T', log_level: 'fatal', ...options })
}

/** A promise and its resolver, so a task waits exactly as long as the test says. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void
  const wait = new Promise<void>((resolve) => (open = resolve))
  return { wait, open }
}

describe('st.task through the test handle', () => {
  it('starts once per key, shows progress and partial results in the fragment that reads it, and the page gets the result', async () => {
    const a = app()
    const steps = [gate(), gate()]
    const count = a.task('count', async (input: { to: number }, task: TaskContext<{ upTo: number }>) => {
      for (let i = 0; i < input.to; i++) {
        await steps[i]!.wait
        task.progress((i + 1) / input.to, `step ${i + 1}`)
        task.partial({ upTo: i + 1 })
      }
      return { total: input.to * 10 }
    })
    let pageRuns = 0
    let fragmentRuns = 0
    a.page('/', (st) => {
      pageRuns++
      const job = st.task('count', count, { input: { to: 2 } })
      st.text(`status ${job.status}`)
      if (job.status === 'done') st.text(`total ${job.result.total}`)
      st.fragment((f) => {
        fragmentRuns++
        const live = f.task('count', count)
        f.text(`progress ${live.progress ?? '-'} ${live.message ?? ''} partial ${live.partial?.upTo ?? '-'}`)
      })
    })
    const at = await createUiTestHandle(a).run()
    expect(at.text.map((t) => t.value)).toContain('status running')
    const pageRunsAtProgress = pageRuns
    const fragmentRunsBefore = fragmentRuns
    steps[0]!.open()
    await expect.poll(() => at.text.map((t) => t.value).join('|')).toContain('progress 0.5 step 1 partial 1')
    // Progress reran the fragment only.
    expect(pageRuns).toBe(pageRunsAtProgress)
    expect(fragmentRuns).toBeGreaterThan(fragmentRunsBefore)
    steps[1]!.open()
    await at.waitForTasks()
    expect(pageRuns).toBeGreaterThan(pageRunsAtProgress)
    expect(at.text.map((t) => t.value)).toEqual(['status done', 'total 20', 'progress 1 step 2 partial 2'])
    // The key has its task: the next runs do not start it again.
    await at.run()
    await at.waitForTasks()
    expect(at.text.map((t) => t.value)[0]).toBe('status done')
  })

  it('cancel() stops the task (its signal aborts) and the status is cancelled at once', async () => {
    const a = app()
    let aborted = false
    const forever = a.task('forever', (_: void, task) => new Promise<never>((_resolve, reject) => {
      task.signal.addEventListener('abort', () => {
        aborted = true
        reject(task.signal.reason as Error)
      })
    }))
    a.page('/', (st) => {
      const job = st.task('f', forever, { input: undefined })
      st.text(`status ${job.status}`)
      if (job.running && st.button('Cancel', { key: 'cancel' })) job.cancel()
    })
    const at = await createUiTestHandle(a).run()
    expect(at.text[0]!.value).toBe('status running')
    await at.button('cancel').click().run()
    await at.waitForTasks()
    expect(aborted).toBe(true)
    expect(at.text[0]!.value).toBe('status cancelled')
  })

  it('a failing task shows a safe error: its message with show_error_details, a generic one without', async () => {
    for (const details of [true, false]) {
      const a = app({ show_error_details: details })
      const fail = a.task('fail', () => {
        throw new Error('db password rejected')
      })
      a.page('/', (st) => {
        const job = st.task('f', fail, { input: undefined })
        if (job.status === 'error') st.error(`${job.error.message} (${job.error.hidden ? 'hidden' : 'shown'})`)
      })
      const at = await createUiTestHandle(a).run()
      await at.waitForTasks()
      expect(at.error[0]!.value).toContain(details ? 'db password rejected (shown)' : 'This task hit an error. (hidden)')
    }
  })

  it('start() runs a finished task again with new input; a result that cannot leave a thread is an error', async () => {
    const a = app()
    const double = a.task('double', (n: number) => n * 2)
    const bad = a.task('bad', () => ({ fn: () => 1 }))
    a.page('/', (st) => {
      const job = st.task('d', double)
      st.text(`${job.status} ${job.result ?? ''}`)
      if (st.button('Go', { key: 'go' })) job.start(21)
      const b = st.task('b', bad, { input: undefined })
      if (b.status === 'error') st.error(b.error.message)
    })
    const at = await createUiTestHandle(a).run()
    expect(at.text[0]!.value).toBe('idle ')
    await at.button('go').click().run()
    await at.waitForTasks()
    expect(at.text[0]!.value).toBe('done 42')
    expect(at.error[0]!.value).toContain("the task's result cannot be sent to the page")
  })

  it('refuses a start past ui_task_max_per_session, a key reused for another task, and input that cannot be sent', async () => {
    const a = app({ ui_task_max_per_session: 1 })
    const g = gate()
    const wait = a.task('wait', () => g.wait)
    const other = a.task('other', () => 1)
    let caught: unknown[] = []
    a.page('/', (st) => {
      caught = []
      st.task('one', wait, { input: undefined })
      for (const call of [() => st.task('two', wait, { input: undefined }), () => st.task('one', other), () => st.task('three', other as never, { input: { f: () => 1 } })]) {
        try {
          call()
        } catch (err) {
          caught.push(err)
        }
      }
    })
    const at = await createUiTestHandle(a).run()
    expect(caught.map((e) => (isSvcError(e) ? e.code : e))).toEqual(['SVC_ERR_UI_TASK_LIMIT', 'SVC_ERR_UI_BAD_CALL', 'SVC_ERR_UI_TASK_LIMIT'])
    g.open()
    await at.waitForTasks()
  })

  it('app.task refuses a duplicate or empty name', () => {
    const a = app()
    a.task('x', () => 1)
    expect(() => a.task('x', () => 2)).toThrow(/declared already/)
    expect(() => a.task('', () => 2)).toThrow(/non-empty/)
  })
})
