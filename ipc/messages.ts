import { z } from '../src/internal/zod.js'

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

export const SupervisorToGateway = z.discriminatedUnion('type', [
  /** To a standby worker (`SVC_WORKER_STANDBY=1`, svc dev --reload): load the app now. */
  z.object({ ...v1, type: z.literal('start') }),
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
  /** Sign-outs made elsewhere in the tree (or, after `loaded`, all still in force). */
  z.object({ ...v1, ...sessionsRevoked }),
])
export type SupervisorToGateway = z.infer<typeof SupervisorToGateway>

export const GatewayToSupervisor = z.discriminatedUnion('type', [
  /**
   * App imported and gateway built; waiting for `listen`. Carries the app's resolved settings:
   * the supervisor never imports the app itself, so this is how it learns `new Svc({...})` options.
   */
  z.object({ ...v1, type: z.literal('loaded'), pid: z.number().int(), settings: z.record(z.string(), z.unknown()) }),
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
  /** Sign-outs this worker made (its logout route): the supervisor relays them. */
  z.object({ ...v1, ...sessionsRevoked }),
])
export type GatewayToSupervisor = z.infer<typeof GatewayToSupervisor>

/**
 * To the bundled page server. Under `svc dev --reload` (the supervisor is the one file watcher):
 * load the app again. It answers `reloaded` or `reload_failed` with the same `id`. A
 * `ui_command` sidecar is never sent anything.
 */
export const SupervisorToSidecar = z.discriminatedUnion('type', [
  z.object({ ...v1, type: z.literal('reload'), id: z.number().int() }),
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
  /** `reload` done: the pages serve the new code (fresh page threads; `moved` open pages went along). */
  z.object({ ...v1, type: z.literal('reloaded'), id: z.number().int(), moved: z.number().int().min(0), ms: z.number().min(0) }),
  /** `reload` failed: the previous code serves on; `summary` is the dev error's terminal line. */
  z.object({ ...v1, type: z.literal('reload_failed'), id: z.number().int(), summary: z.string() }),
])
export type SidecarToSupervisor = z.infer<typeof SidecarToSupervisor>
