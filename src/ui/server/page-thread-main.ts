import { parentPort, threadId, workerData } from 'node:worker_threads'
import { getClient } from '../../client/api-client.js'
import { isSvcError } from '../../errors.js'
import { childLogger, createRootLogger } from '../../logging/logger.js'
import { kSharedState } from '../../internal/symbols.js'
import { markPagesOnly } from '../../internal/process-role.js'
import { loadTarget } from '../../target/load-target.js'
import { overridesFromEnv } from '../inject.js'
import { MediaStore } from '../media-store.js'
import { importAppModule } from './dev-reload.js'
import { LocalSessions, type BoundSession } from './local-sessions.js'
import { BEAT_MS, type FromPageThread, type PageThreadData, type ToPageThread } from './page-thread-messages.js'
import { PageSnapshots } from './session-snapshots.js'

// One page thread of the sidecar's pool (page-thread-pool.ts): it loads the app itself and runs
// the page sessions the main thread routes here; sockets and HTTP stay in the main thread.
const port = parentPort!
const data = workerData as PageThreadData
const post = (m: FromPageThread): void => port.postMessage(m)

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

let loaded: Awaited<ReturnType<typeof loadTarget>>
try {
  markPagesOnly()
  loaded = await loadTarget(data.target, data.cwd)
} catch (err) {
  post({ t: 'fatal', code: isSvcError(err) ? err.code : null, message: (err as Error)?.message ?? String(err) })
  process.exit(1)
}
const { app, file, exportName } = loaded
const logger = childLogger(createRootLogger(app.settings), 'svc.ui').child({ thread: threadId })
const redis = app[kSharedState]?.redis ?? null
const host = new LocalSessions({
  app,
  client: getClient(app),
  media: new RelayedMedia({ basePath: data.basePath, maxBytes: 0 }),
  logger,
  ttlMs: app.settings.ui_session_ttl_s * 1000,
  showErrorDetails: app.settings.show_error_details ?? data.devMode,
  overrides: overridesFromEnv(),
  snapshots: redis ? new PageSnapshots({ backend: redis, ttlSeconds: app.settings.ui_session_ttl_s, logger }) : null,
  onDrop: (sessionId) => post({ t: 'gone', sessionId }),
})
void redis?.probe()
const conns = new Map<number, BoundSession | Promise<BoundSession | null>>()
/** Sockets whose session has a run in progress: the main thread places new sessions elsewhere first. */
const running = new Set<number>()

async function open(m: Extract<ToPageThread, { t: 'open' }>): Promise<BoundSession | null> {
  try {
    const bound = await host.open(m, m.context, {
      send: (message) => {
        if (typeof message === 'string') return post({ t: 'out', conn: m.conn, data: message })
        if (message.type !== 'run_state') return post({ t: 'out', conn: m.conn, data: JSON.stringify(message) })
        if (message.running) running.add(m.conn)
        else running.delete(m.conn)
        post({ t: 'out', conn: m.conn, data: JSON.stringify(message), running: running.size })
      },
      close: () => undefined,
    })
    post({ t: 'opened', conn: m.conn, sessionId: bound.id })
    return bound
  } catch (err) {
    post({ t: 'open_failed', conn: m.conn, message: (err as Error)?.message ?? String(err) })
    return null
  }
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
    case 'msg': {
      const bound = conns.get(m.conn)
      if (bound instanceof Promise) void bound.then((b) => b?.handle(m.msg))
      else bound?.handle(m.msg)
      return
    }
    case 'release': {
      const bound = conns.get(m.conn)
      conns.delete(m.conn)
      running.delete(m.conn)
      if (bound && !(bound instanceof Promise)) bound.release()
      return
    }
    case 'reload':
      void importAppModule(file, exportName, logger).then((next) => post({ t: 'reloaded', reran: next ? host.replaceApp(next) : 0 }))
      return
    case 'close':
      clearInterval(beat)
      void host.close().finally(() => post({ t: 'closed' }))
      return
  }
})

// The main thread reads a late beat as "busy" and places new sessions on other threads.
const beat = setInterval(() => post({ t: 'beat', running: running.size }), BEAT_MS)
post({ t: 'ready' })
