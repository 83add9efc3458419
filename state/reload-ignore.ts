import { realpathSync } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { isAtomicTempOf } from './atomic-write.js'
import { stateFilePath } from './state-file.js'
import { compileCacheDir } from '../src/internal/compile-cache.js'

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
const RELOAD_FILE_EVENTS: ReadonlySet<string> = new Set(['add', 'change', 'unlink'])

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

/** A file removed this soon after it appeared was a temp file (an editor's, `sed -i`'s) renamed over the saved one. */
export const TRANSIENT_FILE_MS = 2_000

/**
 * Which watcher events are a reason to reload: file events, except the removal of a file that
 * appeared less than `TRANSIENT_FILE_MS` before. A save through a temp file is add, change and
 * rename; the rename's removal of the temp name can arrive after the debounce, and would be a
 * second reload for one save.
 */
export function createReloadEventFilter(now: () => number = Date.now): (event: string, path: string) => boolean {
  const added = new Map<string, number>()
  return (event, path) => {
    if (!RELOAD_FILE_EVENTS.has(event)) return false
    const at = now()
    if (event === 'add') {
      if (added.size > 256) for (const [p, t] of added) if (at - t >= TRANSIENT_FILE_MS) added.delete(p)
      added.set(path, at)
      return true
    }
    if (event === 'unlink') {
      const since = added.get(path)
      added.delete(path)
      return since === undefined || at - since >= TRANSIENT_FILE_MS
    }
    return true
  }
}
