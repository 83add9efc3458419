import type { Logger } from 'pino'
import type { ResolvedSettings } from '../src/settings/schema.js'
import { RECYCLE_MIN_AGE_MS } from '../src/internal/deadlines.js'
import { readProcesses } from './process-stats.js'
import type { WorkerHandle } from './worker.js'

const MB = 1024 * 1024

export interface RecyclerOptions {
  logger: Logger
  /** The workers serving now. */
  workers: () => readonly WorkerHandle[]
  /** The settings in force (a reload may change the limit). */
  settings: () => ResolvedSettings
  recycle: (w: WorkerHandle, detail: string) => void
}

/**
 * `gateway_max_memory_mb`: every `recycle_check_interval_s` the workers' resident memory is read
 * (from /proc, or `ps`), and one over the limit is handed to `recycle` (the supervisor replaces
 * it the no-drop way). A worker younger than `RECYCLE_MIN_AGE_MS` is left alone, with one warning:
 * replaced at once, it would start over the limit again.
 */
export class Recycler {
  readonly #o: RecyclerOptions
  #timer: NodeJS.Timeout | null = null
  #checking = false
  readonly #warned = new WeakSet<WorkerHandle>()

  constructor(options: RecyclerOptions) {
    this.#o = options
    this.#schedule()
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = null
  }

  #schedule(): void {
    this.#timer = setTimeout(() => void this.#check().finally(() => this.#timer && this.#schedule()), this.#o.settings().recycle_check_interval_s * 1000)
    this.#timer.unref()
  }

  async #check(): Promise<void> {
    const limitMb = this.#o.settings().gateway_max_memory_mb
    if (limitMb === 0 || this.#checking) return
    this.#checking = true
    try {
      const workers = this.#o.workers().filter((w) => w.phase === 'ready')
      const readings = await readProcesses(workers.map((w) => w.pid))
      for (const w of workers) {
        const rss = readings.get(w.pid)?.rssBytes
        if (rss == null || rss <= limitMb * MB) continue
        const detail = `memory ${Math.round(rss / MB)} MB over gateway_max_memory_mb ${limitMb}`
        if (Date.now() - w.startedAt.getTime() < RECYCLE_MIN_AGE_MS) {
          if (!this.#warned.has(w)) this.#o.logger.warn({ pid: w.pid }, `gateway worker ${w.pid} uses ${Math.round(rss / MB)} MB ${Math.round((Date.now() - w.startedAt.getTime()) / 1000)} s after its start, over gateway_max_memory_mb ${limitMb}: not recycled (it would start over the limit again); raise the limit`)
          this.#warned.add(w)
          continue
        }
        this.#o.recycle(w, detail)
      }
    } finally {
      this.#checking = false
    }
  }
}
