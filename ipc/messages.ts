import { z } from '../src/internal/zod.js'
import type { DevTypeError as DevTypeErrorShape, TypeCheckReport } from '../src/internal/dev-type-error.js'
import { settingsFromData, type ResolvedSettings } from '../src/settings/resolve.js'
import { TaskStats } from './control.js'

/**
 * The control plane: one discriminated union per direction, every message branded `svc: 1`.
 * Senders write literals with `satisfies`; receivers go through `ipc/channel.ts`, which drops
 * (and logs) anything that does not parse.
 */
const v1 = { svc: z.literal(1) }

/**
 * Sign-ins that were signed out (src/auth/session-revocations.ts): each sid (as svc mints them)
 * and when its identity cookie expires (epoch ms). A gateway worker reports the sign-outs it
 * made; the supervisor relays them to every other process and hands the whole list to each
 * process it starts.
 */
const sessionsRevoked = {
  type: z.literal('sessions_revoked'),
  sessions: z.array(z.object({ sid: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/), until: z.number().int() })).max(100_000),
}
/** Resolved settings handed over whole: checked field by field against the settings schema. */
const HandedSettings = z.record(z.string(), z.unknown()).transform((data, ctx): ResolvedSettings => {
  try {
    return settingsFromData(data)
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message })
    return z.NEVER
  }
})

/**
 * What svc knows of an app once it was loaded (by the probe child at start, by a page thread at a
 * reload): its resolved settings, how to find its pages, its module and the components it declared.
 */
export const AppProfile = z.object({
  settings: HandedSettings,
  pages: z.array(z.object({ path: z.string(), slug: z.string(), title: z.string() })),
  /** The app module's file and export (the dev-reload watcher watches its folder). */
  file: z.string(),
  exportName: z.string(),
  /** Components the app declared: the page server serves their files and frames their origins. */
  components: z.object({
    folders: z.array(z.object({ name: z.string(), folder: z.string(), entry: z.string(), sameOrigin: z.boolean() })),
    frameOrigins: z.array(z.string()),
  }),
})
export type AppProfile = z.infer<typeof AppProfile>

const ThreadExit = z.object({ at: z.iso.datetime({ offset: true }), reason: z.enum(['crashed', 'killed', 'recycled']), detail: z.string() })

/** The bundled page server's account of itself (`svc status`, the process metrics). */
export const PageServerStats = z.object({
  sessions: z.number().int().min(0),
  threads: z.array(
    z.object({
      /** The thread's slot, from 1: a thread that replaces another (crash, runaway page, recycle) takes its slot. */
      id: z.number().int(),
      /** `starting` (loading the app, or a reload's thread until the reload commits), `online`, `draining` (handing its sessions over before it ends). */
      status: z.enum(['starting', 'online', 'draining']),
      started_at: z.iso.datetime({ offset: true }),
      sessions: z.number().int().min(0),
      heap_bytes: z.number().nullable(),
      /** Event-loop utilisation over the last moment, 0-1. */
      elu: z.number().nullable(),
      /** Threads of this slot replaced after an unplanned end, and the last such end. */
      restarts: z.number().int().min(0),
      last_exit: ThreadExit.nullable(),
    }),
  ),
  /** Threads replaced since start: crashed, killed (a runaway page), recycled (`ui_page_thread_max_memory_mb`). */
  thread_exits: z.object({ crashed: z.number().int(), killed: z.number().int(), recycled: z.number().int() }),
  /** Tasks (`app.task`) running and waiting (`ui_task_max_running`), and the task threads that run them. */
  tasks: TaskStats.optional(),
})
export type PageServerStats = z.infer<typeof PageServerStats>
/** A page thread's row in `svc status`. */
export type PageThreadStatus = PageServerStats['threads'][number]['status']

/**
 * The probe child (probe/main.ts) to the supervisor, then it exits. First the settings known
 * without the app (`provisional`: the supervisor claims the pid file they name while the app
 * loads), then the app as loaded, or why not. `settings` stage: a flag, variable or
 * svc.config.json value, or the target path, is wrong (nothing of the app ran). `app` stage: the
 * app did not load; `settings` then holds what was resolved without it.
 */
export const ProbeToSupervisor = z.discriminatedUnion('type', [
  z.object({ ...v1, type: z.literal('provisional'), settings: HandedSettings }),
  z.object({ ...v1, type: z.literal('probed'), profile: AppProfile }),
  z.object({
    ...v1,
    type: z.literal('probe_failed'),
    stage: z.enum(['settings', 'app']),
    code: z.string(),
    message: z.string(),
    settings: HandedSettings.nullable(),
  }),
])
export type ProbeToSupervisor = z.infer<typeof ProbeToSupervisor>

