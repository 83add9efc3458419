import { performance } from 'node:perf_hooks'
import { PageSocket } from './page-socket.js'
import { MIB, slope } from './report.js'
import type { SidecarProcess } from './sidecar-process.js'

export interface SessionMemoryOptions {
  path: string
  budgetBytes: number
  maxSessions: number
  maxMs: number
}

export interface SessionMemoryResult {
  idleRss: number
  sessions: number
  extraRss: number
  /** True when the budget was used up (not a cap). */
  filled: boolean
  stoppedBy: 'budget' | 'session cap' | 'time cap'
  /** Fitted RSS per session over the run (bytes), fixed warm-up cost excluded. */
  perSession: number
  seconds: number
}

/**
 * Open sessions one at a time (connect, hello, first render) and sample the sidecar's RSS
 * after each, until `budgetBytes` of RSS over the idle process is used or a cap is hit.
 * The sockets stay open until the end: each is a live browser tab.
 */
export async function sessionsPerBudget(sidecar: SidecarProcess, o: SessionMemoryOptions): Promise<SessionMemoryResult> {
  const idleRss = sidecar.rss()
  const sockets: PageSocket[] = []
  const points: { x: number; y: number }[] = []
  const start = performance.now()
  let stoppedBy: SessionMemoryResult['stoppedBy'] = 'session cap'
  let extra = 0
  try {
    while (sockets.length < o.maxSessions) {
      if (performance.now() - start > o.maxMs) {
        stoppedBy = 'time cap'
        break
      }
      sockets.push((await PageSocket.open(sidecar.wsUrl, o.path)).socket)
      extra = sidecar.rss() - idleRss
      points.push({ x: sockets.length, y: extra })
      if (extra >= o.budgetBytes) {
        stoppedBy = 'budget'
        break
      }
    }
  } finally {
    await Promise.all(sockets.map((s) => s.close()))
  }
  // The first sessions pay for code that runs for the first time (JIT, lazy modules); skip them in the fit.
  const steady = points.slice(Math.min(20, Math.floor(points.length / 4)))
  return {
    idleRss,
    sessions: points.length,
    extraRss: extra,
    filled: stoppedBy === 'budget',
    stoppedBy,
    perSession: slope(steady),
    seconds: (performance.now() - start) / 1000,
  }
}

export function describeSessions(r: SessionMemoryResult, budgetBytes: number): string[] {
  const budget = `${(budgetBytes / MIB).toFixed(0)} MiB`
  const lines = [
    `idle sidecar RSS: ${(r.idleRss / MIB).toFixed(1)} MiB`,
    `${r.sessions} sessions open → +${(r.extraRss / MIB).toFixed(1)} MiB RSS (stopped by ${r.stoppedBy}, ${r.seconds.toFixed(1)} s)`,
    `mean ${((r.extraRss / r.sessions) / 1024).toFixed(0)} KiB/session incl. first-use cost; fitted slope ${(r.perSession / 1024).toFixed(0)} KiB/session`,
  ]
  if (r.filled) lines.push(`=> ${r.sessions} concurrent sessions per ${budget} of extra RSS (measured)`)
  else if (r.perSession > 0) {
    const projected = Math.floor(r.sessions + (budgetBytes - r.extraRss) / r.perSession)
    lines.push(`=> about ${projected} concurrent sessions per ${budget} (projected from the slope; the cap stopped the run first)`)
  }
  return lines
}
