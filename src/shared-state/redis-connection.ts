import { AsyncLocalStorage } from 'node:async_hooks'
import { subscribe } from 'node:diagnostics_channel'
import type { Socket } from 'node:net'
import type { Logger } from 'pino'
import type { RedisClientType } from 'redis'
import { SvcError, isSvcError } from '../errors.js'
import { Lifecycle } from '../internal/lifecycle.js'
import { FIELDS } from '../settings/schema.js'

export interface RedisConnectionOptions {
  url: string
  /** Namespace for every key svc writes (`svc:` by default). */
  keyPrefix: string
  /** Connect and per-command deadline in ms. */
  timeoutMs: number
  /** Largest value svc writes or reads (`redis_max_value_bytes`, its default when left out); a reply much larger ends the connection. */
  maxValueBytes?: number
  logger: Logger
}

/** What a reply may carry beyond one value (RESP framing, INFO, the start of the next reply) before the connection is cut. */
export const REPLY_SLACK_BYTES = 64 * 1024
/** readyz's write probe: one key per prefix, overwritten by every probe, gone by itself. */
const PROBE_KEY = 'readyz-probe'
const PROBE_TTL_MS = 10_000

/** The few commands svc's stores use; values are strings (JSON written by the stores). */
export interface RedisCommands {
  set(key: string, value: string, ttlSeconds: number): Promise<void>
  get(key: string): Promise<string | null>
  getDel(key: string): Promise<string | null>
  del(key: string): Promise<void>
  expire(key: string, ttlSeconds: number): Promise<void>
}

export interface RedisProbe {
  ok: boolean
  /** Round trip of a PING in ms, when it answered. */
  latencyMs: number | null
  version: string | null
  detail: string | null
  /** Redis answers but refused a small write (OOM under `maxmemory`, MISCONF, READONLY): its error. */
  writeRefused: string | null
}

/**
 * One Redis client per process, created on first use (the `redis` package is imported only then,
 * so an app without `redis_url` never loads it). Commands fail fast while Redis is away: the
 * offline queue is off and every command has the deadline, so a request that needs Redis gets a
 * clear `SVC_ERR_REDIS_UNAVAILABLE` (503) instead of hanging. The client keeps reconnecting in
 * the background with a capped back-off; the outage is logged once, and the recovery once.
 *
 * What svc reads is bounded: values are written and read up to `maxValueBytes` (GET asks for no
 * more), and on a plain TCP connection a reply stream that grows past that plus
 * `REPLY_SLACK_BYTES` without a reply completing (an endless bulk string from a broken or hostile
 * server) ends the connection, which then reconnects.
 */
export class RedisConnection extends Lifecycle implements RedisCommands {
  readonly keyPrefix: string
  readonly #opts: Required<RedisConnectionOptions>
  #client: Promise<RedisClientType> | null = null
  /** A second connection in subscriber mode (RESP2 allows no other command on it), opened by the first `subscribe`. */
  #subscriber: Promise<RedisClientType> | null = null
  #subscriberClient: RedisClientType | null = null
  /** Aborted by destroy(): commands still waiting fail with its error. */
  readonly #aborted = new AbortController()
  #down = false
  /** Bytes received since the last reply completed, on the current connection. */
  #unanswered = 0
  /** node-redis's class for error replies (`OOM …`), known once the package is loaded. */
  #errorReply: (new (...args: never[]) => Error) | null = null
  /** The last write Redis refused, logged once until a write succeeds. */
  #refused: string | null = null
  /** Why the client last lost or failed its connection (`NOAUTH …`, `ECONNREFUSED …`), for messages. */
  #lastError: string | null = null

  constructor(options: RedisConnectionOptions) {
    super()
    this.#opts = { ...options, maxValueBytes: options.maxValueBytes ?? FIELDS.redis_max_value_bytes.default }
    this.keyPrefix = options.keyPrefix
  }

