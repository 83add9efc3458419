import type { Logger } from 'pino'
import type { RedisClientType } from 'redis'
import { SvcError, isSvcError } from '../errors.js'
import type { Closable } from '../internal/closable.js'

export interface RedisConnectionOptions {
  url: string
  /** Namespace for every key svc writes (`svc:` by default). */
  keyPrefix: string
  /** Connect and per-command deadline in ms. */
  timeoutMs: number
  logger: Logger
}

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
}

/**
 * One Redis client per process, created on first use (the `redis` package is imported only then,
 * so an app without `redis_url` never loads it). Commands fail fast while Redis is away: the
 * offline queue is off and every command has the deadline, so a request that needs Redis gets a
 * clear `SVC_ERR_REDIS_UNAVAILABLE` (503) instead of hanging. The client keeps reconnecting in
 * the background with a capped back-off; the outage is logged once, and the recovery once.
 */
export class RedisConnection implements RedisCommands, Closable {
  readonly keyPrefix: string
  readonly #opts: RedisConnectionOptions
  #client: Promise<RedisClientType> | null = null
  #down = false
  #closing: Promise<void> | null = null

  constructor(options: RedisConnectionOptions) {
    this.#opts = options
    this.keyPrefix = options.keyPrefix
  }

  /** `host:port` of the URL, without credentials (for logs and `svc doctor`). */
  get address(): string {
    return redisAddress(this.#opts.url)
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    await this.#run('SET', (c) => c.set(this.keyPrefix + key, value, { expiration: { type: 'EX', value: Math.max(1, Math.ceil(ttlSeconds)) } }))
  }

  async get(key: string): Promise<string | null> {
    return this.#run('GET', (c) => c.get(this.keyPrefix + key))
  }

  async getDel(key: string): Promise<string | null> {
    return this.#run('GETDEL', (c) => c.getDel(this.keyPrefix + key))
  }

  async del(key: string): Promise<void> {
    await this.#run('DEL', (c) => c.del(this.keyPrefix + key))
  }

  async expire(key: string, ttlSeconds: number): Promise<void> {
    await this.#run('EXPIRE', (c) => c.expire(this.keyPrefix + key, Math.max(1, Math.ceil(ttlSeconds))))
  }

  /** PING with the deadline, plus the server version; never throws (readyz and doctor read it). */
  async probe(): Promise<RedisProbe> {
    try {
      const client = await this.#connected()
      const started = performance.now()
      await withDeadline(client.ping(), this.#opts.timeoutMs, 'PING')
      const latencyMs = performance.now() - started
      const info = await withDeadline(client.info('server'), this.#opts.timeoutMs, 'INFO')
      const version = /redis_version:([^\r\n]+)/.exec(info)?.[1] ?? null
      return { ok: true, latencyMs, version, detail: null }
    } catch (err) {
      return { ok: false, latencyMs: null, version: null, detail: describe(err) }
    }
  }

  close(): Promise<void> {
    this.#closing ??= this.#stop((c) => c.close())
    return this.#closing
  }

  destroy(): Promise<void> {
    this.#closing ??= this.#stop((c) => Promise.resolve(c.destroy()))
    return this.#closing
  }

  async #stop(how: (c: RedisClientType) => Promise<unknown>): Promise<void> {
    const pending = this.#client
    if (!pending) return
    const client = await pending.catch(() => null)
    if (client?.isOpen) await how(client).catch(() => undefined)
  }

  async #run<T>(command: string, call: (c: RedisClientType) => Promise<T>): Promise<T> {
    if (this.#closing) throw unavailable(`${command}: the connection is closed`, this.address)
    try {
      const client = await this.#connected()
      const result = await withDeadline(call(client), this.#opts.timeoutMs, command)
      this.#markUp()
      return result
    } catch (err) {
      this.#markDown(err)
      throw isSvcError(err) ? err : unavailable(`${command}: ${describe(err)}`, this.address, err)
    }
  }

  #connected(): Promise<RedisClientType> {
    this.#client ??= this.#open()
    return this.#client.then((client) => {
      if (!client.isReady) throw unavailable('not connected (reconnecting)', this.address)
      return client
    })
  }

  async #open(): Promise<RedisClientType> {
    const { createClient } = await import('redis')
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
    client.on('error', (err: unknown) => this.#markDown(err))
    client.on('ready', () => this.#markUp())
    // The first connect may fail; the client goes on reconnecting, and commands fail fast meanwhile.
    void withDeadline(client.connect(), timeoutMs, 'CONNECT').catch((err: unknown) => this.#markDown(err))
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
    if (this.#down || this.#closing) return
    this.#down = true
    this.#opts.logger.error({ redis: this.address, err: describe(err) }, 'redis unavailable: features that share state across replicas answer 503 until it is back')
  }

  #markUp(): void {
    if (!this.#down) return
    this.#down = false
    this.#opts.logger.info({ redis: this.address }, 'redis available again')
  }
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

async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms)
    timer.unref()
  })
  try {
    return await Promise.race([work, deadline])
  } finally {
    clearTimeout(timer)
  }
}
