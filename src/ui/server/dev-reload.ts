import { dirname } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Logger } from 'pino'
import { kSvcApp } from '../../internal/symbols.js'
import type { PageApp } from '../page-app.js'
import type { OwnPaths } from '../../../state/reload-ignore.js'
import { watchFolder } from '../../../state/folder-watch.js'
import type { DevLoadError } from '../protocol.js'
import { devLoadError, exportLostError } from './dev-load-error.js'

/** The brand `new Svc()` sets (see `isSvc`), checked here without importing the Svc class. */
function isSvcApp(value: unknown): value is PageApp {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kSvcApp] === true
}

/**
 * Import the app module again through a fresh tsx namespace (the module and its local imports
 * are evaluated again), for `ui_page_threads: 0`, where the app runs in the page server's own
 * thread: the app, or why it did not load. Each import adds a module graph this isolate never
 * frees; with page threads, threads are replaced instead (page-thread-pool.ts).
 */
export async function loadAppModule(file: string, exportName: string): Promise<{ app: PageApp } | { error: DevLoadError }> {
  const { tsImport } = await import('tsx/esm/api')
  let mod: Record<string, unknown>
  try {
    mod = (await tsImport(pathToFileURL(file).href, { parentURL: import.meta.url })) as Record<string, unknown>
  } catch (err) {
    return { error: devLoadError(file, err) }
  }
  const app = mod[exportName]
  return isSvcApp(app) ? { app } : { error: exportLostError(file, exportName) }
}

/** Changes closer together than this are one reload. */
export const RELOAD_DEBOUNCE_MS = 150

/**
 * `SVC_DEV_RELOAD=1`: watch the app's directory and reload on change, one reload at a time.
 * Resolves once the watcher has scanned the folder (chokidar's `ready`): a change before that
 * could be missed.
 */
export async function watchAppModule(options: {
  file: string
  logger: Logger
  /** svc's own files and folders (pidfile, state file, compile cache): never a reason to reload. */
  own: OwnPaths
  /** Load the app again; failures are the caller's to report. */
  onReload: () => void | Promise<void>
}): Promise<{ close(): Promise<void> }> {
  const { file, logger } = options
  let reloading = Promise.resolve()
  const watcher = await watchFolder({
    dir: dirname(file),
    own: options.own,
    debounceMs: RELOAD_DEBOUNCE_MS,
    onSaves: (paths) => {
      logger.info({ changed: paths.at(-1) }, 'ui reload: app changed, reloading')
      reloading = reloading.then(options.onReload)
    },
    onError: (err) => logger.warn({ err }, 'ui reload: file watcher error'),
  })
  return {
    async close() {
      await watcher.close()
      await reloading
    },
  }
}
