import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import treeKill from 'tree-kill'
import { TREE_ENV, parseChildEnv } from './child-env.js'
import { isRunning } from './process-check.js'

/**
 * The one way svc ends a process tree (supervisor, sidecar guard, workers, `svc shutdown`).
 *
 * A tree is a root pid with its process group and descendants, plus every process whose
 * environment carries the tree's cookie `SVC_TREE_ID=<id>`. Every child svc starts gets a cookie
 * and every process it starts inherits it, so a helper that left the tree (`setsid`, a double
 * fork, reparented to init) is still found by reading `/proc/<pid>/environ` — the way Jenkins'
 * ProcessTreeKiller finds a build's leftovers. This needs no privilege, unlike a cgroup
 * (systemd's KillMode=control-group), a PID namespace (`unshare --pid --kill-child`) or a
 * subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`, which Node cannot call without a native addon). Its
 * limit: a process that clears its own environment (`env -i`) is found only while it still
 * descends from the root. Without /proc (macOS) only the group and tree-kill's `ps` walk remain.
 *
 * Cookies: `<instance>` is one svc run (recorded in the state file); each child gets
 * `<instance>.<member>` (`sidecar-2`, `worker-5`), so one member can be ended alone and a whole
 * run's leftovers found by the instance prefix.
 */
export { TREE_ENV }

export interface Tree {
  /** Root process: it, its group (children are started as group leaders) and its descendants. */
  pid?: number | null
  /** Every process whose environment has `SVC_TREE_ID=<cookie>`. */
  cookie?: string | null
  /** Match the cookie as an instance: `<cookie>` and every `<cookie>.<member>`. */
  instance?: boolean
}

const hasProc = existsSync('/proc/self/stat')
const POLL_MS = 25
/** SIGKILL rounds for a tree that keeps forking while it is swept. */
const KILL_ROUNDS = 20

export function newTreeId(): string {
  return randomBytes(16).toString('hex')
}

/** Signal a process group (children are started detached, as group leaders); ignore "gone". */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    signalPid(pid, signal)
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal)
  } catch {
    // already gone
  }
}

interface ProcEntry {
  pid: number
  ppid: number
  pgrp: number
}

function readProc(): ProcEntry[] {
  const out: ProcEntry[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      // "pid (comm) S ppid pgrp ..."; comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      // A zombie has exited already; only its parent's wait is missing.
      if (fields[0] === 'Z') continue
      out.push({ pid: Number(name), ppid: Number(fields[1]), pgrp: Number(fields[2]) })
    } catch {
      // exited while /proc was read
    }
  }
  return out
}

function carriesCookie(pid: number, needle: Buffer, instance: boolean): boolean {
  let env: Buffer
  try {
    env = readFileSync(`/proc/${pid}/environ`)
  } catch {
    // another user's process, or gone
    return false
  }
  for (let at = env.indexOf(needle); at !== -1; at = env.indexOf(needle, at + 1)) {
    if (at !== 0 && env[at - 1] !== 0) continue
    const next = env[at + needle.length]
    if (next === undefined || next === 0 || (instance && next === 0x2e)) return true
  }
  return false
}

/** The live members of `tree` right now, never this process. Linux only. */
export function treeMembers(tree: Tree): number[] {
  const procs = readProc()
  const found = new Set<number>()
  const root = tree.pid ?? null
  const needle = tree.cookie ? Buffer.from(`${TREE_ENV}=${tree.cookie}`) : null
  for (const p of procs) {
    if (p.pid === process.pid) continue
    if (root !== null && (p.pid === root || p.pgrp === root)) found.add(p.pid)
    else if (needle && carriesCookie(p.pid, needle, tree.instance === true)) found.add(p.pid)
  }
  // Descendants of every member (also those that dropped the cookie from their environment).
  const children = new Map<number, number[]>()
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid])
  const stack = [...found]
  while (stack.length > 0) {
    for (const c of children.get(stack.pop()!) ?? []) {
      if (c === process.pid || found.has(c)) continue
      found.add(c)
      stack.push(c)
    }
  }
  return [...found]
}

/**
 * End `tree`: with `graceMs` > 0, SIGTERM to every member at once (as systemd does for a
 * control group) and up to `graceMs` for them to exit; then SIGKILL whatever is left, again until
 * nothing is (a process may fork while it is swept). Resolves with how many processes it found.
 */
export async function killTree(tree: Tree, graceMs = 0): Promise<number> {
  if (!hasProc) return killTreeWithoutProc(tree.pid ?? null, graceMs)
  const first = treeMembers(tree)
  if (first.length === 0) return 0
  const seen = new Set(first)
  if (graceMs > 0) {
    for (const pid of first) signalPid(pid, 'SIGTERM')
    const deadline = Date.now() + graceMs
    for (let left = first; left.length > 0 && Date.now() < deadline; left = treeMembers(tree)) {
      for (const pid of left) seen.add(pid)
      await delay(POLL_MS)
    }
  }
  for (let round = 0; round < KILL_ROUNDS; round++) {
    const left = treeMembers(tree)
    if (left.length === 0) break
    for (const pid of left) {
      seen.add(pid)
      signalPid(pid, 'SIGKILL')
    }
    await delay(round === 0 ? 0 : POLL_MS)
  }
  return seen.size
}

async function killTreeWithoutProc(pid: number | null, graceMs: number): Promise<number> {
  if (pid === null) return 0
  if (graceMs > 0) {
    signalGroup(pid, 'SIGTERM')
    const deadline = Date.now() + graceMs
    while (Date.now() < deadline && isRunning(pid)) await delay(POLL_MS)
  }
  // Walk the tree while its parents still live, then sweep the group for the rest.
  await new Promise<void>((resolve) => treeKill(pid, 'SIGKILL', () => resolve()))
  signalGroup(pid, 'SIGKILL')
  return 1
}

/**
 * For a child svc started (worker, bundled sidecar) on its way out: end whatever it started,
 * found by the cookie it was given. Nothing when it runs without one (in-process tests).
 */
export async function endOwnTree(): Promise<void> {
  const cookie = parseChildEnv().treeId
  if (cookie) await killTree({ cookie })
}
