import { deserialize, serialize } from 'node:v8'
import type { Logger } from 'pino'
import type { PageSession } from '../runtime/page-session.js'
import { z } from '../../internal/zod.js'
import { svcTaskFailure } from '../tasks/task-runner.js'
import type { TaskRecord } from '../tasks/task-types.js'

/**
 * Where page-session snapshots go so another replica can resume a session whose replica died:
 * Redis when `redis_url` is set (`src/shared-state`). Values are opaque strings.
 */
export interface SnapshotBackend {
  set(key: string, value: string, ttlSeconds: number): Promise<void>
  get(key: string): Promise<string | null>
  expire(key: string, ttlSeconds: number): Promise<void>
  del(key: string): Promise<void>
}

/** A snapshot larger than this is not written (the previous one stays); warned once per session. */
export const MAX_SNAPSHOT_BYTES = 256 * 1024
/** A task record larger than this (its result, its partial result) goes into the snapshot without them. */
export const MAX_TASK_SNAPSHOT_BYTES = 128 * 1024

interface SnapshotData {
  v: 1
  state: [string, Buffer][]
  widgets: [string, Buffer][]
  /** `st.task` records by key (absent in snapshots written before tasks existed). */
  tasks?: [string, Buffer][]
}

/**
 * Session state and widget values, each value serialised on its own with the structured-clone
 * serialiser (Dates, Maps, typed arrays survive; functions, sockets and class behaviour do not),
 * so one value that cannot travel is dropped and named, never the whole snapshot.
 */
export class PageSnapshots {
  readonly #backend: SnapshotBackend
  readonly #ttlSeconds: number
  readonly #logger: Logger
  /** Keys already warned about, per session, so a page writing a socket into state warns once. */
  readonly #warned = new Map<string, Set<string>>()

  constructor(options: { backend: SnapshotBackend; ttlSeconds: number; logger: Logger }) {
    this.#backend = options.backend
    this.#ttlSeconds = Math.max(1, options.ttlSeconds)
    this.#logger = options.logger
  }

  /** The encoded snapshot of `session`, or null when it is over the size bound. */
  encode(session: PageSession): string | null {
    // A keyed widget's value is in `sessionState` too: like the widget's own, it is not the page's to fix.
    const widgetKeys = new Set<string>()
    for (const meta of session.widgets.metas.values()) if (meta.key !== null) widgetKeys.add(meta.key)
    const data: SnapshotData = {
      v: 1,
      state: this.#entries(session.id, 'sessionState', Object.entries(session.state), widgetKeys),
      widgets: this.#entries(session.id, 'widget', session.widgets.values.entries()),
      tasks: [...session.tasks.entries()].map(([key, record]) => [key, taskBytes(record)]),
    }
    const encoded = serialize(data).toString('base64')
    if (encoded.length > MAX_SNAPSHOT_BYTES) {
      this.#warnOnce(session.id, '$size', `ui session snapshot of ${encoded.length} bytes is over ${MAX_SNAPSHOT_BYTES}; not written, so this session resumes elsewhere with older state`)
      return null
    }
    return encoded
  }

  async save(sessionId: string, encoded: string): Promise<void> {
    await this.#backend.set(key(sessionId), encoded, this.#ttlSeconds)
  }

  /** Keep the snapshot of a live session from expiring while it sits idle. */
  async touch(sessionId: string): Promise<void> {
    await this.#backend.expire(key(sessionId), this.#ttlSeconds)
  }

  async load(sessionId: string): Promise<{ state: Map<string, unknown>; widgets: Map<string, unknown>; tasks: Map<string, TaskRecord> } | null> {
    const raw = await this.#backend.get(key(sessionId))
    if (raw === null) return null
    let data: SnapshotData
    try {
      data = deserialize(Buffer.from(raw, 'base64')) as SnapshotData
    } catch {
      return null
    }
    if (data?.v !== 1 || !Array.isArray(data.state) || !Array.isArray(data.widgets)) return null
    const tasks = new Map<string, TaskRecord>()
    for (const [k, v] of decodeEntries(Array.isArray(data.tasks) ? data.tasks : [])) {
      const record = TaskRecordSchema.safeParse(v)
      if (record.success) tasks.set(k, record.data as TaskRecord)
    }
    return { state: decodeEntries(data.state), widgets: decodeEntries(data.widgets), tasks }
  }

