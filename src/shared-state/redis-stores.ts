import type { OidcBffStore } from '../auth/oidc-store.js'
import type { RevocationBackend } from '../auth/session-revocations.js'
import type { SessionData, SessionStore } from '../ui/url-session.js'
import type { RedisCommands, RedisConnection } from './redis-connection.js'

/** OIDC back-for-front login state and one-time codes: `SET … EX` and `GETDEL`, so a code is used once. */
export class RedisOidcBffStore implements OidcBffStore {
  readonly #redis: RedisCommands
  constructor(redis: RedisCommands) {
    this.#redis = redis
  }

  async set(key: string, value: string, ttlSeconds: number): Promise<void> {
    await this.#redis.set(`oidc:${key}`, value, ttlSeconds)
  }

  async take(key: string): Promise<string | undefined> {
    return (await this.#redis.getDel(`oidc:${key}`)) ?? undefined
  }
}

/** URL sessions (`?svc_sid=`): one JSON blob per id, expiring with its TTL. */
export class RedisSessionStore implements SessionStore {
  readonly #redis: RedisCommands
  readonly #defaultTtlSeconds: number
  constructor(redis: RedisCommands, options: { defaultTtlSeconds?: number } = {}) {
    this.#redis = redis
    this.#defaultTtlSeconds = options.defaultTtlSeconds ?? 86_400
  }

  async get(id: string): Promise<SessionData | undefined> {
    const raw = await this.#redis.get(`url-session:${id}`)
    if (raw === null) return undefined
    try {
      const data = JSON.parse(raw) as unknown
      return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as SessionData) : undefined
    } catch {
      return undefined
    }
  }

  async set(id: string, data: SessionData, ttlSeconds: number = this.#defaultTtlSeconds): Promise<void> {
    // Redis has no "no expiry" for our use: 0 or less keeps the blob for the default TTL.
    await this.#redis.set(`url-session:${id}`, JSON.stringify(data), ttlSeconds > 0 ? ttlSeconds : this.#defaultTtlSeconds)
  }

  async delete(id: string): Promise<void> {
    await this.#redis.del(`url-session:${id}`)
  }
}

/**
 * Ended sign-ins (sign-out), shared by every replica: one key per sid that expires with the
 * identity cookie it ended (`oidc:ended:<sid>`), and a message on the channel of the same name so
 * that open pages on other replicas sign out at once.
 */
export class RedisSessionRevocations implements RevocationBackend {
  readonly #redis: RedisConnection
  constructor(redis: RedisConnection) {
    this.#redis = redis
  }

  async revoke(sid: string, ttlSeconds: number): Promise<void> {
    await this.#redis.set(`oidc:ended:${sid}`, '1', ttlSeconds)
    await this.#redis.publish('oidc:ended', `${sid} ${Date.now() + ttlSeconds * 1000}`)
  }

  async isRevoked(sid: string): Promise<boolean> {
    return (await this.#redis.get(`oidc:ended:${sid}`)) !== null
  }

  subscribe(listener: (sid: string, untilMs: number) => void): void {
    this.#redis.subscribe('oidc:ended', (message) => {
      const [sid = '', until = ''] = message.split(' ')
      listener(sid, Number(until))
    })
  }
}
