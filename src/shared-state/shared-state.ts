import type { Logger } from 'pino'
import { MemoryOidcBffStore, type OidcBffStore } from '../auth/oidc-store.js'
import { Lifecycle } from '../internal/lifecycle.js'
import type { ResolvedSettings } from '../settings/schema.js'
import { InMemorySessionStore, type SessionStore } from '../ui/url-session.js'
import { RedisConnection, type RedisProbe } from './redis-connection.js'
import { FileUserStore, type UserStore } from '../ui/storage/user-store.js'
import { RedisUserStore } from './redis-user-store.js'
import { RedisOidcBffStore, RedisSessionRevocations, RedisSessionStore } from './redis-stores.js'
import { SessionRevocations } from '../auth/session-revocations.js'

export type SharedStateSettings = Pick<ResolvedSettings, 'redis_url' | 'redis_key_prefix' | 'redis_timeout_s' | 'redis_max_value_bytes'> & Partial<Pick<ResolvedSettings, 'ui_user_storage_dir'>>

/**
 * The state an app shares between its replicas and processes: on Redis when `redis_url` is set,
 * else in this process's memory (right for one machine with one worker). Nothing connects until
 * a store is used or readyz probes.
 */
export class SharedState extends Lifecycle {
  readonly redis: RedisConnection | null
  #oidc: OidcBffStore | null = null
  #sessions: SessionStore | null = null
  #users: UserStore | null = null
  readonly #userDir: string
  #revocations: SessionRevocations | null = null

  constructor(settings: SharedStateSettings, logger: Logger) {
    super()
    this.#userDir = settings.ui_user_storage_dir ?? '.svc/user-storage'
    this.redis = settings.redis_url
      ? new RedisConnection({
          url: settings.redis_url,
          keyPrefix: settings.redis_key_prefix,
          timeoutMs: settings.redis_timeout_s * 1000,
          maxValueBytes: settings.redis_max_value_bytes,
          logger,
        })
      : null
  }

  get oidcStore(): OidcBffStore {
    this.#oidc ??= this.redis ? new RedisOidcBffStore(this.redis) : new MemoryOidcBffStore()
    return this.#oidc
  }

  /** Ended sign-ins (sign-out): this tree's, and every replica's with Redis. */
  get sessionRevocations(): SessionRevocations {
    this.#revocations ??= new SessionRevocations(this.redis ? new RedisSessionRevocations(this.redis) : null)
    return this.#revocations
  }

  get sessionStore(): SessionStore {
    this.#sessions ??= this.redis ? new RedisSessionStore(this.redis) : new InMemorySessionStore()
    return this.#sessions
  }

  /** `st.userStorage`: Redis when `redis_url` is set, else files under `ui_user_storage_dir` (one machine). */
  get userStore(): UserStore {
    this.#users ??= this.redis ? new RedisUserStore(this.redis) : new FileUserStore(this.#userDir)
    return this.#users
  }

  /** Null when no shared backend is configured (nothing to be unready about). */
  async probe(): Promise<RedisProbe | null> {
    return this.redis ? this.redis.probe() : null
  }

  protected drain(): Promise<void> {
    return this.redis ? this.redis.close() : Promise.resolve()
  }

  protected abort(err: Error | undefined): Promise<void> {
    return this.redis ? this.redis.destroy(err) : Promise.resolve()
  }
}

/**
 * readyz's view: not ready while the configured Redis does not answer a PING within the deadline,
 * or answers but refuses a small write (full under `maxmemory` with `noeviction`, `MISCONF`, a
 * read-only replica): logins and page sessions could not be saved on this replica.
 */
export async function redisReadiness(shared: SharedState): Promise<string | null> {
  const probe = await shared.probe()
  if (probe === null) return null
  if (!probe.ok) return `redis_unavailable: ${probe.detail ?? 'no answer'}`
  if (probe.writeRefused !== null) return `redis_refuses_writes: ${probe.writeRefused}`
  return null
}
