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
 * pid, or it names this very process, as after a container restart) is stale: it is moved aside,
 * and taken over only if what was moved is the file judged stale (same inode), so a fresh claim
 * that appeared meanwhile is put back instead of lost.
 */
export type PidfileClaim =
  | { claimed: true; /** The stale holder replaced: a pid, 'invalid' content, or null for a fresh file. */ replaced: number | 'invalid' | null }
  | { claimed: false; /** The running supervisor holding it. */ pid: number; /** Its state file, when it has written one (it may still be starting). */ state: SvcState | null }

/** Attempts before giving up on a file that keeps changing under us (other starts racing). */
const CLAIM_ATTEMPTS = 20

export interface ClaimOptions {
  /** The pid to write (default this process's). */
  pid?: number
  /** Called between judging the file stale and moving it aside: where a racing start can step in (tests). */
  beforeTakeover?: () => void
}

export function claimPidfile(path: string, options: ClaimOptions = {}): PidfileClaim {
  const pid = options.pid ?? process.pid
  mkdirSync(dirname(path), { recursive: true })
  const temp = atomicTempPath(path)
  writeFileSync(temp, `${pid}\n`, { flag: 'wx', mode: 0o644 })
  try {
    let replaced: number | 'invalid' | null = null
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      if (createExclusive(temp, path, pid)) return { claimed: true, replaced }
      const holder = readHolder(path)
      if (holder === null) continue
      if (holder.pid !== null && holder.pid !== pid) {
        const state = readState(path, holder.pid)
        if (isRunning(holder.pid) && isSvcProcess(holder.pid, state?.cmdline)) return { claimed: false, pid: holder.pid, state }
      }
      options.beforeTakeover?.()
      if (removeIfSame(path, holder.ino)) replaced = holder.pid ?? 'invalid'
    }
    throw new SvcError('SVC_ERR_PIDFILE_IN_USE', `the pid file ${path} kept changing while svc tried to claim it (${CLAIM_ATTEMPTS} attempts)`)
  } finally {
    unlinkSync(temp)
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
  try {
    unlinkSync(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
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
 * Move the pidfile aside and delete it if it is the file read before (inode `ino`); a different
 * file (another start claimed it meanwhile) goes back where it was, unless a third start has
 * taken the name in between. True when the stale one went.
 */
function removeIfSame(path: string, ino: number): boolean {
  const aside = atomicTempPath(path)
  try {
    renameSync(path, aside)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw err
  }
  if (statSync(aside).ino === ino) {
    unlinkSync(aside)
    return true
  }
  try {
    linkSync(aside, path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
  }
  unlinkSync(aside)
  return false
}
