import { performance } from 'node:perf_hooks'
import type { Logger } from 'pino'
import { isSvcError } from '../../errors.js'
import type { SidecarToSupervisor, SupervisorToSidecar } from '../../../ipc/messages.js'
import type { Channel } from '../../../ipc/channel.js'
import { childLogger, createRootLogger } from '../../logging/logger.js'
import { normalizeMountPath } from '../../settings/schema.js'
import { markPagesOnly } from '../../internal/process-role.js'
import { parseChildEnv } from '../../process/child-env.js'
import { adoptComponents } from '../components.js'
import { MediaStore } from '../media-store.js'
import { PageIndex } from '../page-directory.js'
import type { LocalSessions } from './local-sessions.js'
import { pageSideOf, type PageServerApp } from '../page-app.js'
import type { AppProfile, PageServerStats } from '../../../ipc/messages.js'
import type { DevLoadError, DevTypeErrors } from '../wire/protocol.js'
import { PageThreadPool } from './page-thread-pool.js'
import { ClientAssets, clientDir } from './static-files.js'
import { UiServer, type PageSite } from './ui-server.js'
import { TaskManager, type TaskDelivery } from '../tasks/task-manager.js'
import { TaskThreadPool } from './task-thread-pool.js'
import { CookieKeys } from '../storage/cookie-keys.js'

/** What the bundled sidecar reads from its environment (set by the supervisor). */
export interface SidecarEnv {
  target: string
  port: number
  /** A socket the supervisor bound to `port` and passed down: listen on it instead of binding. */
  listenFd: number | undefined
  host: string
  basePath: string
  /** `svc dev --reload`: a save that does not load shows in the browsers (the overlay). */
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
  /**
   * A reload's first half: load the app again (fresh page threads) while the sessions stay on the
   * running code; when it does not load, the running code serves on and the browsers show why.
   * The supervisor commits it once the new gateway workers serve, so pages rerun against the new
   * API, or aborts it when they do not come up.
   */
  prepareReload(): Promise<PageServerReload>
  /** Every session moves to the prepared code and reruns there: how many moved. */
  commitReload(): Promise<{ moved: number; ms: number }>
  /** The prepared code goes; the running code serves on. */
  abortReload(): void
  /** Sign-outs made in the tree: the pages of those sign-ins sign out at once, and refuse them from now on. */
  revoked(sessions: readonly { sid: string; until: number }[]): void
  /** Sessions and page threads, for `svc status` and the process metrics; CPU over `windowMs`. */
  stats(windowMs: number): Promise<PageServerStats>
  /** `svc dev`'s type check: the open tabs show its errors. */
  showTypeErrors(report: DevTypeErrors): void
  close(): Promise<void>
}

/** How a reload's load went: the new code is ready to serve, or why it did not load. */
export type PageServerReload = { ms: number } | { failed: DevLoadError }

/**
 * Start the page server for `profile`, the app as the probe read it (the supervisor's
 * `configure`). With page threads (the default) this thread never imports the app: page threads
 * load it on the first page request. With `ui_page_threads: 0` the app runs here. A reload the
 * supervisor asks for (`svc reload`, a dev save) replaces the page threads (fresh isolates).
 */
