import { dirname } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Logger } from 'pino'
import { tsImport } from 'tsx/esm/api'
import { kSvcApp } from '../../internal/symbols.js'
import type { PageApp } from '../page-app.js'
import type { OwnPaths } from '../../internal/reload-ignore.js'
import { watchFolder } from '../../internal/folder-watch.js'
import type { DevLoadError } from '../protocol.js'
import { devLoadError, exportLostError } from './dev-load-error.js'

/** The brand `new Svc()` sets (see `isSvc`), checked here without importing the Svc class. */
function isSvcApp(value: unknown): value is PageApp {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kSvcApp] === true
}

/**
 * Import the app module again through a fresh tsx namespace (the module and its local imports
 * are evaluated again): the app, or why it did not load.
 */
export async function loadAppModule(file: string, exportName: string): Promise<{ app: PageApp } | { error: DevLoadError }> {
  let mod: Record<string, unknown>
  try {
    mod = (await tsImport(pathToFileURL(file).href, { parentURL: import.meta.url })) as Record<string, unknown>
  } catch (err) {
    return { error: devLoadError(file, err) }
  }
  const app = mod[exportName]
  return isSvcApp(app) ? { app } : { error: exportLostError(file, exportName) }
}

/** `loadAppModule` for a page thread: null, logged in one line, when it does not load. */
export async function importAppModule(file: string, exportName: string, logger: Logger): Promise<PageApp | null> {
  const loaded = await loadAppModule(file, exportName)
  if ('app' in loaded) return loaded.app
  logger.error(`ui reload: ${loaded.error.summary}; keeping the previous version`)
  return null
}

/** Changes closer together than this are one reload. */
export const RELOAD_DEBOUNCE_MS = 150

/**
 * `SVC_DEV_RELOAD=1`: watch the app's directory and re-import the app module on change. Each
 * import goes through a fresh tsx namespace, so the module and its local imports are evaluated
 * again; sessions keep their state and rerun with the new page functions. A save that does not
 * load goes to `onLoadError` (the browser overlay) and the previous version keeps running.
 * Resolves once the watcher has scanned the folder (chokidar's `ready`): a change before that
 * could be missed.
 */
export async function watchAppModule(options: {
  file: string
  exportName: string
  logger: Logger
  /** svc's own files and folders (pidfile, state file, compile cache): never a reason to reload. */
  own: OwnPaths
  onReload: (app: PageApp) => void
  onLoadError: (error: DevLoadError) => void
}): Promise<{ close(): Promise<void> }> {
  const { file, exportName, logger } = options
  let reloading = Promise.resolve()
  const reload = async (): Promise<void> => {
    const loaded = await loadAppModule(file, exportName)
    if ('app' in loaded) {
      options.onReload(loaded.app)
      return
    }
    // The supervisor prints the one terminal line for this save (its gateway reload fails on
    // the same code); the page server's part is the browser overlay.
    logger.debug({ code: 'SVC_ERR_TARGET_IMPORT_FAILED' }, `ui reload: ${loaded.error.summary}; pages keep the previous version`)
    options.onLoadError(loaded.error)
  }
  const watcher = await watchFolder({
    dir: dirname(file),
    own: options.own,
    debounceMs: RELOAD_DEBOUNCE_MS,
    onSaves: (paths) => {
      logger.info({ changed: paths.at(-1) }, 'ui reload: app changed, re-importing')
      reloading = reloading.then(reload)
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
