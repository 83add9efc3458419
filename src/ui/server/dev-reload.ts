import { basename, dirname } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Logger } from 'pino'
import { tsImport } from 'tsx/esm/api'
import { kSvcApp } from '../../internal/symbols.js'
import type { PageApp } from '../page-app.js'
import type { OwnPaths } from '../../internal/reload-ignore.js'
import { watchFolder } from '../../internal/folder-watch.js'

/** The brand `new Svc()` sets (see `isSvc`), checked here without importing the Svc class. */
function isSvcApp(value: unknown): value is PageApp {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[kSvcApp] === true
}

/**
 * Import the app module again through a fresh tsx namespace (the module and its local imports
 * are evaluated again); null, logged, when it fails or no longer exports an app.
 */
export async function importAppModule(file: string, exportName: string, logger: Logger): Promise<PageApp | null> {
  try {
    const mod = (await tsImport(pathToFileURL(file).href, { parentURL: import.meta.url })) as Record<string, unknown>
    const app = mod[exportName]
    if (!isSvcApp(app)) {
      logger.error(`ui reload: ${basename(file)} no longer exports an Svc app as "${exportName}"; keeping the previous version`)
      return null
    }
    return app
  } catch (err) {
    logger.error({ err }, `ui reload: importing ${basename(file)} failed; keeping the previous version`)
    return null
  }
}

/** Changes closer together than this are one reload. */
export const RELOAD_DEBOUNCE_MS = 150

/**
 * `SVC_DEV_RELOAD=1`: watch the app's directory and re-import the app module on change. Each
 * import goes through a fresh tsx namespace, so the module and its local imports are evaluated
 * again; sessions keep their state and rerun with the new page functions. Resolves once the
 * watcher has scanned the folder (chokidar's `ready`): a change before that could be missed.
 */
export async function watchAppModule(options: {
  file: string
  exportName: string
  logger: Logger
  /** svc's own files and folders (pidfile, state file, compile cache): never a reason to reload. */
  own: OwnPaths
  onReload: (app: PageApp) => void
}): Promise<{ close(): Promise<void> }> {
  const { file, exportName, logger } = options
  let reloading = Promise.resolve()
  const reload = async (): Promise<void> => {
    const app = await importAppModule(file, exportName, logger)
    if (app) options.onReload(app)
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