export async function startSidecar(env: SidecarEnv, profile: AppProfile): Promise<RunningSidecar> {
  // Cookie tickets are sealed with cookie_secret, or without one with this key of the page server's.
  const ticketKey = CookieKeys.randomFallback()
  const data = { target: env.target, cwd: process.cwd(), basePath: env.basePath, devMode: env.devMode, ticketKey }
  const loaded = profile.settings.ui_page_threads === 0 ? await loadInProcess(env.target) : null
  const settings = profile.settings
  const logger = childLogger(createRootLogger(settings), 'svc.ui')
  const showErrorDetails = settings.show_error_details ?? env.devMode
  const media = new MediaStore({ basePath: env.basePath })
  const assets = new ClientAssets(clientDir())
  // Tasks (`st.task`) run on task threads of their own, whichever thread runs the sessions.
  const taskThreads = new TaskThreadPool({ size: settings.ui_task_threads, data: { target: env.target, cwd: data.cwd, devMode: env.devMode }, logger, heapCapMb: settings.ui_page_thread_max_heap_mb })
  let deliver: TaskDelivery = () => undefined
  const tasks = new TaskManager({
    executor: taskThreads,
    deliver: (sessionId, key, record) => deliver(sessionId, key, record),
    limits: { maxRunning: settings.ui_task_max_running, maxPerSession: settings.ui_task_max_per_session, timeoutMs: settings.ui_task_timeout_s * 1000 },
    logger,
  })
  const pool = loaded
    ? null
    : new PageThreadPool({
        size: settings.ui_page_threads,
        data: { ...data, appFile: profile.file },
        logger,
        media,
        runTimeoutMs: settings.ui_run_timeout_s * 1000,
        idleMs: settings.ui_page_thread_idle_s * 1000,
        maxHeapBytes: settings.ui_page_thread_max_memory_mb * 1024 * 1024,
        recycleCheckMs: settings.recycle_check_interval_s * 1000,
        tasks,
        sessionTtlMs: settings.ui_session_ttl_s * 1000,
        heapCapMb: settings.ui_page_thread_max_heap_mb,
      })
  const cookieKeys = new CookieKeys(settings.cookie_secret, ticketKey)
  const local = loaded ? await loaded.sessions({ media, logger, basePath: env.basePath, showErrorDetails, tasks, cookieKeys }) : null
  deliver = pool ? (sessionId, key, record) => pool.deliverTask(sessionId, key, record) : (sessionId, key, record) => local!.taskUpdate(sessionId, key, record)
  const server = new UiServer({
    site: siteOf(profile),
    sessions: pool ?? local!,
    pool,
    media,
    basePath: env.basePath,
    host: env.host,
    port: env.port,
    listenFd: env.listenFd,
    logger,
    assets,
    maxMessageBytes: settings.ui_max_message_bytes,
    maxUploadBytes: settings.ui_max_upload_bytes,
    cookieKeys,
  })
  // A reload that does not load leaves the running code serving; under `svc dev --reload` it goes
  // to the browser overlay. The supervisor prints (or answers `svc reload` with) the one line for it.
  const failed = (error: DevLoadError): PageServerReload => {
    logger.debug({ code: 'SVC_ERR_TARGET_IMPORT_FAILED' }, `ui reload: ${error.summary}; pages keep the previous version`)
    if (env.devReload) server.showDevError(error)
    return { failed: error }
  }
  // The prepared half of a reload: what its commit does (the pool's fresh threads, or the app loaded here).
  let prepared: { commit: () => Promise<number>; abort: () => void } | null = null
  const dropPrepared = (): void => {
    prepared?.abort()
    prepared = null
  }
  const prepare = async (): Promise<PageServerReload> => {
    const started = performance.now()
    dropPrepared()
    if (pool) {
      const result = await pool.prepareReload()
      if ('failed' in result) return failed(result.failed)
      prepared = {
        commit: async () => {
          const moved = await pool.commitReload()
          server.setSite(siteOf(result.profile))
          return moved
        },
        abort: () => pool.abortReload(),
      }
    } else {
      const next = await (await import('./dev-reload.js')).loadAppModule(profile.file, profile.exportName)
      if ('error' in next) return failed(next.error)
      prepared = {
        commit: async () => {
          const reran = local!.replaceApp(next.app)
          server.setSite({ settings: next.app.settings, pages: local!.directory })
          return reran
        },
        abort: () => undefined,
      }
    }
    server.showDevError(null)
    return { ms: Math.round(performance.now() - started) }
  }
  const commit = async (): Promise<{ moved: number; ms: number }> => {
    const started = performance.now()
    const next = prepared
    prepared = null
    const moved = next ? await next.commit() : 0
    taskThreads.retireAll()
    const ms = Math.round(performance.now() - started)
    logger.debug({ moved, ms }, pool ? 'ui reload: fresh page threads; sessions continue there' : 'ui reload: sessions rerun')
    return { moved, ms }
  }
  const port = await server.start()
  // Connect now, not when the first browser fails over to this replica (page threads connect their own).
  if (loaded) void loaded.app.pageSnapshotStore?.probe()
  logger.info(
    { port, host: env.host, root_path: env.basePath, pages: profile.pages.length, page_threads: settings.ui_page_threads, dev_reload: env.devReload, show_error_details: showErrorDetails },
    `ui sidecar listening on http://${env.host}:${port}${env.basePath}/`,
  )
  // One step of a reload at a time; close waits for the one running.
  let reloading: Promise<unknown> = Promise.resolve()
  const serial = <T>(step: () => Promise<T>): Promise<T> => {
    const next = reloading.then(step)
    reloading = next.catch(() => undefined)
    return next
  }
  return {
    port,
    logger,
    prepareReload: () => serial(prepare),
    commitReload: () => serial(commit),
    abortReload: () => void serial(async () => dropPrepared()),
    revoked(sessions) {
      if (pool) pool.revoked(sessions)
      else for (const { sid, until } of sessions) loaded!.app.sessionRevocations.receive(sid, until)
    },
    stats: async (windowMs) => ({
      ...(pool ? await pool.stats(windowMs) : { sessions: local!.size, threads: [], thread_exits: { crashed: 0, killed: 0, recycled: 0 } }),
      tasks: { running: tasks.running, queued: tasks.queued, threads: taskThreads.threads },
    }),
    showTypeErrors: (report) => server.showTypeErrors(report),
    async close() {
      await reloading
      dropPrepared()
      await server.close()
      await tasks.close()
    },
  }
}

