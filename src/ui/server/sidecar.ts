import type { Logger } from 'pino'
import { isSvcError } from '../../errors.js'
import type { SidecarToSupervisor } from '../../../ipc/messages.js'
import { childLogger, createRootLogger } from '../../logging/logger.js'
import { normalizeMountPath } from '../../settings/schema.js'
import { loadTarget } from '../../target/load-target.js'
import { markPagesOnly } from '../../internal/process-role.js'
import { ownPaths } from '../../internal/reload-ignore.js'
import { parseChildEnv } from '../../../ipc/child-env.js'
import { ClientAssets, clientDir } from './static-files.js'
import { UiServer } from './ui-server.js'
import { PageSnapshots, type SnapshotBackend } from './session-snapshots.js'
import { PageThreadPool } from './page-thread-pool.js'
import { kSharedState } from '../../internal/symbols.js'

/** What the bundled sidecar reads from its environment (set by the supervisor). */
export interface SidecarEnv {
  target: string
  port: number
  /** A socket the supervisor bound to `port` and passed down: listen on it instead of binding. */
  listenFd: number | undefined
  host: string
  basePath: string
  devReload: boolean
  devMode: boolean
}

export function readSidecarEnv(env: NodeJS.ProcessEnv): SidecarEnv {
  const e = parseChildEnv(env)
  return {
    target: e.app,
    port: e.uiPort,
    listenFd: e.uiListenFd,
    host: e.uiHost,
    basePath: normalizeMountPath(e.rootPath),
    devReload: e.devReload,
    devMode: e.devMode,
  }
}

export interface RunningSidecar {
  port: number
  logger: Logger
  close(): Promise<void>
}

/** Load the app, start the page server and (in dev) the module watcher. */
export async function startSidecar(env: SidecarEnv): Promise<RunningSidecar> {
  markPagesOnly()
  const { app, file, exportName } = await loadTarget(env.target)
  const logger = childLogger(createRootLogger(app.settings), 'svc.ui')
  const assets = new ClientAssets(clientDir())
  const showErrorDetails = app.settings.show_error_details ?? env.devMode
  const threads = pageThreadCount(app.settings.ui_page_threads)
  // Threads load the app again each: they start with the first page request (`warm`), not here.
  const pool = threads > 0 ? new PageThreadPool({ size: threads, data: { target: env.target, cwd: process.cwd(), basePath: env.basePath, devMode: env.devMode } }) : null
  const server = new UiServer({
    app,
    basePath: env.basePath,
    host: env.host,
    port: env.port,
    listenFd: env.listenFd,
    logger,
    sessionTtlMs: app.settings.ui_session_ttl_s * 1000,
    snapshots: pool ? null : pageSnapshots(app[kSharedState]?.redis ?? null, app.settings.ui_session_ttl_s, logger),
    assets,
    showErrorDetails,
    pool,
  })
  // chokidar and the re-import path load only under `svc dev --reload`. The watcher is ready
  // before the server answers its first health check: an edit made once svc says it is
  // listening is never missed.
  const watcher = env.devReload
    ? await (await import('./dev-reload.js')).watchAppModule({
        file,
        exportName,
        logger,
        own: ownPaths(app.settings),
        onReload: (next) => {
          server.showDevError(null)
          void server.replaceApp(next).then((reran) => logger.info({ reran }, 'ui reload: sessions rerun'))
        },
        onLoadError: (error) => server.showDevError(error),
      })
    : null
  const port = await server.start().catch(async (err: unknown) => {
    await watcher?.close()
    throw err
  })
  // Connect now, not when the first browser fails over to this replica (page threads connect their own).
  if (threads === 0) void app[kSharedState]?.redis?.probe()
  logger.info(
    { port, host: env.host, root_path: env.basePath, pages: app.pages.length, page_threads: threads, dev_reload: env.devReload, show_error_details: showErrorDetails },
    `ui sidecar listening on http://${env.host}:${port}${env.basePath}/`,
  )
  return {
    port,
    logger,
    async close() {
      await watcher?.close()
      await server.close()
    },
  }
}

/** `ui_page_threads`; the environment may still say `null` from older configs: the default two. */
export function pageThreadCount(setting: number | null): number {
  return setting ?? 2
}

/** With `redis_url` set, page sessions are snapshotted there so another replica can resume them. */
function pageSnapshots(redis: SnapshotBackend | null, ttlSeconds: number, logger: Logger): PageSnapshots | null {
  return redis ? new PageSnapshots({ backend: redis, ttlSeconds, logger }) : null
}

/** A startup failure as the IPC message the supervisor reports. */
export function startupFatal(err: unknown): SidecarToSupervisor {
  if (isSvcError(err)) return { svc: 1, type: 'fatal', code: err.code, message: err.message }
  return { svc: 1, type: 'fatal', code: 'SVC_ERR_UI_SIDECAR_START', message: describeStartupError(err).replace(/^svc ui: cannot start: /, 'the ui sidecar cannot start: ') }
}

/** A startup failure as one clear stderr line. */
export function describeStartupError(err: unknown): string {
  if (isSvcError(err)) return `svc ui: cannot start (${err.code}): ${err.message}`
  const e = err as NodeJS.ErrnoException
  if (e?.code === 'EADDRINUSE') return `svc ui: cannot start: port already in use (${e.message})`
  return `svc ui: cannot start: ${e?.stack ?? String(err)}`
}
