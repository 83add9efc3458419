import { watch } from 'chokidar'
import type { Logger } from 'pino'

/** A burst of saves (editor write + rename + format-on-save) becomes one reload. */
export const RELOAD_DEBOUNCE_MS = 200
const IGNORED = /(^|[/\\])(node_modules|\.git|dist|\.svc[^/\\]*|test-results)([/\\]|$)/

/** Resolves once the initial scan is done: from then on every save is seen. */
export async function watchForReload(dir: string, logger: Logger, onChange: () => void): Promise<() => Promise<void>> {
  const watcher = watch(dir, { ignored: (p) => IGNORED.test(p), ignoreInitial: true })
  let timer: NodeJS.Timeout | null = null
  let changed: string[] = []
  watcher.on('all', (_event, path) => {
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