interface InProcess {
  app: PageServerApp
  /** The page sessions, run in this thread. */
  sessions(options: { media: MediaStore; logger: Logger; basePath: string; showErrorDetails: boolean; tasks: TaskManager; cookieKeys: CookieKeys }): Promise<LocalSessions>
}

/**
 * The app loaded in this thread (`ui_page_threads: 0`). The page runtime is imported only here:
 * with page threads, this thread never loads it.
 */
async function loadInProcess(target: string): Promise<InProcess> {
  markPagesOnly()
  const { loadTarget } = await import('../../target/load-target.js')
  const app = pageSideOf((await loadTarget(target)).app)
  const settings = app.settings
  return {
    app,
    async sessions({ media, logger, basePath, showErrorDetails, tasks, cookieKeys }) {
      const [{ LocalSessions }, { getClient }, { overridesFromEnv }, { PageSnapshots }] = await Promise.all([
        import('./local-sessions.js'),
        import('../../client/api-client.js'),
        import('../inject.js'),
        import('./session-snapshots.js'),
      ])
      // With `redis_url` set, page sessions are snapshotted there so another replica can resume them.
      const redis = app.pageSnapshotStore
      return new LocalSessions({
        app,
        client: getClient(app),
        media,
        logger,
        basePath,
        ttlMs: settings.ui_session_ttl_s * 1000,
        runTimeoutMs: settings.ui_run_timeout_s * 1000,
        maxPendingUploadBytes: settings.ui_max_upload_bytes,
        showErrorDetails,
        overrides: overridesFromEnv(),
        snapshots: redis ? new PageSnapshots({ backend: redis, ttlSeconds: settings.ui_session_ttl_s, logger }) : null,
        tasks,
        maxTasksPerSession: settings.ui_task_max_per_session,
        onDrop: (id) => tasks.endSession(id),
        cookieKeys,
        userStorageLimits: { maxValueBytes: settings.ui_user_storage_max_value_bytes, maxKeys: settings.ui_user_storage_max_keys },
      })
    },
  }
}

/** The site the main thread shows; it also takes the app's components (their files, their origins in the CSP). */
function siteOf(profile: AppProfile): PageSite {
  adoptComponents(profile.components)
  return { settings: profile.settings, pages: new PageIndex(profile.pages) }
}

/**
 * Answer the supervisor: `reload` (load the new code beside the running one: `reload_ready`),
 * then `reload_commit` (the sessions move to it once the new gateway workers serve: `reloaded`)
 * or `reload_abort`; `stats_request` (`svc status`, the process metrics),
 * `sessions_revoked` (sign-outs made in the tree: their open pages sign out at once) and, under
 * `svc dev`, `type_errors` (the type check's errors, for the open tabs).
 */
export function answerSupervisor(sidecar: RunningSidecar, channel: Channel<SupervisorToSidecar, SidecarToSupervisor>): void {
  channel.onMessage((m) => {
    if (m.type === 'stats_request') {
      void sidecar.stats(m.window_ms).then((stats) => channel.send({ svc: 1, type: 'stats', id: m.id, stats }))
      return
    }
    if (m.type === 'type_errors') return sidecar.showTypeErrors({ errors: m.errors, total: m.total })
    if (m.type === 'sessions_revoked') {
      sidecar.revoked(m.sessions)
      return
    }
    if (m.type === 'reload_abort') return sidecar.abortReload()
    if (m.type === 'reload_commit') {
      void sidecar.commitReload().then(
        (r) => channel.send({ svc: 1, type: 'reloaded', id: m.id, moved: r.moved, ms: r.ms }),
        (err: unknown) => channel.send({ svc: 1, type: 'reload_failed', id: m.id, summary: `the page server could not move its sessions: ${(err as Error)?.message ?? String(err)}` }),
      )
      return
    }
    if (m.type !== 'reload') return
    void sidecar.prepareReload().then(
      (r) => channel.send('failed' in r ? { svc: 1, type: 'reload_failed', id: m.id, summary: r.failed.summary } : { svc: 1, type: 'reload_ready', id: m.id, ms: r.ms }),
      (err: unknown) => channel.send({ svc: 1, type: 'reload_failed', id: m.id, summary: `the page server could not reload: ${(err as Error)?.message ?? String(err)}` }),
    )
  })
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
