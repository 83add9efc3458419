import { Lifecycle } from '../../internal/lifecycle.js'
import type { SnapshotBackend } from './session-snapshots.js'
import type { SnapshotCall } from './page-thread-messages.js'

/** How often expired snapshots are swept from the main thread's store. */
const SWEEP_MS = 5_000

/**
 * Page-session snapshots kept by the page server's main thread when there is no Redis: a page
 * thread writes its sessions here (every second for those that changed, and all at once before
 * it is replaced), so a session whose thread is replaced (a dev reload, a runaway page, a crash)
 * continues on a new thread with its state. Values are the encoded snapshots (at most 256 KiB
 * each, `session-snapshots.ts`) and expire with the session TTL.
 */
export class LocalSnapshotStore extends Lifecycle {
  readonly #entries = new Map<string, { value: string; expiresAt: number }>()
  readonly #sweep: NodeJS.Timeout

  constructor() {
    super()
    this.#sweep = setInterval(() => this.#expire(Date.now()), SWEEP_MS)
    this.#sweep.unref()
  }

  /** Carry out one call of a page thread; `answer` gets the value of a `get`. */
  apply(call: SnapshotCall, answer: (id: number, value: string | null) => void): void {
    switch (call.op) {
      case 'set':
        this.#entries.set(call.key, { value: call.value, expiresAt: Date.now() + call.ttlSeconds * 1000 })
        return
      case 'get':
        answer(call.id, this.get(call.key))
        return
      case 'expire': {
        const entry = this.#entries.get(call.key)
        if (entry) entry.expiresAt = Date.now() + call.ttlSeconds * 1000
        return
      }
      case 'del':
        this.#entries.delete(call.key)
        return
      default: {
        const never: never = call
        return never
      }
    }
  }

  get(key: string): string | null {
    const entry = this.#entries.get(key)
    if (!entry) return null
    if (entry.expiresAt > Date.now()) return entry.value
    this.#entries.delete(key)
    return null
  }

  /** Nothing is in flight (every call is done when `apply` returns): the snapshots go, as on abort. */
  protected async drain(): Promise<void> {
    this.#stop()
  }

  protected async abort(): Promise<void> {
    this.#stop()
  }

  #stop(): void {
    clearInterval(this.#sweep)
    this.#entries.clear()
  }

  #expire(now: number): void {
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key)
  }
}

/** A page thread's side of `LocalSnapshotStore`: the snapshot backend it hands its sessions. */
export class MainThreadSnapshots implements SnapshotBackend {
  readonly #post: (call: SnapshotCall) => void
  readonly #waiting = new Map<number, (value: string | null) => void>()
  #nextId = 1

  constructor(post: (call: SnapshotCall) => void) {
    this.#post = post
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    this.#post({ op: 'set', key, value, ttlSeconds })
  }

  get(key: string): Promise<string | null> {
    const id = this.#nextId++
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve)
      this.#post({ op: 'get', key, id })
    })
  }

  async expire(key: string, ttlSeconds: number): Promise<void> {
    this.#post({ op: 'expire', key, ttlSeconds })
  }

  async del(key: string): Promise<void> {
    this.#post({ op: 'del', key })
  }

  /** The main thread's answer to a `get`. */
  answer(id: number, value: string | null): void {
    const resolve = this.#waiting.get(id)
    this.#waiting.delete(id)
    resolve?.(value)
  }
}
