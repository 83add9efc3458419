import type { ProcessReport, ReloadReport, StatusReport } from '../../../ipc/control.js'

/** `3d 04h`, `1h 02m`, `12m 05s`, `42s`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds))
  const d = Math.floor(s / 86_400)
  const h = Math.floor((s % 86_400) / 3_600)
  const m = Math.floor((s % 3_600) / 60)
  const pad = (n: number): string => String(n).padStart(2, '0')
  if (d > 0) return `${d}d ${pad(h)}h`
  if (h > 0) return `${h}h ${pad(m)}m`
  if (m > 0) return `${m}m ${pad(s % 60)}s`
  return `${s}s`
}

function megabytes(bytes: number | null): string {
  return bytes === null ? '-' : `${(bytes / 1e6).toFixed(bytes < 10e6 ? 1 : 0)} MB`
}

const ROLE: Record<ProcessReport['role'], string> = { supervisor: 'supervisor', sidecar: 'sidecar', gateway: 'gateway', page_thread: 'page thread' }

function lastExit(p: ProcessReport, now: number): string {
  const e = p.last_exit
  if (!e) return '-'
  return `${e.reason}: ${e.detail} (${duration((now - Date.parse(e.at)) / 1000)} ago)`
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`

/** Where a reload's time went: `waited 1.0 s, load 2.3 s, switch 1.9 s` (the parts that happened). */
function reloadParts(r: ReloadReport): string {
  const parts = [
    ...(r.queued_ms > 0 ? [`waited ${seconds(r.queued_ms)} for the reload under way`] : []),
    ...(r.load_ms === null ? [] : [`load ${seconds(r.load_ms)}`]),
    ...(r.load_ms === null || r.switch_ms > 0 ? [`switch ${seconds(r.switch_ms)}`] : []),
  ]
  return parts.join(', ')
}

/**
 * One line for a reload: `ok (command, gateway) 1.8 s ago, took 2.1 s (load 0.9 s, switch 1.2 s): 2 new workers, 3 page
 * sessions moved`. `took` runs from the moment the supervisor received the request to the outcome.
 */
export function describeReload(r: ReloadReport, now = Date.now()): string {
  const when = `${duration((now - Date.parse(r.at) - r.duration_ms) / 1000)} ago, took ${seconds(r.duration_ms)} (${reloadParts(r)})`
  if (r.result === 'failed') return `failed (${r.trigger}, ${r.scope}) ${when}: ${r.error?.message ?? 'no reason given'} [${r.error?.code ?? '?'}]`
  const pages = r.pages_moved === null ? '' : `, ${r.pages_moved} page session${r.pages_moved === 1 ? '' : 's'} moved`
  return `ok (${r.trigger}, ${r.scope}) ${when}: ${r.workers.length} new gateway worker${r.workers.length === 1 ? '' : 's'} (pid ${r.workers.join(', ')})${pages}`
}

/** `page sessions: 3`; with no page thread yet, says they start with the first session. */
function pageSessions(s: StatusReport): string {
  if (s.page_sessions === null) return 'n/a (ui_command sidecar, or no answer)'
  const threads = s.processes.some((p) => p.role === 'page_thread')
  return threads ? String(s.page_sessions) : `${s.page_sessions} (no page thread yet: page threads start with the first page session)`
}

/** `svc status` for people: the app, its last reload, and a table of processes as `pm2 ls` shows them. */
export function statusTable(s: StatusReport, now = Date.now()): string {
  const draining = s.processes.filter((p) => p.role === 'gateway' && p.status === 'draining').length
  const lines = [
    `${s.app.title} (${s.app.target}) at ${s.app.url}, listening on ${s.app.listen}`,
    `svc ${s.app.mode}, supervisor pid ${s.app.supervisor_pid}, up ${duration(s.app.uptime_s)}, ${s.app.workers} gateway worker${s.app.workers === 1 ? '' : 's'}${draining > 0 ? ` (+${draining} draining after a reload or recycle)` : ''}`,
    `reloads: ${s.reloads.ok} ok, ${s.reloads.failed} failed${s.reloads.last ? `; last ${describeReload(s.reloads.last, now)}` : ''}`,
    `recycles: ${s.recycles.memory} for memory, ${s.recycles.requests} for requests`,
    `page sessions: ${pageSessions(s)}`,
    `tasks: ${s.tasks ? `${s.tasks.running} running, ${s.tasks.queued} queued, ${s.tasks.threads} task thread${s.tasks.threads === 1 ? '' : 's'}` : 'n/a'}`,
    '',
  ]
  const header = ['role', 'id', 'status', 'pid', 'uptime', 'restarts', 'memory', 'cpu', 'requests', 'sessions', 'last exit']
  const rows = s.processes.map((p) => [
    ROLE[p.role],
    p.id,
    p.status,
    p.pid === null ? '-' : String(p.pid),
    p.uptime_s === null ? '-' : duration(p.uptime_s),
    String(p.restarts),
    megabytes(p.memory_bytes),
    p.cpu_percent === null ? '-' : `${p.cpu_percent.toFixed(1)}%`,
    p.requests == null ? '-' : String(p.requests),
    p.sessions == null ? '-' : String(p.sessions),
    lastExit(p, now),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd()
  lines.push(line(header), ...rows.map(line))
  lines.push('', 'memory: resident (RSS) for processes; a page thread\'s is its V8 heap inside the sidecar. cpu: over the last 0.25 s, % of one core.')
  return lines.join('\n') + '\n'
}
