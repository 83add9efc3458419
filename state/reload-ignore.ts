import { realpathSync } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { isAtomicTempOf } from './atomic-write.js'
import { stateFilePath } from './state-file.js'
import { compileCacheDir } from '../src/internal/compile-cache.js'

/**
 * What the dev reload watcher (the supervisor's) reacts to: files that can change the app, as
 * nodemon's default extensions and Streamlit's imported modules do (source and JSON, plus the
 * secrets file svc reads when the app loads), never svc's own files, folders that hold no app
 * source, editor scratch files, or data the app reads or writes (images, CSV, Markdown, logs).
 * Otherwise a reload rewrites the state file, which triggers the next reload, forever.
 */

/** Files a save of which reloads: what Node and svc import (TypeScript, JavaScript, JSON). */
export const RELOAD_EXTENSIONS: readonly string[] = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json']
const RELOAD_NAME = new RegExp(`(${RELOAD_EXTENSIONS.map((e) => e.replace('.', '\\.')).join('|')})$`)

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

/** Files read when the app loads that a save of reloads wherever they are in the app folder (even under `.svc/`): the secrets file. */
export function loadedFiles(settings: { secrets_file: string }): string[] {
  return [resolve(settings.secrets_file)]
}

/** Whether a save of `path` (not ignored) reloads: a source or JSON file, or one of `loaded`. */
export function reloadsOn(loaded: readonly string[]): (path: string) => boolean {
  const files = loaded.flatMap((f) => [resolve(f), canonicalPath(f)])
  return (path) => RELOAD_NAME.test(path) || files.includes(resolve(path))
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
export function reloadIgnore(root: string, own: OwnPaths, loaded: readonly string[] = []): (path: string) => boolean {
  const files = own.files.flatMap((f) => [resolve(f), canonicalPath(f)])
  const dirs = own.dirs.flatMap((d) => [resolve(d), canonicalPath(d)])
  // A loaded file and the folders down to it are walked even in an ignored folder (`.svc/secrets.json`).
  const kept = new Set(loaded.flatMap((f) => [resolve(f), canonicalPath(f)]).flatMap((f) => ancestorsBelow(root, f)))
  return (path) => {
    const p = resolve(path)
    if (kept.has(p)) return false
    if (IGNORED_SEGMENT.test(relative(root, p)) || IGNORED_NAME.test(basename(p))) return true
    return files.some((f) => p === f || isAtomicTempOf(f, p)) || dirs.some((d) => p === d || p.startsWith(d + sep))
  }
}

/** `file` and its folders below `root` (none when it is not under `root`). */
function ancestorsBelow(root: string, file: string): string[] {
  const out: string[] = []
  for (let p = file; p !== root && p.startsWith(root + sep); p = dirname(p)) out.push(p)
  return out
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
