import { readdirSync, readFileSync } from 'node:fs'
import { roleOf } from '../lib/proc-memory.js'

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
    return { pid, title: roleOf(pid, status), rssBytes: rss ? Number(rss[1]) * 1024 : 0, fds: readdirSync(`/proc/${pid}/fd`).length }
  } catch {
    return null
  }
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
