import { mkdirSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import { createStream, type RotatingFileStream } from 'rotating-file-stream'
import type { ResolvedSettings } from '../src/settings/schema.js'
import { Lifecycle } from '../src/internal/lifecycle.js'

/** A line longer than this is written as it comes (a child that never ends its lines must not grow the supervisor). */
const MAX_PENDING_LINE_BYTES = 1024 * 1024

/** `20261128-174501`: when a rotated file was closed, in local time as `ls` shows it. */
function stamp(time: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0')
  return `${time.getFullYear()}${p(time.getMonth() + 1)}${p(time.getDate())}-${p(time.getHours())}${p(time.getMinutes())}${p(time.getSeconds())}`
}

/** `10m` → `10M`, `512k` → `512K`, `2048` → `2048B` (rotating-file-stream's units). */
function sizeOption(size: string): string | undefined {
  if (size === '') return undefined
  return /[kmg]$/.test(size) ? size.toUpperCase() : `${size}B`
}

/**
 * `log_file`: the tree's log in a file the supervisor alone writes, rotated by size and time with
 * rotating-file-stream (the current file keeps its name; rotated ones are `<name>.<date-time>[-n]`,
 * the oldest beyond `log_file_count` deleted). The supervisor's own logger writes here, and each
 * child's stdout is piped here whole line by whole line, so lines of different processes never
 * mix. `reopen()` (SIGUSR2) starts a fresh file at the same path, for an outside logrotate.
 */
export class LogFile extends Lifecycle {
  readonly path: string
  readonly #settings: Pick<ResolvedSettings, 'log_file_size' | 'log_file_frequency' | 'log_file_count'>
  #stream: RotatingFileStream
  readonly #sources = new Set<Readable>()

  constructor(settings: Pick<ResolvedSettings, 'log_file' | 'log_file_size' | 'log_file_frequency' | 'log_file_count'>) {
    super()
    this.path = resolve(settings.log_file)
    this.#settings = settings
    mkdirSync(dirname(this.path), { recursive: true })
    this.#stream = this.#open()
  }

  /** Where the supervisor's pino logger writes. */
  readonly destination = {
    write: (line: string): void => {
      this.#stream.write(line)
    },
  }

  /** Copy `stream` (a child's stdout) into the file, a whole line at a time. */
  pipeFrom(stream: Readable): void {
    this.#sources.add(stream)
    let pending = ''
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      const data = pending + chunk
      const end = data.lastIndexOf('\n')
      if (end === -1 && data.length < MAX_PENDING_LINE_BYTES) {
        pending = data
        return
      }
      const whole = end === -1 ? data : data.slice(0, end + 1)
      pending = end === -1 ? '' : data.slice(end + 1)
      this.#stream.write(whole)
    })
    stream.once('end', () => {
      if (pending !== '') this.#stream.write(pending + '\n')
      this.#sources.delete(stream)
    })
  }

  /** Close the file and open the same path again (after `logrotate` moved it away). */
  reopen(): void {
    const old = this.#stream
    this.#stream = this.#open()
    old.end()
  }

  protected async drain(): Promise<void> {
    await new Promise<void>((resolveEnd) => this.#stream.end(resolveEnd))
  }

  protected async abort(): Promise<void> {
    this.#stream.destroy()
  }

  #open(): RotatingFileStream {
    const name = basename(this.path)
    const s = this.#settings
    const rotated = (time: number | Date, index?: number): string => `${name}.${stamp(time instanceof Date ? time : new Date(time))}${index && index > 1 ? `-${index}` : ''}`
    const stream = createStream((time, index) => (time ? rotated(time, index) : name), {
      path: dirname(this.path),
      size: sizeOption(s.log_file_size),
      interval: s.log_file_frequency === 'daily' ? '1d' : s.log_file_frequency === 'hourly' ? '1h' : undefined,
      intervalBoundary: true,
      maxFiles: s.log_file_count,
    })
    // A full disk or a removed folder must not end the supervisor: the log is lost, the tree serves on.
    stream.on('error', (err) => process.stderr.write(`svc: cannot write the log file ${this.path}: ${err.message}\n`))
    return stream
  }
}
