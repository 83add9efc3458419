/**
 * The fixed stop deadlines of svc's processes, in one place so they can be read against each
 * other. The ones a user tunes are settings: `shutdown_grace_s` (drain), `gateway_start_timeout_s`
 * (worker start), `ui_startup_timeout_s` (sidecar start), `gateway_ws_reload_grace_s` (how long a
 * worker replaced by a reload keeps its WebSockets).
 */

/** Workers get this long to drain when svc stops on a failure (a sidecar exit, a crash loop, a failed sidecar reload). */
export const FAILURE_DRAIN_MS = 1_000
/** A worker gets this long past the drain grace before the supervisor SIGKILLs its tree. */
export const WORKER_KILL_MARGIN_MS = 2_000
/** The app's `onClose` hooks get at least this long, even when the drain used up the grace (< WORKER_KILL_MARGIN_MS). */
export const MIN_APP_CLOSE_MS = 1_000
/** A worker whose supervisor vanished drains this long: nobody waits for it. */
export const ORPHAN_GRACE_MS = 2_000
/** SIGKILL of the sidecar's tree this long after SIGTERM. */
export const SIDECAR_STOP_GRACE_MS = 5_000
/** `svc shutdown --force`: after its SIGKILL of the supervisor's tree, how long the supervisor may take to disappear. */
export const SHUTDOWN_KILL_WAIT_MS = 2_000
/** A run's leftover processes get SIGTERM and this long before SIGKILL, like a sidecar's tree. */
export const LEFTOVER_GRACE_MS = SIDECAR_STOP_GRACE_MS
/** The sidecar guard gives a ui_command as long; the supervisor waits a second more for the guard. */
export const GUARD_STOP_GRACE_MS = SIDECAR_STOP_GRACE_MS
export const GUARD_EXTRA_MS = 1_000
/** The guard waits this long for its last report to the supervisor to be written, then exits anyway. */
export const GUARD_REPORT_MS = 1_000
/** The page server's sockets still open this long after its stop began are dropped (WebSockets terminated, HTTP sockets destroyed). */
export const PAGE_SERVER_FORCE_CLOSE_MS = 2_000
/** A page thread that does not answer `close` (or `handover`) within this is terminated. */
export const THREAD_CLOSE_MS = 3_000
/** A replaced worker's WebSockets still open at `gateway_ws_reload_grace_s` close one by one over this long, not all at once. */
export const WS_RETIRE_SPREAD_MS = 10_000
/** Replaced workers per slot that may keep WebSockets at once; an older one closes its WebSockets at the next reload. */
export const MAX_RETIRING_PER_SLOT = 2
/** A page thread's wait for its module-hooks thread to stop esbuild's service (Node 20); past it the thread goes on. */
export const TRANSFORM_STOP_MS = 1_000
/** `svc status` and a scrape wait this long for a worker's or the page server's account of itself. */
export const STATS_ANSWER_MS = 1_000
/** A worker younger than this is not recycled for memory: it would start over the limit again (the limit is too low). */
export const RECYCLE_MIN_AGE_MS = 10_000
/** How long `svc status` and `svc reload` wait for the control socket to accept. */
export const CONTROL_CONNECT_MS = 2_000
