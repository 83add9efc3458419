import { closeSync, fstatSync, linkSync, mkdirSync, openSync, readFileSync, readSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { SvcError } from '../src/errors.js'
import { atomicTempPath } from './atomic-write.js'
import { Pidfile, readPidfileSync } from './pidfile.js'
import { isRunning, isSvcProcess } from '../src/process/process-check.js'
import { parseSvcState, stateFilePath, type SvcState } from './state-file.js'

/**
 * One app per pidfile. A supervisor claims its pidfile before it binds anything: the file is
 * created with its pid in one step (a hard link of a complete temp file, which fails if the name
 * exists), so of two starts at once exactly one gets it. A file that does not name a running svc
 * supervisor (its process is gone, the pid now belongs to another program, the content is not a
 * pid, or it names this very process, as after a container restart) is stale. Only one start may
 * remove a given stale file: the one that creates its takeover token (`<pidfile>.takeover-<inode>`,
 * created the same exclusive way). It judges the file again while it holds the token and removes
 * it only if it is still that stale file, then claims the name like any start. No start ever
 * removes a file that another start created, however many race.
 */
export type PidfileClaim =
  | { claimed: true; /** The stale holder replaced: a pid, 'invalid' content, or null for a fresh file. */ replaced: number | 'invalid' | null }
  | { claimed: false; /** The running supervisor holding it. */ pid: number; /** Its state file, when it has written one (it may still be starting). */ state: SvcState | null }

/** How long a claim may wait for other starts replacing the same stale file before it gives up. */
const CLAIM_WAIT_MS = 3_000
/** The pause between looks while another start holds the takeover token. */
const TOKEN_POLL_MS = 2

export interface ClaimOptions {
  /** The pid to write (default this process's). */
  pid?: number
  /** Called between judging the file stale and taking it over: where a racing start can step in (tests). */
  beforeTakeover?: () => void
}

export function claimPidfile(path: string, options: ClaimOptions = {}): PidfileClaim {
  const pid = options.pid ?? process.pid
  mkdirSync(dirname(path), { recursive: true })
  const temp = atomicTempPath(path)
  writeFileSync(temp, `${pid}\n`, { flag: 'wx', mode: 0o644 })
  const deadline = Date.now() + CLAIM_WAIT_MS
  try {
    let replaced: number | 'invalid' | null = null
    for (;;) {
      if (createExclusive(temp, path, pid)) return { claimed: true, replaced }
      const holder = readHolder(path)
      if (holder !== null) {
        const live = liveHolder(path, holder, pid)
        if (live) return { claimed: false, ...live }
        options.beforeTakeover?.()
        const outcome = removeStale(path, holder.ino, temp, pid)
        if (outcome === 'removed') replaced = holder.pid ?? 'invalid'
        else if (outcome === 'busy') pause(TOKEN_POLL_MS)
      }
      if (Date.now() > deadline) throw new SvcError('SVC_ERR_PIDFILE_IN_USE', `the pid file ${path} kept changing while svc tried to claim it (for ${CLAIM_WAIT_MS / 1000} s)`)
    }
  } finally {
    unlinkSync(temp)
  }
}

/** The running svc supervisor a pidfile names, with its state file; null when the file is stale. */
function liveHolder(path: string, holder: { pid: number | null }, self: number): { pid: number; state: SvcState | null } | null {
  if (holder.pid === null || holder.pid === self) return null
  const state = readState(path, holder.pid)
  return isRunning(holder.pid) && isSvcProcess(holder.pid, state?.cmdline) ? { pid: holder.pid, state } : null
}

/**
 * Remove the stale pidfile with inode `ino`, holding its takeover token: 'removed', 'changed' (it
 * is no longer that stale file: look again), or 'busy' (another start holds the token; a token
 * whose start died is cleared).
 */
function removeStale(path: string, ino: number, temp: string, self: number): 'removed' | 'changed' | 'busy' {
  const token = `${path}.takeover-${ino}`
  if (!createExclusive(temp, token, self)) {
    const owner = readHolder(token)
    if (owner && owner.pid !== null && owner.pid !== self && !isRunning(owner.pid)) removeIfSame(token, owner.ino)
    return 'busy'
  }
  try {
    // Nobody else can remove this inode while the token is held; a new file may have reused its number, so judge again.
    const now = readHolder(path)
    if (now === null || now.ino !== ino || liveHolder(path, now, self)) return 'changed'
    removeFile(path)
    return 'removed'
  } finally {
    removeFile(token)
  }
}

/** Block this thread for `ms` (the claim is synchronous: it runs before anything else starts). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

function removeFile(path: string): void {
  try {
    unlinkSync(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
}

/**
 * Create `path` as a hard link of the complete `temp`; false if the name exists. On a filesystem
 * without hard links, an exclusive create and a write (a reader may see it empty for a moment).
 */
function createExclusive(temp: string, path: string, pid: number): boolean {
  try {
    linkSync(temp, path)
    return true
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return false
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err
  }
  try {
    writeFileSync(path, `${pid}\n`, { flag: 'wx', mode: 0o644 })
    return true
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw err
  }
}

/** Remove the pidfile if it still names `pid`: another supervisor may own it by now. */
export function releasePidfile(path: string, pid: number = process.pid): void {
  const read = readPidfileSync(path)
  if (read.kind !== 'ok' || read.pid !== pid) return
  removeFile(path)
}

/** The pid a pidfile names (null: not a pid) and the inode it was read from; null when it is gone. */
function readHolder(path: string): { pid: number | null; ino: number } | null {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
  try {
    const buf = Buffer.alloc(64)
    const raw = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8')
    const parsed = Pidfile.safeParse(raw)
    return { pid: parsed.success ? parsed.data : null, ino: fstatSync(fd).ino }
  } finally {
    closeSync(fd)
  }
}

/** The state file next to the pidfile, if it was written by `pid`. */
function readState(path: string, pid: number): SvcState | null {
  try {
    const state = parseSvcState(readFileSync(stateFilePath(path), 'utf8'))
    return state.supervisor_pid === pid ? state : null
  } catch {
    return null
  }
}

/**
 * Move `path` aside and delete it if it is the file read before (inode `ino`); a different file
 * (created meanwhile) goes back where it was. For a takeover token whose start died: rare enough
 * that this simpler dance, not safe against many racers at once, is enough.
 */
function removeIfSame(path: string, ino: number): void {
  const aside = atomicTempPath(path)
  try {
    renameSync(path, aside)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
    throw err
  }
  if (statSync(aside).ino !== ino) {
    try {
      linkSync(aside, path)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
  }
  unlinkSync(aside)
}