export const SupervisorToGateway = z.discriminatedUnion('type', [
  /**
   * The first message every worker gets: load the app now, with these settings for the worker's
   * own logs and limits. A standby worker (`SVC_WORKER_STANDBY=1`, svc dev --reload) loaded svc's
   * runtime before it; the others get it at once.
   */
  z.object({ ...v1, type: z.literal('start'), settings: HandedSettings }),
  /** Sent with the listening socket handle: start accepting on it. */
  z.object({ ...v1, type: z.literal('listen') }),
  /**
   * Several workers: the supervisor accepts on the public port itself and deals the connections
   * out round-robin (`connection`); take them from now on instead of listening.
   */
  z.object({ ...v1, type: z.literal('take_connections') }),
  /** Sent with an accepted client socket (paused, nothing read yet): serve it, answer `connection_ack`. */
  z.object({ ...v1, type: z.literal('connection'), id: z.number().int() }),
  /** The sidecar moved (full reload): proxy to this URL from now on. */
  z.object({ ...v1, type: z.literal('upstream'), url: z.string() }),
  /**
   * Stop accepting, finish in-flight requests within `grace_ms`, close WebSockets (1001), exit.
   * A reload's drain keeps proxied WebSockets open up to `ws_grace_ms` (then closes them spread
   * over `WS_RETIRE_SPREAD_MS`). Sent again to a draining worker: `shutdown` closes its
   * WebSockets now, `reload` moves their deadline to `ws_grace_ms` from now.
   */
  z.object({
    ...v1,
    type: z.literal('drain'),
    grace_ms: z.number().int().min(0),
    reason: z.enum(['reload', 'shutdown']),
    ws_grace_ms: z.number().int().min(0).optional(),
  }),
  /** Report this worker's metrics for an aggregated scrape. */
  z.object({ ...v1, type: z.literal('metrics_collect'), id: z.number().int() }),
  /** Answer to `metrics_request`: the exposition text summed over all workers. */
  z.object({ ...v1, type: z.literal('metrics_result'), id: z.number().int(), text: z.string().optional(), error: z.string().optional() }),
  /** `svc status` asks: answer `stats` with the same id. */
  z.object({ ...v1, type: z.literal('stats_request'), id: z.number().int() }),
  /** Sign-outs made elsewhere in the tree (or, after `loaded`, all still in force). */
  z.object({ ...v1, ...sessionsRevoked }),
])
export type SupervisorToGateway = z.infer<typeof SupervisorToGateway>

export const GatewayToSupervisor = z.discriminatedUnion('type', [
  /**
   * App imported and gateway built; waiting for `listen`. Carries the app's resolved settings:
   * after a reload the supervisor serves with them (the probe read them at start).
   */
  z.object({ ...v1, type: z.literal('loaded'), pid: z.number().int(), settings: HandedSettings }),
  /** Accepting connections on the public port. */
  z.object({ ...v1, type: z.literal('ready'), pid: z.number().int() }),
  /** After `upstream`: new requests go to `url`, and those in flight to the old sidecar are done. */
  z.object({ ...v1, type: z.literal('upstream_drained'), pid: z.number().int(), url: z.string() }),
  /**
   * Connection `id` arrived. `accepted: false` (the worker is no longer serving): the supervisor
   * still holds the socket, untouched, and deals it to another worker.
   */
  z.object({ ...v1, type: z.literal('connection_ack'), id: z.number().int(), accepted: z.boolean() }),
  /** Drain finished; the worker exits next. `connections`: client connections open when it began. */
  z.object({ ...v1, type: z.literal('drained'), pid: z.number().int(), connections: z.number().int() }),
  /** The worker cannot start or go on (bad app, bad settings): the error as data. */
  z.object({ ...v1, type: z.literal('fatal'), code: z.string(), message: z.string() }),
  /** A scrape arrived: ask the supervisor to collect every worker's metrics. */
  z.object({ ...v1, type: z.literal('metrics_request'), id: z.number().int() }),
  /** This worker's metrics (prom-client JSON) for collection `id`. */
  z.object({ ...v1, type: z.literal('metrics_data'), id: z.number().int(), data: z.unknown() }),
  /** Answer to `stats_request`: requests served so far (HTTP requests and WebSocket upgrades). */
  z.object({ ...v1, type: z.literal('stats'), id: z.number().int(), requests: z.number().int().min(0) }),
  /** This worker served `gateway_max_requests` (plus its jitter): replace it (sent once). */
  z.object({ ...v1, type: z.literal('recycle_request'), reason: z.literal('requests'), requests: z.number().int().min(0) }),
  /** Sign-outs this worker made (its logout route): the supervisor relays them. */
  z.object({ ...v1, ...sessionsRevoked }),
])
export type GatewayToSupervisor = z.infer<typeof GatewayToSupervisor>

