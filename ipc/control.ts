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

export const ProcessReport = z.object({
  role: z.enum(['supervisor', 'sidecar', 'gateway', 'page_thread']),
  /** Stable within a run: `supervisor`, `sidecar`, `gateway-0`…, `page-thread-1`…. */
  id: z.string(),
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
  at: isoTime,
  /** `command` (svc reload), `signal` (SIGHUP), `watch` (a save under svc dev --reload). */
  trigger: z.enum(['command', 'signal', 'watch']),
  scope: z.enum(['gateway', 'full']),
  result: z.enum(['ok', 'failed']),
  duration_ms: z.number().int().min(0),
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
    mode: z.enum(['run', 'dev', 'workbench']),
    supervisor_pid: z.number().int(),
    started_at: isoTime,
    uptime_s: z.number(),
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
