import { realpathSync } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { isAtomicTempOf } from '../../state/atomic-write.js'
import { stateFilePath } from '../../state/state-file.js'
import { compileCacheDir } from './compile-cache.js'

/**
 * What a dev reload watcher (the supervisor's and the bundled sidecar's) must not react to:
 * svc's own files wherever they are, folders that hold no app source, editor scratch files.
 * Otherwise a reload rewrites the state file, which triggers the next reload, forever.
 */

/** Folders that hold no source of the app (or only svc's own files). */
const IGNORED_SEGMENT = /(^|[/\\])(node_modules|\.git|dist|\.svc[^/\\]*|test-results)([/\\]|$)/
/** Editor swap, backup and lock files (vim, emacs), vim's write probe, and log files: never code. */
const IGNORED_NAME = /(\.sw[a-px]|~|\.log)$|^\.#|^#.*#$|^4913$/
/** Only file events count: a new empty folder changes no code (and svc may create one for its pidfile). */
export const RELOAD_FILE_EVENTS: ReadonlySet<string> = new Set(['add', 'change', 'unlink'])

export interface OwnPaths {
  /** Files svc writes (pidfile, state file); their atomic-write temp files count too. */
  files: readonly string[]
  /** Folders svc writes into (the compile cache), with everything in them. */
  dirs: readonly string[]
}

/** svc's own paths for these settings: the pidfile and state file (unless --no-pidfile), the compile cache. */
export function ownPaths(settings: { pidfile: string; no_pidfile: boolean }): OwnPaths {
  const pidfile = resolve(settings.pidfile)
  const cache = compileCacheDir()
  return { files: settings.no_pidfile ? [] : [pidfile, stateFilePath(pidfile)], dirs: cache ? [cache] : [] }
}

/** The path with symlinks resolved (its folder's, when it does not exist yet), as chokidar reports it under a real root. */
export function canonicalPath(path: string): string {
  const abs = resolve(path)
  try {
    return realpathSync(abs)
  } catch {
    try {
      return join(realpathSync(dirname(abs)), basename(abs))
    } catch {
      return abs
    }
  }
}

/**
 * The `ignored` predicate for chokidar watching `root` (give chokidar the same path). Folder names
 * are matched below `root` only: an app that itself lives under a `dist` folder is still watched.
 */
export function reloadIgnore(root: string, own: OwnPaths): (path: string) => boolean {
  const files = own.files.flatMap((f) => [resolve(f), canonicalPath(f)])
  const dirs = own.dirs.flatMap((d) => [resolve(d), canonicalPath(d)])
  return (path) => {
    const p = resolve(path)
    if (IGNORED_SEGMENT.test(relative(root, p)) || IGNORED_NAME.test(basename(p))) return true
    return files.some((f) => p === f || isAtomicTempOf(f, p)) || dirs.some((d) => p === d || p.startsWith(d + sep))
  }
}
