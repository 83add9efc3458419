import { performance } from 'node:perf_hooks'
import { Worker, type ResourceLimits } from 'node:worker_threads'
import { SvcError, type SvcErrorCode } from '../../errors.js'
import type { DevLoadError } from '../protocol.js'
import type { SocketContext } from '../st-types.js'
import type { BrowserStorageSnapshot } from '../storage/browser-storage.js'
import type { BoundSession, SessionOutput } from './local-sessions.js'
import { BUSY_AFTER_MS, type PageLocation, type PageThreadData, type ToPageThread, type UploadOutcome } from './page-thread-messages.js'
import type { AppProfile } from '../../../ipc/messages.js'

/**
 * A page thread's heap. The old generation is capped at `ui_page_thread_max_heap_mb` (0: V8's
 * default), so one page cannot take the page server's memory: at the cap Node stops the thread
 * (`ERR_WORKER_OUT_OF_MEMORY`) and the pool replaces it. The young generation: V8's
 * `--max-semi-space-size` applies to every isolate of the process, so under svc (which forks the
 * page server with `=4`, supervisor/child-exec-argv.ts) or with the user's own size threads
 * follow it; without the flag (a page server started by hand) they get the same 4 MB semi-spaces
 * instead of V8's 16.
 */
export function pageThreadResourceLimits(heapCapMb: number, execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): ResourceLimits {
  const chosen = [...execArgv, ...nodeOptions.split(/\s+/)].some((flag) => /^--max[-_]semi[-_]space[-_]size(?:=|$)/.test(flag))
  return { ...(chosen ? {} : { maxYoungGenerationSizeMb: 12 }), ...(heapCapMb > 0 ? { maxOldGenerationSizeMb: heapCapMb } : {}) }
}

/** The hello a socket opened its session with, kept to place it again when its thread goes. */
export interface Hello {
  requestedId: string | null
  path: string
  query: string
  /** svc's entries of the browser's storage areas. */
  storage?: BrowserStorageSnapshot
}

/** One page socket as the main thread knows it, bound to a session on a thread. */
export interface Conn {
  readonly id: number
  readonly out: SessionOutput
  readonly hello: Hello
  readonly context: SocketContext
  /** While the session opens: settle `open()`. */
  opened: ((bound: BoundSession) => void) | null
  failed: ((err: Error) => void) | null
  /** How often this socket's open was placed again after its thread stopped first. */
  placements: number
  sessionId: string | null
  /** When its session's run in progress started (performance.now()), and on which page; null when none runs. */
  runSince: number | null
  runPage: string | null
  /** `done` callbacks of client messages the thread has not handled yet (held ones included), oldest first. */
  readonly acks: (() => void)[]
  /** The thread holding (or opening) its session. */
  thread: PageThread | null
  /** Where its session is: from the hello, then from each run the thread reports. */
  at: PageLocation
  /** Client messages waiting in the main thread while another session's run holds its thread up (page-thread-pool.ts). */
  readonly held: Uint8Array[]
  /** Its session is opening on another thread from its snapshot; messages wait in `held`. */
  moving: boolean
}

export type ThreadState = 'starting' | 'ready' | 'retiring' | 'gone'

/**
 * A worker thread running page sessions, as the pool sees it: its sockets, its sessions, how busy
 * it is (the beat it sends every 50 ms, the runs in progress) and the answers it owes.
 */
