import type { Logger } from 'pino'
import { loadedFiles, ownPaths } from '../state/reload-ignore.js'
import type { ResolvedSettings } from '../src/settings/schema.js'
import type { ReloadScope } from './supervisor.js'

/**
 * `svc dev --reload`: the one file watcher of the tree. Each burst of saves reloads the running
 * tree, or, when the app could not start, starts it (as nodemon does after a crash). The watch
 * follows the settings' own files (the pid file, the secrets file) and is set up again when a
 * start names others.
 */
export class DevLoop {
  readonly scope: ReloadScope
  readonly #dir: string
  readonly #logger: Logger
  #stop: (() => Promise<void>) | null = null
  /** The watched paths, as JSON: the same paths are not watched twice. */
  #watching = ''
  #onSave: () => 'reloading' | 'starting' = () => 'reloading'

  constructor(options: { scope: ReloadScope; dir: string; logger: Logger }) {
    this.scope = options.scope
    this.#dir = options.dir
    this.#logger = options.logger
  }

  /**
   * Call `onSave` for every burst of saves from now on. Resolves once the watcher sees every save
   * (so a line printed after it is true).
   */
  async watch(settings: Pick<ResolvedSettings, 'pidfile' | 'no_pidfile' | 'secrets_file'>, onSave: () => 'reloading' | 'starting'): Promise<void> {
    this.#onSave = onSave
    const paths = { own: ownPaths(settings), loaded: loadedFiles(settings) }
    const key = JSON.stringify(paths)
    if (key === this.#watching) return
    await this.close()
    this.#watching = key
    // Loaded only for --reload: chokidar is not needed otherwise.
    const { watchForReload } = await import('./reload-watcher.js')
    this.#stop = await watchForReload(this.#dir, paths.own, paths.loaded, this.#logger, () => this.#onSave())
  }

  /** The line for the terminal once the tree serves. */
  get servingLine(): string {
    return this.scope === 'gateway'
      ? 'svc: --reload (scope gateway): gateway workers are replaced on change with zero downtime; the bundled page server reloads its pages with them.\n'
      : 'svc: --reload (scope full): the sidecar restarts on a new port and gateway workers are replaced on change.\n'
  }

  /** The line for the terminal while the app cannot start and the next save starts it. */
  get waitingLine(): string {
    return `svc: waiting for a change in ${this.#dir} to start again (Ctrl-C to stop)\n`
  }

  async close(): Promise<void> {
    const stop = this.#stop
    this.#stop = null
    this.#watching = ''
    await stop?.()
  }
}

/** Start failures a save can mend (the app's code, options or pages); not a busy port or another app's pid file. */
export function waitsForFix(code: string): boolean {
  return !/^SVC_ERR_(PIDFILE_|PROCESS_(PORT_IN_USE|HOST_UNRESOLVABLE|START_CANCELLED)$)/.test(code)
}