  async delete(sessionId: string): Promise<void> {
    await this.#backend.del(key(sessionId))
  }

  forget(sessionId: string): void {
    this.#warned.delete(sessionId)
  }

  #entries(sessionId: string, kind: string, entries: Iterable<[string, unknown]>, quiet: ReadonlySet<string> | null = null): [string, Buffer][] {
    const out: [string, Buffer][] = []
    for (const [k, value] of entries) {
      try {
        out.push([k, serialize(value)])
      } catch (err) {
        // Uploaded files (a widget value) never travel; a sessionState value the page could change.
        if (kind === 'widget' || quiet?.has(k)) continue
        this.#warnOnce(sessionId, `${kind}:${k}`, `ui session ${kind} "${k}" cannot be saved in the session snapshot (${(err as Error).message}); it is dropped from it, so it does not follow the session to another page thread or replica`)
      }
    }
    return out
  }

  #warnOnce(sessionId: string, what: string, message: string): void {
    let seen = this.#warned.get(sessionId)
    if (!seen) this.#warned.set(sessionId, (seen = new Set()))
    if (seen.has(what)) return
    seen.add(what)
    this.#logger.warn({ key: what.slice(what.indexOf(':') + 1) }, message)
  }
}

/**
 * A task record for the snapshot. One too large to go whole keeps its status and progress: a
 * result left behind turns into an error that says so (the page shows it instead of a result it
 * does not have); a running task's partial result is left out.
 */
function taskBytes(record: TaskRecord): Buffer {
  const whole = serialize(record)
  if (whole.byteLength <= MAX_TASK_SNAPSHOT_BYTES) return whole
  const { partial: _partial, result: _result, ...rest } = record
  if (record.status !== 'done') return serialize(rest)
  const kib = Math.round(whole.byteLength / 1024)
  return serialize({
    ...rest,
    status: 'error',
    error: svcTaskFailure('TaskResultNotKept', `The task finished, but its result (${kib} KiB) is larger than a session keeps for another server (${MAX_TASK_SNAPSHOT_BYTES / 1024} KiB), so it stayed on the server that ran it. Start the task again.`, null),
  } satisfies TaskRecord)
}

/** A task record read back from a snapshot: checked before the session trusts its shape. */
const TaskRecordSchema = z.object({
  run: z.string(),
  name: z.string(),
  status: z.enum(['idle', 'queued', 'running', 'done', 'error', 'cancelled']),
  progress: z.number().min(0).max(1).nullable(),
  message: z.string().nullable(),
  partial: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.object({ name: z.string(), message: z.string(), stack: z.string().nullable(), hidden: z.boolean(), requestId: z.string().nullable() }).nullable(),
  startedAt: z.number().nullable(),
  finishedAt: z.number().nullable(),
  outlive: z.boolean(),
})
const KEY_PREFIX = 'page-session:'

function key(sessionId: string): string {
  return KEY_PREFIX + sessionId
}

/** The session a snapshot key belongs to. */
export function sessionOfSnapshotKey(snapshotKey: string): string {
  return snapshotKey.startsWith(KEY_PREFIX) ? snapshotKey.slice(KEY_PREFIX.length) : snapshotKey
}

function decodeEntries(entries: [string, Uint8Array][]): Map<string, unknown> {
  const out = new Map<string, unknown>()
  for (const [k, bytes] of entries) {
    try {
      out.set(k, deserialize(Buffer.from(bytes)))
    } catch {
      // A value this Node cannot read (written by another version): the widget starts at its default.
    }
  }
  return out
}
