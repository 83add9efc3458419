import { readdirSync, readFileSync } from 'node:fs'
import { basename } from 'node:path'

/** One process of the tree: its title (`svc gateway`…), resident memory and open descriptors. */
export interface ProcessStat {
  pid: number
  title: string
  rssBytes: number
  fds: number
}

export function processStat(pid: number): ProcessStat | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const rss = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)
    return { pid, title: titleOf(pid, status), rssBytes: rss ? Number(rss[1]) * 1024 : 0, fds: readdirSync(`/proc/${pid}/fd`).length }
  } catch {
    return null
  }
}

/** svc's processes by their title; anything else by its program and the svc process it runs under. */
function titleOf(pid: number, status: string): string {
  const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '?'
  if (title.startsWith('svc ')) return title
  const ppid = /^PPid:\s+(\d+)$/m.exec(status)?.[1]
  const parent = ppid ? (readFileSync(`/proc/${ppid}/cmdline`, 'utf8').split('\0')[0] ?? '?') : '?'
  return `${basename(title)} (under ${parent})`
}

/** Per process title: how many, their RSS and descriptors summed (gateway workers come and go with reloads). */
export function byTitle(stats: readonly ProcessStat[]): Map<string, { count: number; rssBytes: number; fds: number }> {
  const out = new Map<string, { count: number; rssBytes: number; fds: number }>()
  for (const s of stats) {
    const e = out.get(s.title) ?? { count: 0, rssBytes: 0, fds: 0 }
    e.count++
    e.rssBytes += s.rssBytes
    e.fds += s.fds
    out.set(s.title, e)
  }
  return out
}
