import { watch } from 'chokidar'
import { canonicalPath, createReloadEventFilter, reloadIgnore, reloadsOn, type OwnPaths } from './reload-ignore.js'

/**
 * The dev reload watch of an app's folder, shared by the supervisor and the bundled page server:
 * chokidar on the folder (svc's own files and scratch files ignored), the events that count
 * (`createReloadEventFilter`) on the files that do (`reloadsOn`), and a burst of them closer than `debounceMs` handed over as one.
 * Resolves once chokidar's initial scan is done: from then on every save is seen.
 */
export async function watchFolder(options: {
  dir: string
  own: OwnPaths
  /** Files read when the app loads (`loadedFiles`): counted even where their folder is ignored. */
  loaded: readonly string[]
  debounceMs: number
  /** One burst of saves: the paths in the order their events came. */
  onSaves: (paths: string[]) => void
  onError: (err: unknown) => void
}): Promise<{ close(): Promise<void> }> {
  const root = canonicalPath(options.dir)
  const watcher = watch(root, { ignored: reloadIgnore(root, options.own, options.loaded), ignoreInitial: true })
  const counts = createReloadEventFilter()
  const reloads = reloadsOn(options.loaded)
  let timer: NodeJS.Timeout | null = null
  let changed: string[] = []
  watcher.on('all', (event, path) => {
    if (!counts(event, path) || !reloads(path)) return
    changed.push(path)
    if (timer) clearTimeout(timer)
    timer = setTimeout(() => {
      timer = null
      const paths = changed
      changed = []
      options.onSaves(paths)
    }, options.debounceMs)
  })
  watcher.on('error', options.onError)
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()))
  return {
    async close() {
      if (timer) clearTimeout(timer)
      await watcher.close()
    },
  }
}
