import { z } from '../src/internal/zod.js'

/** Tasks (`app.task`) of a page server: running, waiting under `ui_task_max_running`, and the task threads. */
export const TaskStats = z.object({ running: z.number().int().min(0), queued: z.number().int().min(0), threads: z.number().int().min(0) })

/**
 * The supervisor's control socket (owner-only, next to the pid file): `svc status` and
 * `svc reload` send one request line of JSON and read one answer line. Both sides check every
 * line against these schemas; the shapes of `StatusReport` and `ReloadReport` are what
 * `svc status --json` and `svc reload --json` print, a stable contract (docs/cli.md).
 */
const v1 = { svc: z.literal(1) }

export const ControlRequest = z.discriminatedUnion('op', [
  z.object({ ...v1, op: z.literal('status') }),
  z.object({ ...v1, op: z.literal('reload'), scope: z.enum(['gateway', 'full']) }),
])
export type ControlRequest = z.infer<typeof ControlRequest>

const isoTime = z.iso.datetime({ offset: true })
const ErrorReport = z.object({ code: z.string(), message: z.string() })

/** How a process (or page thread) last ended, when it was not a planned drain. */
export const ExitReport = z.object({
  at: isoTime,
  /** `crashed` (exited on its own), `recycled` (replaced for a limit: memory, requests), `killed` (a runaway thread, the kernel). */
  reason: z.enum(['crashed', 'recycled', 'killed']),
  /** What ended it, for people: `exit code 1`, `signal SIGKILL`, `memory 612 MB over gateway_max_memory_mb 512`. */
  detail: z.string(),
})
export type ExitReport = z.infer<typeof ExitReport>

/**
 * What the supervisor knows of a process now, as `pm2 ls` shows it: `online` (serving),
 * `starting` (loading the app, not serving yet), `draining` (replaced by a reload or a recycle:
 * finishing its requests and page sockets until its drain deadline), `restarting` (ended
 * unplanned, its restart is due), `stopping` (svc is stopping), `stopped` (ended, not restarted).
 */
export const ProcessStatus = z.enum(['online', 'starting', 'draining', 'restarting', 'stopping', 'stopped'])
export type ProcessStatus = z.infer<typeof ProcessStatus>

export const ProcessReport = z.object({
  role: z.enum(['supervisor', 'sidecar', 'gateway', 'page_thread']),
  /**
   * Stable within a run: `supervisor`, `sidecar`, `gateway-0`…, `page-thread-1`…. A draining
   * gateway worker is `gateway-<slot>@<pid>` (its successor has the slot's id).
   */
  id: z.string(),
  status: ProcessStatus,
  /** The process; a page thread's is the page server's. */
  pid: z.number().int().nullable(),
  started_at: isoTime.nullable(),
  uptime_s: z.number().nullable(),
  /** Times this slot was started again after a crash or a recycle (reloads not counted). */
  restarts: z.number().int().min(0),
  last_exit: ExitReport.nullable(),
  /** Resident memory (RSS) of the process; for a page thread, its V8 heap (threads share the page server's RSS). */
  memory_bytes: z.number().nullable(),
  /** CPU over the last moment (process: time on CPU; page thread: event-loop utilisation), percent of one core. */
  cpu_percent: z.number().nullable(),
  /** CPU time since the process started (null for page threads). */
  cpu_seconds: z.number().nullable(),
  /** Gateway workers: requests served. */
  requests: z.number().int().nullable().optional(),
  /** Page threads: sessions it holds. */
  sessions: z.number().int().nullable().optional(),
  /** The sidecar: `bundled` (svc's page server) or `command` (ui_command). */
  kind: z.enum(['bundled', 'command']).optional(),
})
export type ProcessReport = z.infer<typeof ProcessReport>

export const ReloadReport = z.object({
  /** When the supervisor received it (a reload that waited for one under way: the first request's time). */
  at: isoTime,
  /** `command` (svc reload), `signal` (SIGHUP), `watch` (a save under svc dev --reload). */
  trigger: z.enum(['command', 'signal', 'watch']),
  scope: z.enum(['gateway', 'full']),
  result: z.enum(['ok', 'failed']),
  /** From `at` to the outcome: the wait, the load and the switch together. */
  duration_ms: z.number().int().min(0),
  /** Waiting for a reload under way to end (reloads never interleave); 0 when none ran. */
  queued_ms: z.number().int().min(0),
  /** The probe child reading the app and svc.config.json again; null without a probe (a save under `svc dev --reload`). */
  load_ms: z.number().int().min(0).nullable(),
  /** New workers and pages started and ready, connections switched to them (0 when the load failed). */
  switch_ms: z.number().int().min(0),
  /** New gateway worker pids (ok). */
  workers: z.array(z.number().int()),
  /** Open page sockets moved to the new pages (ok, bundled page server); null otherwise. */
  pages_moved: z.number().int().nullable(),
  error: ErrorReport.nullable(),
})
export type ReloadReport = z.infer<typeof ReloadReport>

export const StatusReport = z.object({
  svc_status: z.literal(1),
  app: z.object({
    target: z.string(),
    title: z.string(),
    url: z.string(),
    /** The address the public port is bound to, `host:port` (`0.0.0.0:8080`: every interface; `url` is then a loopback one). */
    listen: z.string(),
    mode: z.enum(['run', 'dev', 'workbench']),
    supervisor_pid: z.number().int(),
    started_at: isoTime,
    uptime_s: z.number(),
    /** Gateway workers serving (`workers` setting); replaced ones still draining are rows of `processes`. */
    workers: z.number().int(),
  }),
  reloads: z.object({ ok: z.number().int(), failed: z.number().int(), last: ReloadReport.nullable() }),
  recycles: z.object({ memory: z.number().int(), requests: z.number().int() }),
  /** Live page sessions of the bundled page server; null for a ui_command sidecar or when it did not answer. */
  page_sessions: z.number().int().nullable(),
  /** Tasks of the bundled page server; null for a `ui_command` sidecar (or no answer). */
  tasks: TaskStats.nullable(),
  processes: z.array(ProcessReport),
})
export type StatusReport = z.infer<typeof StatusReport>

export const ControlAnswer = z.discriminatedUnion('ok', [
  z.object({ ...v1, ok: z.literal(true), status: StatusReport.optional(), reload: ReloadReport.optional() }),
  z.object({ ...v1, ok: z.literal(false), error: ErrorReport, reload: ReloadReport.optional() }),
])
export type ControlAnswer = z.infer<typeof ControlAnswer>

/** A request line longer than this is refused (a status or reload request is about 40 bytes). */
export const MAX_CONTROL_REQUEST_BYTES = 4 * 1024
