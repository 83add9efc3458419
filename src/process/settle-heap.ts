import { performance, type EventLoopUtilization } from 'node:perf_hooks'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * Start-up (loading modules, the app, the first requests) grows V8's young generation to its
 * limit; on Node 24 V8 keeps it at that size for good in a process that then idles (8-18 MB
 * resident per process, almost all of it empty), because no full collection follows to start its
 * memory reducer. One full collection run from a fresh context does: about 8 s later the reducer
 * gives the young generation back (measured: Node 24, the whole idle tree 270 → 242 MB RSS; a
 * collection from the main context did not have that effect). On Node 20 the reducer starts on
 * its own; the collection only brings it forward. docs/performance.md, "Memory of the tree".
 */
let collect: (() => void) | null = null

function collector(): () => void {
  if (collect === null) {
    // As jest does for --logHeapUsage: the flag gives only contexts made while it is on a `gc`,
    // and it is switched off again, so no later context (the app's own `vm` use) sees one.
    setFlagsFromString('--expose-gc')
    try {
      collect = runInNewContext('gc') as () => void
    } finally {
      setFlagsFromString('--no-expose-gc')
    }
  }
  return collect
}

/** One full collection of this thread's heap, now: a few ms for the heap of a svc process. */
export function settleHeap(): void {
  collector()()
}

/**
 * `settleHeap()` once per quiet spell after work: `worked()` on each piece of work, `check()`
 * on a timer; the first check `quietMs` after the last work settles, once.
 */
export class QuietSettle {
  readonly #quietMs: number
  readonly #settle: () => void
  readonly #now: () => number
  #lastWork = 0
  #unsettled = false

  constructor(quietMs: number, options: { settle?: () => void; now?: () => number } = {}) {
    this.#quietMs = quietMs
    this.#settle = options.settle ?? settleHeap
    this.#now = options.now ?? Date.now
  }

  worked(): void {
    this.#lastWork = this.#now()
    this.#unsettled = true
  }

  /** True when it settled now. */
  check(): boolean {
    if (!this.#unsettled || this.#now() - this.#lastWork < this.#quietMs) return false
    this.#unsettled = false
    this.#settle()
    return true
  }
}

/** A second of the event loop busier than this (2 %) is work; an idle svc process stays under 0.5 %. */
const BUSY_UTILISATION = 0.02
const LOOK_EVERY_MS = 1_000
const QUIET_MS = 5_000

/**
 * Settle this thread's heap after each busy spell (start-up, a burst of requests or page runs)
 * once its event loop has been quiet for 5 s: a look each second at the loop's utilisation, on a
 * timer that never keeps the process or thread up. Call once, at the start of a process or thread.
 */
export function settleHeapWhenQuiet(): void {
  const quiet = new QuietSettle(QUIET_MS)
  // Start-up is the first busy spell.
  quiet.worked()
  let last: EventLoopUtilization = performance.eventLoopUtilization()
  let skipNext = false
  setInterval(() => {
    const now = performance.eventLoopUtilization()
    const busy = performance.eventLoopUtilization(now, last).utilization > BUSY_UTILISATION
    last = now
    // The collection itself shows in the next look; it is not work.
    if (skipNext) skipNext = false
    else if (busy) quiet.worked()
    else skipNext = quiet.check()
  }, LOOK_EVERY_MS).unref()
}
