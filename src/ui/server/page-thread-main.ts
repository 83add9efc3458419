import { getHeapStatistics } from 'node:v8'
import { parentPort, threadId, workerData } from 'node:worker_threads'
import { getClient } from '../../client/api-client.js'
import { isSvcError } from '../../errors.js'
import { childLogger, createRootLogger } from '../../logging/logger.js'
import { markPagesOnly } from '../../internal/process-role.js'
import { loadTarget, stopAppTransforms } from '../../target/load-target.js'
import { declaredComponents } from '../components.js'
import { overridesFromEnv } from '../inject.js'
import { MediaStore } from '../media-store.js'
import { LocalSessions, type BoundSession } from './local-sessions.js'
import { BEAT_MS, type FromPageThread, type PageThreadData, type ToPageThread } from './page-thread-messages.js'
import { PageSnapshots } from './session-snapshots.js'
import { pageSideOf, type PageServerApp } from '../page-app.js'
import { MainThreadSnapshots } from './thread-snapshots.js'
import { CookieKeys } from '../storage/cookie-keys.js'
import { QuietSettle } from '../../process/settle-heap.js'

// One page thread of the sidecar's pool (page-thread-pool.ts): it loads the app itself and runs
// the page sessions the main thread routes here; sockets and HTTP stay in the main thread, which
// never imports the app.
const port = parentPort!
const data = workerData as PageThreadData
const post = (m: FromPageThread, transfer?: ArrayBuffer[]): void => port.postMessage(m, transfer)

/**
 * Media bytes go to the main thread, which serves them over HTTP. Every add is relayed (the main
 * store dedups by content and may have evicted an entry a rerun adds again); this thread keeps
 * only the newest entry.
 */
class RelayedMedia extends MediaStore {
  override add(bytes: Uint8Array, mime: string, fileName: string | null = null): string {
    post({ t: 'media', bytes, mime, fileName })
    return super.add(bytes, mime, fileName)
  }
}

// The page side sees the app only as a PageServerApp (settings and shared state included).
let loaded: { app: PageServerApp; file: string; exportName: string }
try {
  markPagesOnly()
  const target = await loadTarget(data.target, data.cwd)
  loaded = { ...target, app: pageSideOf(target.app) }
  await stopAppTransforms()
} catch (err) {
  await stopAppTransforms()
  const { devLoadError } = await import('./dev-load-error.js')
  // loadTarget wraps what the import threw in its one-line SvcError; the overlay reads the original.
  const cause = isSvcError(err) && err.code === 'SVC_ERR_TARGET_IMPORT_FAILED' ? (err.cause ?? err) : err
  post({ t: 'fatal', code: isSvcError(err) ? err.code : null, message: (err as Error)?.message ?? String(err), devError: devLoadError(data.appFile, cause, data.cwd) })
  process.exit(1)
}
const { app, file, exportName } = loaded

const settings = app.settings
const logger = childLogger(createRootLogger(settings), 'svc.ui').child({ thread: threadId })
const redis = app.pageSnapshotStore
// Without Redis the main thread keeps the snapshots, so a session outlives its thread.
const local = redis ? null : new MainThreadSnapshots((call) => post({ t: 'snapshot', call }))
const host = new LocalSessions({
  app,
  client: getClient(app),
  media: new RelayedMedia({ basePath: data.basePath, maxBytes: 0 }),
  logger,
  basePath: data.basePath,
  ttlMs: settings.ui_session_ttl_s * 1000,
  runTimeoutMs: settings.ui_run_timeout_s * 1000,
  maxPendingUploadBytes: settings.ui_max_upload_bytes,
  showErrorDetails: settings.show_error_details ?? data.devMode,
  overrides: overridesFromEnv(),
  snapshots: new PageSnapshots({ backend: redis ?? local!, ttlSeconds: settings.ui_session_ttl_s, logger }),
  onDrop: (sessionId) => post({ t: 'gone', sessionId }),
  // Tasks run on the page server's task threads; the main thread's task manager holds them.
  tasks: {
    start: (sessionId, key, request) => post({ t: 'task_start', sessionId, key, request }),
    cancel: (sessionId, key) => post({ t: 'task_cancel', sessionId, key }),
    forget: (sessionId, key) => post({ t: 'task_forget', sessionId, key }),
    sync: (sessionId, keys) => post({ t: 'task_sync', sessionId, keys: [...keys] }),
  },
  maxTasksPerSession: settings.ui_task_max_per_session,
  cookieKeys: new CookieKeys(settings.cookie_secret, data.ticketKey ?? CookieKeys.randomFallback()),
  userStorageLimits: { maxValueBytes: settings.ui_user_storage_max_value_bytes, maxKeys: settings.ui_user_storage_max_keys },
})
void redis?.probe()
const conns = new Map<number, BoundSession | Promise<BoundSession | null>>()
/** Sockets whose session has a run in progress: the main thread places new sessions elsewhere first. */
const running = new Set<number>()
/** After a burst of runs, one collection lets V8 give back the young generation the burst grew: 5 s with no run. */
const quiet = new QuietSettle(5_000)

