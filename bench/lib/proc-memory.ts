import { readFileSync } from 'node:fs'
import { basename } from 'node:path'

/**
 * One process's memory as the kernel counts it. `rss` counts every resident page the process maps,
 * also the pages of the `node` binary and of shared libraries that every Node process of the tree
 * maps too; `pss` splits each shared page between the processes that map it, so the PSS of a tree
 * adds up to what it really holds; `anon` is its own memory (V8 heaps, malloc, stacks).
 */
export interface ProcMemory {
  pid: number
  /** `svc gateway`, `svc sidecar`…; anything else by its program and the svc process it runs under. */
  role: string
  rssKb: number
  pssKb: number
  anonKb: number
  /** OS threads: the main thread, V8's and libuv's helpers, worker threads (page threads) and theirs. */
  threads: number
}

function field(text: string, name: string): number {
  return Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0)
}

export function procMemory(pid: number): ProcMemory | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
    return { pid, role: roleOf(pid, status), rssKb: field(status, 'VmRSS'), pssKb: field(rollup, 'Pss'), anonKb: field(status, 'RssAnon'), threads: field(status, 'Threads') }
  } catch {
    // gone meanwhile
    return null
  }
}

/** svc's processes by their title (`svc gateway`…); anything else by its program and the svc process it runs under. */
export function roleOf(pid: number, status: string): string {
  const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '?'
  if (title.startsWith('svc ')) return title
  const ppid = /^PPid:\s+(\d+)$/m.exec(status)?.[1]
  const parent = ppid ? (readFileSync(`/proc/${ppid}/cmdline`, 'utf8').split('\0')[0] ?? '?') : '?'
  return `${basename(title)} (under ${parent})`
}
