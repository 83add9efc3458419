import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'

/**
 * Questions `svc shutdown` and `svc doctor` ask about a pid from a pidfile: does it run, is it a
 * zombie, and is it still an svc supervisor (a pid can be reused by an unrelated process after a
 * crash or reboot, and signalling that one would be a bug with victims).
 * Linux reads /proc; elsewhere `ps` answers.
 */

/** Subcommands whose process is a supervisor (and so may be named by a pidfile). */
export const SERVE_COMMANDS: ReadonlySet<string> = new Set(['run', 'dev', 'workbench'])

/** What the supervisor sets as `process.title`; on Linux it replaces /proc/<pid>/cmdline. */
export const SUPERVISOR_TITLE = 'svc supervisor'

const hasProc = existsSync('/proc/self/stat')

function ps(pid: number, field: string): string | null {
  try {
    const out = execFileSync('ps', ['-o', `${field}=`, '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    return out.trim() === '' ? null : out.trim()
  } catch {
    // ps exits 1 when the pid does not exist.
    return null
  }
}

/** Single-letter process state (`R`, `S`, `Z`, ...) or null when there is no such process. */
export function processState(pid: number): string | null {
  if (hasProc) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      // "pid (comm) S ..."; comm may hold spaces and parentheses, so split after the last ')'.
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || null
    } catch {
      return null
    }
  }
  return ps(pid, 'stat')?.charAt(0) ?? null
}

export function isZombie(pid: number): boolean {
  return processState(pid) === 'Z'
}

/** True when `pid` exists and is not a zombie (a zombie has exited; only its parent's wait is missing). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  return !isZombie(pid)
}

/** Every descendant of `pid` (children, grandchildren, ...) from /proc, depth first. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      const list = children.get(ppid) ?? []
      list.push(Number(entry))
      children.set(ppid, list)
    } catch {
      // the process exited while /proc was read
    }
  }
  const out: number[] = []
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      out.push(c)
      walk(c)
    }
  }
  walk(pid)
  return out
}

/** The argv of `pid` (empty strings dropped), or null when it cannot be read. */
export function readCmdline(pid: number): string[] | null {
  if (hasProc) {
    try {
      const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      const args = raw.split('\0').filter((a) => a !== '')
      return args.length > 0 ? args : null
    } catch {
      return null
    }
  }
  // `ps` joins argv with spaces: good enough to recognise a script path without spaces.
  return ps(pid, 'args')?.split(/\s+/) ?? null
}

function isSvcScript(arg: string): boolean {
  const base = arg.split(/[\\/]/).pop() ?? ''
  if (/^svc(\.[cm]?js)?$/.test(base)) return true
  return /(^|[\\/])src[\\/]cli[\\/]main\.(js|ts)$/.test(arg)
}

/** Whether an argv looks like an svc supervisor: the svc bin or CLI main followed by a serve subcommand. */
export function isSvcCmdline(args: readonly string[]): boolean {
  if (args.join(' ').startsWith(SUPERVISOR_TITLE)) return true
  for (let i = 0; i < args.length - 1; i++) {
    if (isSvcScript(args[i]!) && SERVE_COMMANDS.has(args[i + 1]!)) return true
  }
  return false
}

/**
 * Is `pid` an svc supervisor? With `expected` (the `cmdline` the state file recorded for this
 * pid), an exact match also counts, which covers supervisors started in unusual ways.
 */
export function isSvcProcess(pid: number, expected?: readonly string[]): boolean {
  const args = readCmdline(pid)
  if (args === null) return false
  if (expected && expected.length === args.length && expected.every((a, i) => a === args[i])) return true
  return isSvcCmdline(args)
}

/** A short human description of what runs as `pid`, for messages. */
export function describeProcess(pid: number, maxLength = 120): string {
  const args = readCmdline(pid)
  if (args === null) return '(unknown process)'
  const text = args.join(' ')
  return text.length > maxLength ? text.slice(0, maxLength - 1) + '…' : text
}