  /** `host:port` of the URL, without credentials (for logs and `svc doctor`). */
  get address(): string {
    return redisAddress(this.#opts.url)
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    const bytes = Buffer.byteLength(value)
    if (bytes > this.#opts.maxValueBytes) {
      throw new SvcError(
        'SVC_ERR_REDIS_VALUE_TOO_LARGE',
        `a ${kindOf(key)} value of ${bytes} bytes is over redis_max_value_bytes (${this.#opts.maxValueBytes}); not written. Keep less in it, or raise the setting`,
      )
    }
    await this.#run('SET', (c) => c.set(this.keyPrefix + key, value, { expiration: { type: 'EX', value: Math.max(1, Math.ceil(ttlSeconds)) } }))
  }

  /** Null for a missing key (svc never writes an empty value) and for one over the size limit (logged). */
  async get(key: string): Promise<string | null> {
    // At most one byte over the limit comes back, however large the value is.
    const raw = await this.#run('GET', (c) => c.getRange(this.keyPrefix + key, 0, this.#opts.maxValueBytes))
    return this.#bounded(key, raw === '' ? null : raw)
  }

  async getDel(key: string): Promise<string | null> {
    return this.#bounded(key, await this.#run('GETDEL', (c) => c.getDel(this.keyPrefix + key)))
  }

  async del(key: string): Promise<void> {
    await this.#run('DEL', (c) => c.del(this.keyPrefix + key))
  }

  async expire(key: string, ttlSeconds: number): Promise<void> {
    await this.#run('EXPIRE', (c) => c.expire(this.keyPrefix + key, Math.max(1, Math.ceil(ttlSeconds))))
  }

  /** One field of a hash (per-user storage keeps a user's values in one hash, without expiry). */
  async hGet(key: string, field: string): Promise<string | null> {
    return this.#bounded(key, (await this.#run('HGET', (c) => c.hGet(this.keyPrefix + key, field))) ?? null)
  }

  async hSet(key: string, field: string, value: string): Promise<void> {
    const bytes = Buffer.byteLength(value)
    if (bytes > this.#opts.maxValueBytes) {
      throw new SvcError('SVC_ERR_REDIS_VALUE_TOO_LARGE', `a ${kindOf(key)} value of ${bytes} bytes is over redis_max_value_bytes (${this.#opts.maxValueBytes}); not written. Keep less in it, or raise the setting`)
    }
    // Counted as a write: a Redis that refuses writes is reported like for SET.
    await this.#run('SET', (c) => c.hSet(this.keyPrefix + key, field, value))
  }

  async hDel(key: string, field: string): Promise<void> {
    await this.#run('HDEL', (c) => c.hDel(this.keyPrefix + key, field))
  }

  async hExists(key: string, field: string): Promise<boolean> {
    return (await this.#run('HEXISTS', (c) => c.hExists(this.keyPrefix + key, field))) === 1
  }

  async hLen(key: string): Promise<number> {
    return this.#run('HLEN', (c) => c.hLen(this.keyPrefix + key))
  }

  async hKeys(key: string): Promise<string[]> {
    return this.#run('HKEYS', (c) => c.hKeys(this.keyPrefix + key))
  }

  /** PUBLISH `message` on `channel` (under the key prefix); resolves once Redis took it. */
  async publish(channel: string, message: string): Promise<void> {
    await this.#run('PUBLISH', (c) => c.publish(this.keyPrefix + channel, message))
  }

  /**
   * Call `listener` with every message published on `channel` (under the key prefix), by this
   * process or any other, from now on. The subscription lives on a connection of its own, opened
   * by the first call (again every 2 s while Redis is away), which reconnects and subscribes
   * again by itself after an outage. Messages published meanwhile are not delivered: readers that
   * must not miss one also read the key the message announces.
   */
  subscribe(channel: string, listener: (message: string) => void): void {
    if (this.closed) return
    const opened = (this.#subscriber ??= this.#openSubscriber())
    void opened.then((sub) => sub.subscribe(this.keyPrefix + channel, (message) => listener(message))).catch(() => undefined)
  }

  async #openSubscriber(): Promise<RedisClientType> {
    let client: RedisClientType | null = null
    while (client === null) {
      client = await this.#connected().catch(async (err: unknown) => {
        if (this.closed) throw err
        await new Promise((resolve) => setTimeout(resolve, 2_000).unref())
        return null
      })
    }
    const sub = client.duplicate() as RedisClientType
    this.#subscriberClient = sub
    sub.on('error', (err: unknown) => (this.#lastError = describe(err)))
    // Retries by itself (the reconnect strategy is the main client's) until it connects or is destroyed.
    await sub.connect()
    return sub
  }

  /**
   * PING with the deadline, the server version, and a small write (a key that expires by itself),
   * so that a Redis that answers but refuses every write (`maxmemory` with `noeviction`,
   * `MISCONF`, a read-only replica) is told apart; never throws (readyz and doctor read it).
   */
  async probe(): Promise<RedisProbe> {
    try {
      const client = await this.#connected()
      const started = performance.now()
      await withDeadline(client.ping(), this.#opts.timeoutMs, 'PING')
      const latencyMs = performance.now() - started
      const info = await withDeadline(client.info('server'), this.#opts.timeoutMs, 'INFO')
      this.#unanswered = 0
      const version = /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? null
      let writeRefused: string | null = null
      try {
        await this.#run('SET', (c) => c.set(this.keyPrefix + PROBE_KEY, '1', { expiration: { type: 'PX', value: PROBE_TTL_MS } }))
      } catch (err) {
        const cause = (err as Error).cause
        if (!this.#isErrorReply(cause)) throw err
        writeRefused = describe(cause)
      }
      return { ok: true, latencyMs, version, detail: null, writeRefused }
    } catch (err) {
      return { ok: false, latencyMs: null, version: null, detail: describe(err), writeRefused: null }
    }
  }

  /** QUIT: Redis answers what was sent first. */
  protected drain(): Promise<void> {
    return this.#stop((c) => c.close())
  }

  /** Drop the socket; commands still waiting for an answer fail now, with `err`. */
  protected abort(err: Error | undefined): Promise<void> {
    this.#aborted.abort(err ?? unavailable('the connection was destroyed', this.address))
    return this.#stop((c) => Promise.resolve(c.destroy()))
  }

  async #stop(how: (c: RedisClientType) => Promise<unknown>): Promise<void> {
    const sub = this.#subscriberClient
    if (sub?.isReady) await how(sub).catch(() => undefined)
    else if (sub) sub.destroy()
    const pending = this.#client
    if (!pending) return
    const client = await pending.catch(() => null)
    if (client?.isOpen) await how(client).catch(() => undefined)
  }

  async #run<T>(command: string, call: (c: RedisClientType) => Promise<T>): Promise<T> {
    if (this.closed) throw unavailable(`${command}: the connection is closed`, this.address)
    try {
      const client = await this.#connected()
      const result = await withDeadline(call(client), this.#opts.timeoutMs, command, this.#aborted.signal)
      this.#unanswered = 0
      this.#markUp()
      if (command === 'SET') this.#writesAccepted()
      return result
    } catch (err) {
      if (this.#isErrorReply(err)) {
        // Redis answered, with a refusal: the connection is fine, the command is not.
        this.#unanswered = 0
        if (command === 'SET') this.#writeRefused(err)
        throw new SvcError('SVC_ERR_REDIS_UNAVAILABLE', `redis at ${this.address} refused ${command}: ${describe(err)}`, { cause: err })
      }
      this.#markDown(err)
      throw isSvcError(err) ? err : unavailable(`${command}: ${describe(err)}`, this.address, err)
    }
  }

  #isErrorReply(err: unknown): err is Error {
    return this.#errorReply !== null && err instanceof this.#errorReply
  }

  #writeRefused(err: Error): void {
    const detail = describe(err)
    if (this.#refused === detail) return
    this.#refused = detail
    this.#opts.logger.error({ redis: this.address, err: detail }, 'redis refuses writes: sessions and login state are not saved until it accepts them again (readyz answers 503)')
  }

  #writesAccepted(): void {
    if (this.#refused === null) return
    this.#refused = null
    this.#opts.logger.info({ redis: this.address }, 'redis accepts writes again')
  }

  /** `raw`, or null (and an error logged) when it is over the size limit. */
  #bounded(key: string, raw: string | null): string | null {
    if (raw === null) return null
    const limit = this.#opts.maxValueBytes
    if (raw.length <= limit / 3 || Buffer.byteLength(raw) <= limit) return raw
    this.#opts.logger.error(
      { redis: this.address, code: 'SVC_ERR_REDIS_VALUE_TOO_LARGE', kind: kindOf(key), limit },
      `redis holds a ${kindOf(key)} value over redis_max_value_bytes (${limit}); ignored, as if missing (written by something else than this svc, or with a larger limit)`,
    )
    return null
  }

  /**
   * Count what arrives on a new connection of this client: past the limit without a reply
   * completing, the stream is not a reply svc can use, and the connection ends (node-redis
   * reconnects; the commands waiting on it fail with SVC_ERR_REDIS_UNAVAILABLE).
   */
  #watch(socket: Socket): void {
    this.#unanswered = 0
    const limit = this.#opts.maxValueBytes + REPLY_SLACK_BYTES
    socket.on('data', (chunk: Buffer) => {
      this.#unanswered += chunk.length
      if (this.#unanswered <= limit) return
      this.#unanswered = 0
      this.#opts.logger.error(
        { redis: this.address, code: 'SVC_ERR_REDIS_REPLY_TOO_LARGE', limit },
        `redis sent over ${limit} bytes without completing a reply (redis_max_value_bytes + ${REPLY_SLACK_BYTES}); connection closed, reconnecting. Is redis_url a real Redis?`,
      )
      socket.destroy(new Error(`the server sent a reply over ${limit} bytes (redis_max_value_bytes)`))
    })
  }

