import type { IncomingMessage } from 'node:http'
import { open, unlink, type FileHandle } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import type { Readable } from 'node:stream'
import { SvcError } from '../src/errors.js'

/**
 * A UI request body read in full before the request takes an upstream connection (nginx's
 * `proxy_request_buffering on`): the first `memoryBytes` stay in memory, the rest goes to a
 * temporary file. So a client that trickles its upload holds its own connection and a file, never
 * one of the pool's connections to the sidecar.
 *
 * The file is unlinked as soon as it is open: it has no name on disk, the kernel frees it when
 * its descriptor closes, and so it is gone on every path, a crash or SIGKILL of the worker included.
 */
export interface RequestBodyOptions {
  /** `gateway_max_proxy_request_body_bytes`; 0 = unlimited. */
  maxBytes: number
  memoryBytes: number
  disk: DiskBudget
  /** Where the temporary files go (the OS temp dir, `TMPDIR`). */
  dir?: string
}

/** While this much waits for the disk, the client's body is paused (its TCP window fills). */
const WRITE_HIGH_WATER_BYTES = 64 * 1024

/** Bytes the buffered bodies of one worker keep in temporary files, against `gateway_proxy_buffer_disk_bytes`. */
export class DiskBudget {
  readonly limit: number
  #used = 0

  /** `limit` 0 = unlimited. */
  constructor(limit: number) {
    this.limit = limit
  }

  get used(): number {
    return this.#used
  }

  take(bytes: number): boolean {
    if (this.limit > 0 && this.#used + bytes > this.limit) return false
    this.#used += bytes
    return true
  }

  give(bytes: number): void {
    this.#used -= bytes
  }
}

export function bodyTooLarge(limit: number): SvcError {
  return new SvcError(
    'SVC_ERR_PROXY_BODY_TOO_LARGE',
    `request body exceeds the proxy limit of ${limit} bytes (gateway_max_proxy_request_body_bytes); send large uploads to the API instead`,
  )
}

function bufferFull(budget: DiskBudget, cause?: unknown): SvcError {
  const why = cause === undefined ? `the ${budget.limit} bytes of gateway_proxy_buffer_disk_bytes are in use by other uploads` : `the temporary file could not be written (${(cause as Error).message})`
  return new SvcError('SVC_ERR_PROXY_BUFFER_FULL', `the gateway cannot buffer this request body now: ${why}; retry later`, cause === undefined ? undefined : { cause })
}

export class RequestBody {
  readonly #o: RequestBodyOptions
  #length = 0
  #memory: Buffer[] = []
  /** Opened on the first byte past `memoryBytes`. */
  #file: Promise<FileHandle> | null = null
  /** Bytes reserved on the disk budget (everything written to the file). */
  #reserved = 0
  #queue: Buffer[] = []
  #queued = 0
  /** The chain of writes to the file; rejects on the first failed write. */
  #writes: Promise<void> = Promise.resolve()
  #disposed: Promise<void> | null = null
  /** Ends `read()` at once when a write to the file fails, not only at the body's end. */
  #onWriteError: ((err: SvcError) => void) | null = null

  private constructor(o: RequestBodyOptions) {
    this.#o = o
  }

