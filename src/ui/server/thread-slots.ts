import type { PageServerStats } from '../../../ipc/messages.js'

type ThreadExit = NonNullable<PageServerStats['threads'][number]['last_exit']>
/** What an unplanned end of a page thread was. */
export type ThreadEnd = ThreadExit['reason']

interface Slot {
  restarts: number
  lastExit: ThreadExit | null
  /** The thread holding it now, or null. */
  holder: object | null
}

/**
 * Page threads as `svc status` numbers them: each live thread holds a slot from 1; a thread
 * started after another ended takes the lowest free slot, usually that one, and a slot counts how
 * often its thread ended unplanned (crashed, killed as a runaway, recycled) and how it last did.
 */
export class ThreadSlots {
  readonly #slots: Slot[] = []
  readonly #ends: Record<ThreadEnd, number> = { crashed: 0, killed: 0, recycled: 0 }
  readonly #held = new WeakMap<object, { slot: number; startedAt: Date }>()
  /** Slots whose thread ended unplanned; the next thread to take one counts as its restart. */
  readonly #vacated = new Set<number>()

  /** `thread` started: it takes the lowest free slot. */
  take(thread: object): void {
    let slot = this.#slots.findIndex((s) => s.holder === null)
    if (slot === -1) slot = this.#slots.push({ restarts: 0, lastExit: null, holder: null }) - 1
    const s = this.#slots[slot]!
    s.holder = thread
    if (this.#vacated.delete(slot)) s.restarts++
    this.#held.set(thread, { slot, startedAt: new Date() })
  }

  /** `thread` ended; `end` when it was unplanned (a reload, a shrink or a stop is not). */
  release(thread: object, end: { reason: ThreadEnd; detail: string } | null): void {
    const held = this.#held.get(thread)
    if (!held) return
    const s = this.#slots[held.slot]!
    if (s.holder === thread) s.holder = null
    if (!end) return
    this.#ends[end.reason]++
    s.lastExit = { at: new Date().toISOString(), reason: end.reason, detail: end.detail }
    this.#vacated.add(held.slot)
  }

  /** The slot report of a live thread. */
  of(thread: object): Pick<PageServerStats['threads'][number], 'id' | 'started_at' | 'restarts' | 'last_exit'> | null {
    const held = this.#held.get(thread)
    if (!held) return null
    const s = this.#slots[held.slot]!
    return { id: held.slot + 1, started_at: held.startedAt.toISOString(), restarts: s.restarts, last_exit: s.lastExit }
  }

  get ends(): Readonly<Record<ThreadEnd, number>> {
    return this.#ends
  }
}