async function open(m: Extract<ToPageThread, { t: 'open' }>): Promise<BoundSession | null> {
  try {
    let sessionId: string | null = null
    const bound = await host.open(m, m.context, {
      send: (message) => post({ t: 'out', conn: m.conn, data: typeof message === 'string' ? message : JSON.stringify(message) }),
      run: (started) => {
        quiet.worked()
        if (started) running.add(m.conn)
        else running.delete(m.conn)
        const at = host.locationOf(sessionId ?? '') ?? { path: m.path, query: m.query }
        post({ t: 'run', conn: m.conn, running: running.size, page: started ? at.path : null, at })
      },
      close: (code, reason) => post({ t: 'close_conn', conn: m.conn, code, reason }),
      unbind: () => undefined,
    })
    sessionId = bound.id
    post({ t: 'opened', conn: m.conn, sessionId: bound.id })
    return bound
  } catch (err) {
    post({ t: 'open_failed', conn: m.conn, message: (err as Error)?.message ?? String(err) })
    return null
  }
}

function handle(conn: number, bytes: Uint8Array): void {
  const bound = conns.get(conn)
  const done = (): void => post({ t: 'ack', conn })
  if (bound === undefined) done()
  else if (bound instanceof Promise) void bound.then((b) => (b ? b.handle(bytes, done) : done()))
  else bound.handle(bytes, done)
}

port.on('message', (m: ToPageThread) => {
  switch (m.t) {
    case 'open': {
      const opening = open(m)
      conns.set(m.conn, opening)
      void opening.then((bound) => {
        if (conns.get(m.conn) === opening) {
          if (bound) conns.set(m.conn, bound)
          else conns.delete(m.conn)
        } else bound?.release()
      })
      return
    }
    case 'msg':
      handle(m.conn, m.bytes)
      return
    case 'release':
    case 'drop': {
      const bound = conns.get(m.conn)
      conns.delete(m.conn)
      running.delete(m.conn)
      if (bound && !(bound instanceof Promise)) bound.release()
      if (m.t === 'drop') host.forget(m.sessionId)
      return
    }
    case 'upload':
      void host.upload(m.upload).then((outcome) => post({ t: 'uploaded', id: m.id, outcome }))
      return
    case 'snapshot_value':
      local?.answer(m.id, m.value)
      return
    case 'revoked':
      for (const { sid, until } of m.sessions) app.sessionRevocations.receive(sid, until)
      return
    case 'handover':
      void host.handover().finally(() => post({ t: 'handed_over' }))
      return
    case 'task':
      host.taskUpdate(m.sessionId, m.key, m.record)
      return
    case 'close':
      clearInterval(beat)
      void host.close().finally(() => post({ t: 'closed' }))
      return
    default: {
      const never: never = m
      return never
    }
  }
})

// The main thread reads a late beat as "busy" and places new sessions on other threads; a beat
// late by more than `ui_run_timeout_s` gets this thread replaced.
const beat = setInterval(() => {
  post({ t: 'beat', running: running.size, heap: getHeapStatistics().used_heap_size })
  if (running.size === 0) quiet.check()
}, BEAT_MS)
post({ t: 'ready', profile: { settings: app.settings, pages: host.directory.keys(), file, exportName, components: declaredComponents() } })
// Loading the app is this thread's start-up; sessions' runs come in bursts (docs/performance.md).
quiet.worked()
