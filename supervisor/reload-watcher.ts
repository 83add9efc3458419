import { watch } from 'chokidar'
import type { Logger } from 'pino'
import { canonicalPath, createReloadEventFilter, reloadIgnore, type OwnPaths } from '../src/internal/reload-ignore.js'

/** A burst of saves (an editor's write + rename, a formatter's rewrite) becomes one reload. */
export const RELOAD_DEBOUNCE_MS = 100

/** Resolves once the initial scan is done: from then on every save of the app's files is seen. */
export async function watchForReload(dir: string, own: OwnPaths, logger: Logger, onChange: () => void): Promise<() => Promise<void>> {
  const root = canonicalPath(dir)
  const watcher = watch(root, { ignored: reloadIgnore(root, own), ignoreInitial: true })
  let timer: NodeJS.Timeout | null = null
  let changed: string[] = []
  const counts = createReloadEventFilter()
  watcher.on('all', (event, path) => {
    if (!counts(event, path)) return
    changed.push(path)
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => {
      timer = null
      logger.info({ files: changed.slice(0, 10) }, `change detected (${changed.length} event(s)); reloading`)
      changed = []
      onChange()
    }, RELOAD_DEBOUNCE_MS)
  })
  watcher.on('error', (err) => logger.warn({ err }, 'file watcher error'))
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()))
  return () => watcher.close()
}
