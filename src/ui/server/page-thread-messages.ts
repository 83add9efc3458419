import type { ClientMessage } from '../protocol.js'
import type { StContext } from '../st-types.js'

/** What a page thread starts with (`workerData`). */
export interface PageThreadData {
  target: string
  cwd: string
  basePath: string
  /** `svc dev`: `show_error_details` defaults to on (each thread reads the setting from its app). */
  devMode: boolean
}

/** Main thread → page thread. `conn` numbers one page socket of the main thread. */
export type ToPageThread =
  | { t: 'open'; conn: number; requestedId: string | null; path: string; query: string; context: StContext }
  | { t: 'msg'; conn: number; msg: ClientMessage }
  | { t: 'release'; conn: number }
  | { t: 'reload' }
  | { t: 'close' }

/** Page thread → main thread. */
export type FromPageThread =
  | { t: 'ready' }
  | { t: 'fatal'; code: string | null; message: string }
  /**
   * Page output for one socket, already JSON (the main thread sends it as is); with a run starting
   * or ending, how many of the thread's sessions have a run in progress.
   */
  | { t: 'out'; conn: number; data: string; running?: number }
  | { t: 'opened'; conn: number; sessionId: string }
  | { t: 'open_failed'; conn: number; message: string }
  | { t: 'gone'; sessionId: string }
  | { t: 'media'; bytes: Uint8Array; mime: string; fileName: string | null }
  | { t: 'beat'; running: number }
  | { t: 'reloaded'; reran: number }
  | { t: 'closed' }

/** A page thread reports this often that its event loop turns. */
export const BEAT_MS = 50
/** A thread silent for longer is busy (a page burns CPU): new sessions go elsewhere. */
export const BUSY_AFTER_MS = 200