/** A type error found by `svc dev`'s type check (src/internal/dev-type-error.ts has its fields). */
export const DevTypeError = z.object({
  file: z.string().nullable(),
  line: z.number().int().nullable(),
  column: z.number().int().nullable(),
  code: z.string(),
  message: z.string(),
  frame: z.array(z.object({ line: z.number().int(), text: z.string() })),
  syntax: z.boolean().optional(),
}) satisfies z.ZodType<DevTypeErrorShape>
export type DevTypeError = z.infer<typeof DevTypeError>
export type { TypeCheckReport }

/** The type check's result: the first errors (sorted by place) and how many there are in all. */
const typeCheckReport = { errors: z.array(DevTypeError), total: z.number().int().min(0) }

/**
 * From the type checker `svc dev` runs beside the tree (supervisor/type-check/): each check's
 * result (after the first and after every save), or why it cannot check at all.
 */
export const TypeCheckerToSupervisor = z.discriminatedUnion('type', [
  z.object({ ...v1, type: z.literal('checked'), ...typeCheckReport, ms: z.number().min(0) }),
  z.object({ ...v1, type: z.literal('fatal'), message: z.string() }),
])
export type TypeCheckerToSupervisor = z.infer<typeof TypeCheckerToSupervisor>

/**
 * To the bundled page server: first what it serves (`configure`); then, on a reload (`svc reload`,
 * SIGHUP, or a save under `svc dev --reload`), load the app again on fresh page threads. It
 * answers `reloaded` or `reload_failed` with the same `id`. Under `svc dev`, the type check's
 * errors. A `ui_command` sidecar is never sent anything.
 */
export const SupervisorToSidecar = z.discriminatedUnion('type', [
  /** The first message to the bundled page server: the app it serves, as the probe read it. */
  z.object({ ...v1, type: z.literal('configure'), profile: AppProfile }),
  /** Load the new code on fresh page threads, sessions staying on the running ones: answer `reload_ready` or `reload_failed`. */
  z.object({ ...v1, type: z.literal('reload'), id: z.number().int() }),
  /** The new gateway workers serve: sessions move to the loaded code and rerun there (answer `reloaded`). */
  z.object({ ...v1, type: z.literal('reload_commit'), id: z.number().int() }),
  /** The reload failed elsewhere: the loaded code goes, the running code serves on. */
  z.object({ ...v1, type: z.literal('reload_abort'), id: z.number().int() }),
  /** `svc status` or a scrape asks: answer `stats` with the same id; threads' CPU measured over `window_ms` (0: none). */
  z.object({ ...v1, type: z.literal('stats_request'), id: z.number().int(), window_ms: z.number().int().min(0).max(5_000) }),
  /** `svc dev`: the type check's latest result, for the open tabs' overlay (`total: 0` clears it). */
  z.object({ ...v1, type: z.literal('type_errors'), ...typeCheckReport }),
  /** Sign-outs made in the tree: open pages of those sign-ins sign out at once. */
  z.object({ ...v1, ...sessionsRevoked }),
])
export type SupervisorToSidecar = z.infer<typeof SupervisorToSidecar>

/**
 * From the guard that runs a `ui_command` sidecar (how the command ended, before the guard
 * exits), and from the bundled page server (a failed start, its answers to `reload`).
 */
export const SidecarToSupervisor = z.discriminatedUnion('type', [
  /** The command runs as this pid, leader of its own process group. */
  z.object({ ...v1, type: z.literal('child_started'), pid: z.number().int() }),
  z.object({ ...v1, type: z.literal('child_exit'), code: z.number().int().nullable(), signal: z.string().nullable() }),
  /** The bundled sidecar could not start (the supervisor reports it, once). */
  z.object({ ...v1, type: z.literal('fatal'), code: z.string(), message: z.string() }),
  /** `reload`'s code is loaded beside the running one (fresh page threads), waiting for `reload_commit`. */
  z.object({ ...v1, type: z.literal('reload_ready'), id: z.number().int(), ms: z.number().min(0) }),
  /** `reload_commit` done: the pages serve the new code (`moved` open pages went along). */
  z.object({ ...v1, type: z.literal('reloaded'), id: z.number().int(), moved: z.number().int().min(0), ms: z.number().min(0) }),
  /** `reload` failed: the previous code serves on; `summary` is the dev error's terminal line. */
  z.object({ ...v1, type: z.literal('reload_failed'), id: z.number().int(), summary: z.string() }),
  /** Answer to `stats_request`: live page sessions, each page thread, and what happened to threads since start. */
  z.object({ ...v1, type: z.literal('stats'), id: z.number().int(), stats: PageServerStats }),
])
export type SidecarToSupervisor = z.infer<typeof SidecarToSupervisor>
