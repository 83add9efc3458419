import type { ProcessReport, ProcessStatus, StatusReport } from '../ipc/control.js'
import { STATS_ANSWER_MS } from '../src/internal/deadlines.js'
import { bindAddress, publicOrigin } from './banner.js'
import { CPU_WINDOW_MS, processUsage } from './process-stats.js'
import type { Sidecar } from './sidecar.js'
import type { Supervisor, SupervisorState } from './supervisor.js'
import type { WorkerPhase } from './worker.js'

const uptime = (since: Date, now: number): number => Math.round((now - since.getTime()) / 100) / 10

/** The sidecar's pid as `ps` shows the work: for a `ui_command`, the command's own. */
const shownPid = (sidecar: Sidecar): number | null => (sidecar.spec.kind === 'command' ? (sidecar.commandPid ?? sidecar.pid) : sidecar.pid)

const SUPERVISOR_STATUS: Record<SupervisorState, ProcessStatus> = { idle: 'starting', starting: 'starting', running: 'online', stopping: 'stopping', stopped: 'stopped' }

/** A gateway worker's status from its phase; one that exited is restarting while the tree runs (its slot is refilled), stopped otherwise. */
function gatewayStatus(phase: WorkerPhase, tree: SupervisorState): ProcessStatus {
  switch (phase) {
    case 'standby':
    case 'starting':
    case 'loaded':
      return 'starting'
    case 'ready':
      return tree === 'stopping' ? 'stopping' : 'online'
    case 'draining':
      return 'draining'
    case 'exited':
      return tree === 'running' ? 'restarting' : 'stopped'
  }
}

/**
 * The tree as `svc status` shows it: the app, the last reload, and every process (supervisor,
 * sidecar and the one a full reload replaces while it hands over, each gateway worker, serving or
 * draining, each page thread of the bundled page server) with its status, restarts, last
 * unplanned exit, memory and CPU. Memory and CPU are read from the system (/proc, or ps) over a
 * quarter of a second; requests, sessions and threads are the processes' own answers.
 */
export async function buildStatus(sup: Supervisor, mode: StatusReport['app']['mode'], startedAt: Date): Promise<StatusReport> {
  const settings = sup.settings
  const bound = sup.bound!
  // One snapshot of the sidecars before the usage is read (a quarter of a second): a full reload
  // may start its new sidecar meanwhile, and the old one must not be reported as the new one starting.
  const sidecar = sup.sidecar
  const sidecarStarting = sup.sidecarStarting
  const outgoing = sup.outgoingSidecar
  const outgoingDraining = outgoing?.draining ?? false
  const gateways = sup.gatewayWorkers
  const sidecarPid = sidecar ? shownPid(sidecar) : null
  const outgoingPid = outgoing ? shownPid(outgoing.sidecar) : null
  const pids = [process.pid, ...[sidecarPid, outgoingPid].filter((p) => p !== null), ...gateways.map((g) => g.worker.pid)]
  const [usage, requests, pages] = await Promise.all([
    processUsage(pids),
    sup.workerRequests(gateways.map((g) => g.worker)),
    sidecar?.stats(STATS_ANSWER_MS, CPU_WINDOW_MS) ?? Promise.resolve(null),
  ])
  const now = Date.now()
  const tree = sup.state
  const measured = (pid: number | null): Pick<ProcessReport, 'memory_bytes' | 'cpu_percent' | 'cpu_seconds'> => {
    const u = pid === null ? undefined : usage.get(pid)
    return { memory_bytes: u?.rssBytes ?? null, cpu_percent: u?.cpuPercent ?? null, cpu_seconds: u?.cpuSeconds ?? null }
  }
  const processes: ProcessReport[] = [
    { role: 'supervisor', id: 'supervisor', status: SUPERVISOR_STATUS[tree], pid: process.pid, started_at: startedAt.toISOString(), uptime_s: uptime(startedAt, now), restarts: 0, last_exit: null, ...measured(process.pid) },
  ]
  if (sidecar) {
    const record = sup.record.slot('sidecar')
    const status: ProcessStatus = sidecar.exited ? 'stopped' : sidecarStarting ? 'starting' : tree === 'stopping' ? 'stopping' : 'online'
    processes.push({ role: 'sidecar', id: 'sidecar', status, kind: sidecar.spec.kind, pid: sidecarPid, started_at: sidecar.startedAt.toISOString(), uptime_s: uptime(sidecar.startedAt, now), restarts: record.restarts, last_exit: record.lastExit, ...measured(sidecarPid) })
  }
  if (outgoing) {
    // Replaced by a full reload: the slot's record belongs to its successor, as for gateway workers.
    const { sidecar: old } = outgoing
    const status: ProcessStatus = tree === 'stopping' ? 'stopping' : outgoingDraining ? 'draining' : 'online'
    processes.push({ role: 'sidecar', id: `sidecar@${outgoingPid}`, status, kind: old.spec.kind, pid: outgoingPid, started_at: old.startedAt.toISOString(), uptime_s: uptime(old.startedAt, now), restarts: 0, last_exit: null, ...measured(outgoingPid) })
  }
  for (const { worker: w, slot, replaced } of gateways) {
    // A replaced worker's slot record belongs to its successor.
    const record = replaced ? { restarts: 0, lastExit: null } : sup.record.slot(`gateway-${slot}`)
    processes.push({
      role: 'gateway',
      id: replaced ? `gateway-${slot}@${w.pid}` : `gateway-${slot}`,
      status: gatewayStatus(w.phase, tree),
      pid: w.pid,
      started_at: w.startedAt.toISOString(),
      uptime_s: uptime(w.startedAt, now),
      restarts: record.restarts,
      last_exit: record.lastExit,
      requests: requests.get(w.pid) ?? null,
      ...measured(w.pid),
    })
  }
  for (const t of pages?.threads ?? []) {
    const started = new Date(t.started_at)
    processes.push({
      role: 'page_thread',
      id: `page-thread-${t.id}`,
      status: tree === 'stopping' ? 'stopping' : t.status,
      pid: sidecarPid,
      started_at: t.started_at,
      uptime_s: uptime(started, now),
      restarts: t.restarts,
      last_exit: t.last_exit,
      sessions: t.sessions,
      memory_bytes: t.heap_bytes,
      cpu_percent: t.elu === null ? null : Math.round(t.elu * 1000) / 10,
      cpu_seconds: null,
    })
  }
  const recycles = sup.record.recyclesByReason()
  if (pages) recycles.memory += pages.thread_exits.recycled
  return {
    svc_status: 1,
    app: {
      target: settings.target,
      title: settings.title,
      url: `${publicOrigin(bound.host, bound.port)}${settings.root_path}/`,
      listen: bindAddress(bound.host, bound.port),
      mode,
      supervisor_pid: process.pid,
      started_at: startedAt.toISOString(),
      uptime_s: uptime(startedAt, now),
      workers: sup.workers.length,
    },
    reloads: { ...sup.record.reloads },
    recycles,
    page_sessions: pages?.sessions ?? null,
    tasks: pages?.tasks ?? null,
    processes,
  }
}
