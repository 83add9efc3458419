import { pino, type DestinationStream } from 'pino'

/**
 * The stdout of every svc process: the log lines written during one event-loop turn are encoded
 * into one buffer as they arrive and reach the file descriptor in one synchronous write when the
 * turn ends (`setImmediate`), through pino's own SonicBoom (partial writes and EAGAIN handled
 * there).
 *
 * Why: a busy gateway worker writes one access-log line per request. One `write(2)` per line, or
 * pino's async mode (a thread-pool round trip per write, and the pending lines kept as one long
 * string that is measured and encoded twice), cost 10–15% of proxy throughput in
 * `bench/proxy.ts`. Order is kept (one queue for every logger of the process). Lines never wait
 * past the current turn, a turn that logs more than the buffer holds writes at once, and the
 * process flushes on exit. Like pino's default destination, a consumer that stops reading stdout
 * blocks the process instead of growing its memory.
 */
const BUFFER_BYTES = 64 * 1024
/** Deferred records formatted before a turn's lines are written (see `deferLine`). */
const MAX_DEFERRED = 1024
/** UTF-8 needs at most 3 bytes per UTF-16 code unit. */
const MAX_BYTES_PER_CHAR = 3

/** Turns a record into one log line (with its newline). */
export type LineFormatter<T> = (record: T) => string

/**
 * A destination that also takes records to format at the end of the turn. The access log uses
 * it: formatting the turn's lines in one tight loop costs measurably less in a busy worker than
 * formatting each between two requests.
 */
export interface DeferringDestination extends DestinationStream {
  deferLine<T>(format: LineFormatter<T>, record: T): void
}

export function isDeferringDestination(stream: unknown): stream is DeferringDestination {
  return stream instanceof TurnBatchedDestination
}

class TurnBatchedDestination implements DeferringDestination {
  readonly #sink: ReturnType<typeof pino.destination>
  readonly #buffer = Buffer.allocUnsafe(BUFFER_BYTES)
  #used = 0
  #scheduled = false
  /** Formatter, record, formatter, record, …: written before any later line, so order holds. */
  readonly #deferred: unknown[] = []

  constructor(fd: number) {
    this.#sink = pino.destination({ dest: fd, sync: true, contentMode: 'buffer' })
  }

  deferLine<T>(format: LineFormatter<T>, record: T): void {
    this.#deferred.push(format, record)
    if (this.#deferred.length >= 2 * MAX_DEFERRED) this.#formatDeferred()
    this.#schedule()
  }

  write(line: string): void {
    if (this.#deferred.length > 0) this.#formatDeferred()
    this.#append(line)
  }

  #formatDeferred(): void {
    const deferred = this.#deferred
    let lines = ''
    for (let i = 0; i < deferred.length; i += 2) lines += (deferred[i] as LineFormatter<unknown>)(deferred[i + 1])
    deferred.length = 0
    this.#append(lines)
  }

  #append(line: string): void {
    const worstCase = line.length * MAX_BYTES_PER_CHAR
    if (this.#used + worstCase > BUFFER_BYTES) {
      this.flushSync()
      if (worstCase > BUFFER_BYTES) {
        this.#sink.write(Buffer.from(line) as unknown as string)
        return
      }
    }
    this.#used += this.#buffer.write(line, this.#used)
    this.#schedule()
  }

  #schedule(): void {
    if (!this.#scheduled) {
      this.#scheduled = true
      setImmediate(this.#endOfTurn)
    }
  }

  /** Write what is pending now. */
  flushSync(): void {
    if (this.#deferred.length > 0) this.#formatDeferred()
    if (this.#used === 0) return
    // A copy: the sink keeps what it could not write yet, and the buffer is reused at once.
    const pending = Buffer.from(this.#buffer.subarray(0, this.#used))
    this.#used = 0
    this.#sink.write(pending as unknown as string)
  }

  /** pino's `logger.flush(cb)` lands here; the sink is synchronous, so all is written. */
  flush(cb?: (err?: Error) => void): void {
    this.flushSync()
    cb?.()
  }

  readonly #endOfTurn = (): void => {
    this.#scheduled = false
    this.flushSync()
  }
}

/** A destination on `fd`; processes use the shared `stdoutDestination()`. */
export function createTurnBatchedDestination(fd: number): DeferringDestination & { flushSync(): void } {
  return new TurnBatchedDestination(fd)
}

let stdout: (DeferringDestination & { flushSync(): void }) | null = null

/** The process's one stdout destination: every root logger shares it, so lines keep their order. */
export function stdoutDestination(): DeferringDestination & { flushSync(): void } {
  if (stdout === null) {
    const destination = createTurnBatchedDestination(1)
    process.once('exit', () => destination.flushSync())
    stdout = destination
  }
  return stdout
}
