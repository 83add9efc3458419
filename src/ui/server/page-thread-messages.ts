import type { AppProfile } from '../../../ipc/messages.js'
import type { DevLoadError } from '../wire/protocol.js'
import type { SocketContext } from '../st-types.js'
import type { BrowserStorageSnapshot } from '../storage/browser-storage.js'
import type { TaskStartRequest } from '../tasks/task-manager.js'
import type { TaskRecord } from '../tasks/task-types.js'

/** What a page thread starts with (`workerData`). */
export interface PageThreadData {
  target: string
  cwd: string
  basePath: string
  /** `svc dev`: `show_error_details` defaults to on (each thread reads the setting from its app). */
  devMode: boolean
  /** The app module's file, named in a load error's report (`svc dev --reload` shows it in the browser). */
  appFile: string
  /** The page server's cookie-ticket key when `cookie_secret` is not set (base64), shared by every thread. */
  ticketKey?: string
}

/** Where a session is: its page path (without the base path) and query string. */
export interface PageLocation {
  path: string
  query: string
}

/** A file posted to the upload endpoint, on its way to the session's thread. */
export interface UploadIn {
  sessionId: string
  name: string
  type: string
  bytes: Uint8Array
}

export type UploadOutcome = { ok: true; ref: string } | { ok: false; status: 400 | 404; message: string }

/** Main thread → page thread. `conn` numbers one page socket of the main thread. */
export type ToPageThread =
  | { t: 'open'; conn: number; requestedId: string | null; path: string; query: string; context: SocketContext; storage?: BrowserStorageSnapshot }
  /** One client message as the socket delivered it (UTF-8 JSON, parsed in the thread). */
  | { t: 'msg'; conn: number; bytes: Uint8Array }
  | { t: 'release'; conn: number }
  /**
   * The session moved to another thread (this one held it up, or is let go idle): forget it
   * without writing its snapshot, which the other thread now keeps.
   */
  | { t: 'drop'; conn: number; sessionId: string }
  | { t: 'upload'; id: number; upload: UploadIn }
  /** Write every session's snapshot now (the threads are being replaced). */
  | { t: 'handover' }
  | { t: 'snapshot_value'; id: number; value: string | null }
  /** Sign-outs made in the tree (sid, until epoch ms): those sign-ins are refused, their open pages sign out. */
  | { t: 'revoked'; sessions: { sid: string; until: number }[] }
  | { t: 'close' }
  /** News of a task of a session on this thread (null: the page server does not know the key). */
  | { t: 'task'; sessionId: string; key: string; record: TaskRecord | null }

/** The snapshot store calls a page thread makes to the main thread (when there is no Redis). */
export type SnapshotCall =
  | { op: 'set'; key: string; value: string; ttlSeconds: number }
  | { op: 'get'; key: string; id: number }
  | { op: 'expire'; key: string; ttlSeconds: number }
  | { op: 'del'; key: string }

/** Page thread → main thread. */
export type FromPageThread =
  /** The app loaded: what the main thread needs of it (it holds no app module itself). */
  | { t: 'ready'; profile: AppProfile }
  /** The app did not load; `devError`: the same as the browser's dev overlay shows it. */
  | { t: 'fatal'; code: string | null; message: string; devError: DevLoadError }
  /** Page output for one socket, already JSON: the main thread sends it as is. */
  | { t: 'out'; conn: number; data: string }
  /**
   * A run of `conn`'s session started (`page`: where) or ended (`page: null`); `running`: how many
   * of the thread's sessions have a run in progress now; `at`: the page and query the session is
   * on (where it continues if it moves to another thread).
   */
  | { t: 'run'; conn: number; running: number; page: string | null; at: PageLocation }
  | { t: 'opened'; conn: number; sessionId: string }
  | { t: 'open_failed'; conn: number; message: string }
  /** Close `conn`'s socket (its session was taken over by a newer socket). */
  | { t: 'close_conn'; conn: number; code: number; reason: string }
  /** A client message of `conn` was handled: the main thread may read more from its socket. */
  | { t: 'ack'; conn: number }
  | { t: 'gone'; sessionId: string }
  | { t: 'media'; bytes: Uint8Array; mime: string; fileName: string | null }
  | { t: 'uploaded'; id: number; outcome: UploadOutcome }
  | { t: 'snapshot'; call: SnapshotCall }
  /** Every `BEAT_MS`: sessions with a run in progress, and the thread's V8 heap in use. */
  | { t: 'beat'; running: number; heap: number }
  | { t: 'handed_over' }
  | { t: 'closed' }
  /** What a session asks of the page server's tasks (its `TaskPort`). */
  | { t: 'task_start'; sessionId: string; key: string; request: TaskStartRequest }
  | { t: 'task_cancel'; sessionId: string; key: string }
  | { t: 'task_forget'; sessionId: string; key: string }
  | { t: 'task_sync'; sessionId: string; keys: string[] }

/** A page thread reports this often that its event loop turns. */
export const BEAT_MS = 50
/** A thread silent for longer is busy (a page burns CPU): new sessions go elsewhere. */
export const BUSY_AFTER_MS = 200