  #connected(): Promise<RedisClientType> {
    this.#client ??= this.#open()
    return this.#client.then((client) => {
      if (!client.isReady) throw unavailable(`not connected (reconnecting${this.#lastError ? `; last error: ${this.#lastError}` : ''})`, this.address)
      return client
    })
  }

  async #open(): Promise<RedisClientType> {
    const { createClient, ErrorReply } = await import('redis')
    this.#errorReply = ErrorReply
    watchNewSockets()
    const timeoutMs = this.#opts.timeoutMs
    const client = createClient({
      url: this.#opts.url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: timeoutMs,
        // Keep trying for good (a Redis restart must heal by itself), at most every 2 s.
        reconnectStrategy: (retries: number) => Math.min(100 * 2 ** Math.min(retries, 5), 2_000),
      },
    }) as unknown as RedisClientType
    client.on('error', (err: unknown) => {
      this.#lastError = describe(err)
      this.#markDown(err)
    })
    client.on('ready', () => this.#markUp())
    // The first connect may fail; the client goes on reconnecting, and commands fail fast meanwhile.
    // Its sockets, reconnects included, are created in this context, so they are watched.
    const watch = (socket: Socket): void => this.#watch(socket)
    void newSocketWatch.run(watch, () => withDeadline(client.connect(), timeoutMs, 'CONNECT')).catch((err: unknown) => this.#markDown(err))
    await new Promise<void>((resolve) => {
      if (client.isReady) return resolve()
      const timer = setTimeout(resolve, timeoutMs)
      timer.unref()
      client.once('ready', () => {
        clearTimeout(timer)
        resolve()
      })
    })
    return client
  }

  #markDown(err: unknown): void {
    if (this.#down || this.closed) return
    this.#down = true
    this.#opts.logger.error({ redis: this.address, err: describe(err) }, 'redis unavailable: features that share state across replicas answer 503 until it is back')
  }

  #markUp(): void {
    if (!this.#down) return
    this.#down = false
    this.#opts.logger.info({ redis: this.address }, 'redis available again')
  }
}