  /**
   * Read `req` to its end. Rejects with `SVC_ERR_PROXY_BODY_TOO_LARGE` past the limit,
   * `SVC_ERR_PROXY_BUFFER_FULL` when the disk budget or the disk says no, the stream's own
   * error when the client goes away, or an abort error on `signal` (the exchange ended first:
   * Node stops feeding a request whose answer is already out, so `req` may never end or close);
   * the temporary file is released in every case.
   */
  static read(req: IncomingMessage, o: RequestBodyOptions, signal: AbortSignal): Promise<RequestBody> {
    const body = new RequestBody(o)
    return new Promise((resolve, reject) => {
      let settled = false
      const finish = (err: Error | null): void => {
        if (settled) return
        settled = true
        req.off('data', onData)
        req.off('end', onEnd)
        // The 'error' listener stays: a socket that closes mid-body destroys `req` with an error
        // emitted on the next tick, and an abort on `signal` can settle first in between; with no
        // listener left then, the error would be uncaught and end the worker (`finish` ignores it).
        req.off('close', onClose)
        signal.removeEventListener('abort', onAbort)
        if (err === null) {
          resolve(body)
          return
        }
        // The refusal goes out once the budget is given back: a client told 503 may retry (or
        // another upload go on) at once, and must find the bytes of this one freed.
        void body.dispose().then(() => reject(err))
      }
      const onData = (chunk: Buffer): void => {
        const refused = body.#append(chunk)
        if (refused) {
          finish(refused)
          return
        }
        if (body.#queued < WRITE_HIGH_WATER_BYTES) return
        req.pause()
        void body.#writes.then(() => {
          if (!settled) req.resume()
        }, finish)
      }
      const onEnd = (): void => {
        body.#writes.then(() => finish(null), finish)
      }
      const onClose = (): void => {
        if (!req.complete) finish(Object.assign(new Error('the client closed the connection before its body was complete'), { code: 'ECONNRESET' }))
      }
      const onAbort = (): void => finish(Object.assign(new Error('the exchange ended before the request body was complete'), { code: 'ABORT_ERR' }))
      if (signal.aborted) {
        onAbort()
        return
      }
      signal.addEventListener('abort', onAbort)
      body.#onWriteError = finish
      req.on('data', onData)
      req.once('end', onEnd)
      req.once('error', finish)
      req.once('close', onClose)
    })
  }

  get length(): number {
    return this.#length
  }

  /** What undici sends: the bytes themselves, or a stream over the temporary file. */
  async content(): Promise<Buffer | Readable> {
    if (this.#file === null) return this.#memory.length === 1 ? this.#memory[0]! : Buffer.concat(this.#memory)
    const handle = await this.#file
    // The handle stays open until dispose(): the stream must not close it under a retry.
    return handle.createReadStream({ start: 0, end: this.#length - 1, autoClose: false, emitClose: false })
  }

  /** Close the temporary file (its bytes go with it) and give the budget back. Same promise on repeat. */
  dispose(): Promise<void> {
    this.#disposed ??= (async () => {
      this.#memory = []
      this.#queue = []
      const file = this.#file
      if (file !== null) {
        // Writes still running finish first (close waits for them); a failed open has nothing to close.
        await this.#writes.catch(() => undefined)
        await file.then((h) => h.close()).catch(() => undefined)
      }
      this.#o.disk.give(this.#reserved)
      this.#reserved = 0
    })()
    return this.#disposed
  }

  /** Keep `chunk`; a refusal when it passes a limit. */
  #append(chunk: Buffer): SvcError | null {
    if (this.#disposed) return null
    this.#length += chunk.length
    const { maxBytes, memoryBytes, disk } = this.#o
    if (maxBytes > 0 && this.#length > maxBytes) return bodyTooLarge(maxBytes)
    if (this.#file === null && this.#length <= memoryBytes) {
      this.#memory.push(chunk)
      return null
    }
    // The bytes held in memory so far move to the file with this chunk.
    const spilling = this.#file === null
    const pending = spilling ? [...this.#memory, chunk] : [chunk]
    const bytes = spilling ? this.#length : chunk.length
    if (!disk.take(bytes)) return bufferFull(disk)
    this.#reserved += bytes
    if (spilling) {
      this.#memory = []
      this.#file = openUnlinked(this.#o.dir ?? tmpdir())
    }
    this.#queue.push(...pending)
    this.#queued += bytes
    this.#writes = this.#writes.then(() => this.#flush())
    return null
  }

  async #flush(): Promise<void> {
    if (this.#queue.length === 0) return
    const chunks = this.#queue
    this.#queue = []
    this.#queued = 0
    try {
      const handle = await this.#file!
      await handle.writev(chunks)
    } catch (err) {
      const refused = bufferFull(this.#o.disk, err)
      this.#onWriteError?.(refused)
      throw refused
    }
  }
}

/** A new temporary file, already without a name: only its descriptor keeps it. */
async function openUnlinked(dir: string): Promise<FileHandle> {
  const path = join(dir, `svc-body-${process.pid}-${randomUUID()}`)
  const handle = await open(path, 'wx+', 0o600)
  try {
    await unlink(path)
  } catch (err) {
    await handle.close()
    throw err
  }
  return handle
}
