import type { Logger } from 'pino'
import type { OwnPaths } from '../state/reload-ignore.js'
import { watchFolder } from '../state/folder-watch.js'

/** A burst of saves (an editor's write + rename, a formatter's rewrite) becomes one reload. */
export const RELOAD_DEBOUNCE_MS = 100

/**
 * Resolves once the initial scan is done: from then on every save of the app's files is seen.
 * `onChange` acts on a burst of saves and says what it does ("reloading", "starting"), for the log line.
 */
export async function watchForReload(dir: string, own: OwnPaths, loaded: readonly string[], logger: Logger, onChange: () => string): Promise<() => Promise<void>> {
  const watcher = await watchFolder({
    dir,
    own,
    loaded,
    debounceMs: RELOAD_DEBOUNCE_MS,
    onSaves: (paths) => {
      const action = onChange()
      // One save is often two events (created, then written): the count says events, the list names each file once.
      const files = [...new Set(paths)].slice(0, 10)
      logger.info({ files }, `change detected (${paths.length} event(s)); ${action}`)
    },
    onError: (err) => logger.warn({ err }, 'file watcher error'),
  })
  return () => watcher.close()
}
