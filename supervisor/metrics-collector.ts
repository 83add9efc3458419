import type { Logger } from 'pino'
import type { WorkerHandle } from './worker.js'

/**
 * One scrape, summed over every gateway worker: ask each ready worker for its prom-client JSON
 * over IPC, wait for all answers (or the deadline), aggregate. Concurrent scrapes share nothing.
 */
const COLLECT_TIMEOUT_MS = 2_000

export class MetricsCollector {
  readonly #logger: Logger
  readonly #workers: () => WorkerHandle[]
  #nextId = 1
  readonly #pending = new Map<number, { expected: number; data: unknown[]; done: () => void }>()

  readonly #tree: () => Promise<unknown[]>

  /** `tree`: the supervisor's own series (tree-metrics.ts), summed into the scrape like a worker's. */
  constructor(logger: Logger, workers: () => WorkerHandle[], tree: () => Promise<unknown[]> = async () => []) {
    this.#logger = logger
    this.#workers = workers
    this.#tree = tree
  }

  async collect(): Promise<string> {
    const workers = this.#workers()
    const id = this.#nextId++
    const data: unknown[] = []
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#logger.warn(`metrics: ${workers.length - data.length} worker(s) did not answer within ${COLLECT_TIMEOUT_MS} ms`)
        done()
      }, COLLECT_TIMEOUT_MS)
      const done = (): void => {
        clearTimeout(timer)
        this.#pending.delete(id)
        resolve()
      }
      this.#pending.set(id, { expected: workers.length, data, done })
      for (const w of workers) w.send({ svc: 1, type: 'metrics_collect', id })
      if (workers.length === 0) done()
    })
    // Loaded on the first scrape: prom-client is optional and only needed with metrics on.
    const { aggregateWorkerMetrics } = await import('../src/internal/prom-client.js')
    return aggregateWorkerMetrics([...data, await this.#tree()])
  }

  receive(id: number, data: unknown): void {
    const p = this.#pending.get(id)
    if (!p) return
    p.data.push(data)
    if (p.data.length >= p.expected) p.done()
  }
}