/**
 * node-redis gives no access to its socket. Node announces every TCP client socket it creates on
 * the `net.client.socket` diagnostics channel; the one node-redis creates for a RedisConnection
 * (first connect and every reconnect, which run in the async context of `client.connect()`)
 * finds that connection's watcher here. A TLS socket (`rediss://`) is not announced: there the
 * deadline and the value limit on GET apply, and the server is authenticated by its certificate.
 */
const newSocketWatch = new AsyncLocalStorage<(socket: Socket) => void>()
let watchingSockets = false

function watchNewSockets(): void {
  if (watchingSockets) return
  watchingSockets = true
  subscribe('net.client.socket', (message) => newSocketWatch.getStore()?.((message as { socket: Socket }).socket))
}

/** What a key holds, for messages: its first segment (`page-session`), never the id after it. */
function kindOf(key: string): string {
  const colon = key.indexOf(':')
  return colon === -1 ? key : key.slice(0, colon)
}

/** `redis://user:pass@host:6379/0` → `host:6379` (never the credentials). */
export function redisAddress(url: string): string {
  try {
    const u = new URL(url)
    return `${u.hostname}:${u.port || '6379'}`
  } catch {
    return '(invalid url)'
  }
}

function unavailable(what: string, address: string, cause?: unknown): SvcError {
  return new SvcError('SVC_ERR_REDIS_UNAVAILABLE', `redis at ${address} is unavailable (${what}); check redis_url / SVC_REDIS_URL and that Redis is up`, cause === undefined ? undefined : { cause })
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as Error & { code?: string }).code
    return code ? `${code}: ${err.message}` : err.message
  }
  return String(err)
}

async function withDeadline<T>(work: Promise<T>, ms: number, what: string, signal?: AbortSignal): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  let onAbort = (): void => {}
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms)
    timer.unref()
    onAbort = () => reject(signal!.reason as Error)
    if (signal?.aborted) onAbort()
    else signal?.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([work, deadline])
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
  }
}
