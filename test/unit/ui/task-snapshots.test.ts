import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { getClient } from '../../../src/client/api-client.js'
import { Svc } from '../../../src/app.js'
import { MediaStore } from '../../../src/ui/media-store.js'
import { PageDirectory } from '../../../src/ui/page-directory.js'
import { PageSession } from '../../../src/ui/runtime/page-session.js'
import { MAX_TASK_SNAPSHOT_BYTES, PageSnapshots, type SnapshotBackend } from '../../../src/ui/server/session-snapshots.js'
import type { TaskPort } from '../../../src/ui/tasks/task-manager.js'
import type { TaskRecord } from '../../../src/ui/tasks/task-types.js'

const logger = pino({ level: 'silent' })

class MemoryBackend implements SnapshotBackend {
  readonly values = new Map<string, string>()
  async set(key: string, value: string): Promise<void> {
    this.values.set(key, value)
  }
  async get(key: string): Promise<string | null> {
    return this.values.get(key) ?? null
  }
  async expire(): Promise<void> {}
  async del(key: string): Promise<void> {
    this.values.delete(key)
  }
}

function session(id: string, port: TaskPort): PageSession {
  const app = new Svc({ log_level: 'fatal' })
  return new PageSession({ id, directory: () => new PageDirectory([]), client: getClient(app), media: new MediaStore(), logger, overrides: {}, showErrorDetails: false, tasks: port })
}

const record = (over: Partial<TaskRecord>): TaskRecord => ({ run: 'r1', name: 'export', status: 'done', progress: 1, message: null, error: null, startedAt: 1, finishedAt: 2, outlive: false, ...over })

describe('task records in page-session snapshots', () => {
  it('a finished result travels; one too large becomes an error saying so; a running task is checked with the new server', async () => {
    const synced: string[][] = []
    const port: TaskPort = { start() {}, cancel() {}, forget() {}, sync: (_id, keys) => void synced.push([...keys]) }
    const id = 'A'.repeat(32)
    const a = session(id, port)
    a.tasks.apply('small', record({ result: { rows: 3 } }))
    a.tasks.apply('big', record({ run: 'r2', result: 'x'.repeat(MAX_TASK_SNAPSHOT_BYTES) }))
    a.tasks.apply('going', record({ run: 'r3', status: 'running', progress: 0.4, finishedAt: null, partial: { rows: 1 } }))
    const snapshots = new PageSnapshots({ backend: new MemoryBackend(), ttlSeconds: 60, logger })
    await snapshots.save(id, snapshots.encode(a)!)
    const loaded = (await snapshots.load(id))!
    expect(loaded.tasks.get('small')).toMatchObject({ status: 'done', result: { rows: 3 } })
    expect(loaded.tasks.get('big')).toMatchObject({ status: 'error', error: { name: 'TaskResultNotKept' } })
    expect(loaded.tasks.get('big')!.result).toBeUndefined()

    const b = session(id, port)
    b.tasks.restore(loaded.tasks)
    expect(synced).toEqual([['going']])
    // This server does not know the running task: it shows as interrupted.
    b.tasks.apply('going', null)
    expect(Object.fromEntries([...b.tasks.entries()].map(([k, r]) => [k, r.status]))).toEqual({ small: 'done', big: 'error', going: 'error' })
  })

  it('a snapshot whose task record has the wrong shape restores without it', async () => {
    const backend = new MemoryBackend()
    const snapshots = new PageSnapshots({ backend, ttlSeconds: 60, logger })
    const id = 'B'.repeat(32)
    const a = session(id, { start() {}, cancel() {}, forget() {}, sync() {} })
    a.tasks.apply('ok', record({}))
    a.tasks.apply('odd', { ...record({ run: 'r9' }), status: 'exploded' as never })
    await snapshots.save(id, snapshots.encode(a)!)
    expect([...(await snapshots.load(id))!.tasks.keys()]).toEqual(['ok'])
  })
})
