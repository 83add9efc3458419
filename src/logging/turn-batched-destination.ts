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
/** UTF-8 needs at most 3 bytes per UTF-16 code unit. */
const MAX_BYTES_PER_CHAR = 3

class TurnBatchedDestination implements DestinationStream {
  readonly #sink: ReturnType<typeof pino.destination>
  readonly #buffer = Buffer.allocUnsafe(BUFFER_BYTES)
  #used = 0
  #scheduled = false

  constructor(fd: number) {
    this.#sink = pino.destination({ dest: fd, sync: true, contentMode: 'buffer' })
  }

  write(line: string): void {
    const worstCase = line.length * MAX_BYTES_PER_CHAR
    if (this.#used + worstCase > BUFFER_BYTES) {
      this.flushSync()
      if (worstCase > BUFFER_BYTES) {
        this.#sink.write(Buffer.from(line) as unknown as string)
        return
      }
    }
    this.#used += this.#buffer.write(line, this.#used)
    if (!this.#scheduled) {
      this.#scheduled = true
      setImmediate(this.#endOfTurn)
    }
  }

  /** Write what is pending now. */
  flushSync(): void {
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

let stdout: TurnBatchedDestination | null = null

/** The process's one stdout destination: every root logger shares it, so lines keep their order. */
export function stdoutDestination(): DestinationStream & { flushSync(): void } {
  if (stdout === null) {
    const destination = new TurnBatchedDestination(1)
    process.once('exit', () => destination.flushSync())
    stdout = destination
  }
  return stdout
}