export class PageThread {
  readonly worker: Worker
  readonly ready: Promise<AppProfile>
  readonly conns = new Map<number, Conn>()
  readonly sessions = new Set<string>()
  state: ThreadState = 'starting'
  pendingOpens = 0
  /** Sessions of this thread with a run in progress (a run may be burning CPU right now). */
  running = 0
  lastBeat = performance.now()
  /** When the newest run in progress started (as the main thread heard). */
  lastRunStart = 0
  /** When a session was placed here, a message went here or a run started or ended here. */
  lastActive = performance.now()
  /** Checks, once a thread can be called busy, whether sockets with held messages move elsewhere. */
  heldTimer: NodeJS.Timeout | null = null
  /** Its V8 heap in use, as of its last beat. */
  heapBytes: number | null = null
  /** Why it is being recycled (`ui_page_thread_max_memory_mb`), for the log and `svc status`; null when it is not. */
  recycling: string | null = null
  /** The uncaught error it died of, if any. */
  error: Error | null = null
  /** Why the app did not load on it, as the dev overlay shows it. */
  loadError: DevLoadError | null = null
  /** Why the pool stopped it on purpose; null for a crash. */
  retired: 'runaway' | 'reload' | 'recycle' | 'reclaim' | 'shrink' | 'idle' | 'close' | null = null
  readonly uploads = new Map<number, (outcome: UploadOutcome) => void>()
  closed: (() => void) | null = null
  handedOver: (() => void) | null = null
  #settle: { ready: (m: AppProfile) => void; failed: (err: Error) => void }

  constructor(data: PageThreadData, heapCapMb: number) {
    // esbuild's synchronous calls then run in a process of their own, waited for at once, not in a
    // service that a nested thread of esbuild starts and that no thread could reap after this one
    // ends (src/target/transform-service.ts).
    const env = { ...process.env, ESBUILD_WORKER_THREADS: '0' }
    this.worker = new Worker(new URL('./page-thread-main.js', import.meta.url), { workerData: data, env, resourceLimits: pageThreadResourceLimits(heapCapMb) })
    let settle!: { ready: (m: AppProfile) => void; failed: (err: Error) => void }
    this.ready = new Promise<AppProfile>((ready, failed) => (settle = { ready, failed }))
    this.#settle = settle
    // A caller awaits `ready`; a thread nobody waits for must not become an unhandled rejection.
    this.ready.catch(() => undefined)
  }

  get alive(): boolean {
    return this.state === 'starting' || this.state === 'ready' || this.state === 'retiring'
  }

  /** A reload's thread before the reload is committed: loaded, but no session goes there yet. */
  held = false

  /** Takes new sessions: loaded (or loading), not being replaced, not held by a reload. */
  get placeable(): boolean {
    return !this.held && (this.state === 'starting' || this.state === 'ready')
  }

  get load(): number {
    return this.sessions.size + this.pendingOpens
  }

  post(m: ToPageThread, transfer?: ArrayBuffer[]): void {
    if (this.alive) this.worker.postMessage(m, transfer)
  }

  /** How long its event loop has not turned (0 while it loads the app). */
  stalledFor(now: number): number {
    return this.state === 'starting' ? 0 : now - this.lastBeat
  }

  /** A thread still loading the app is not busy: a session placed there waits for it, then runs alone. */
  busy(now: number): boolean {
    return this.stalledFor(now) > BUSY_AFTER_MS
  }

  /** The thread answered `ready` or `fatal`. */
  loaded(profile: AppProfile): void {
    this.lastBeat = performance.now()
    if (this.state === 'starting') this.state = 'ready'
    this.#settle.ready(profile)
  }

  failedToLoad(code: string | null, message: string, loadError: DevLoadError): void {
    this.loadError = loadError
    this.#settle.failed(new SvcError((code as SvcErrorCode | null) ?? 'SVC_ERR_UI_SIDECAR_START', message))
  }

  /** The worker exited: fail what waits on it. */
  exited(code: number): void {
    const wasStarting = this.state === 'starting'
    this.state = 'gone'
    this.#settle.failed(this.error ?? new SvcError('SVC_ERR_UI_PAGE_THREAD', `a page thread exited (code ${code})${wasStarting ? ' before it was ready' : ''}`))
    if (this.heldTimer) clearTimeout(this.heldTimer)
    this.closed?.()
    this.handedOver?.()
    for (const answer of this.uploads.values()) answer({ ok: false, status: 404, message: 'the page thread holding this session stopped; reload the page' })
    this.uploads.clear()
    for (const conn of this.conns.values()) {
      conn.held.length = 0
      for (const done of conn.acks.splice(0)) done()
    }
  }
}
