import { SvcError, isSvcError } from '../errors.js'
import { tooManyKeys, type UserStore } from '../ui/storage/user-store.js'
import type { RedisConnection } from './redis-connection.js'

/**
 * `st.userStorage` on Redis: one hash per user (`user-storage:<id>`), one field per key, kept
 * without expiry like any user data. Every replica reads the same values; a Redis outage is a
 * clear error for the page (`SVC_ERR_UI_STORAGE_UNAVAILABLE`), never a hang.
 */
export class RedisUserStore implements UserStore {
  readonly #redis: RedisConnection

  constructor(redis: RedisConnection) {
    this.#redis = redis
  }

  get(user: string, key: string): Promise<string | null> {
    return guarded(() => this.#redis.hGet(hashKey(user), key))
  }

  set(user: string, key: string, value: string, maxKeys: number): Promise<void> {
    return guarded(async () => {
      const hash = hashKey(user)
      if (!(await this.#redis.hExists(hash, key)) && (await this.#redis.hLen(hash)) >= maxKeys) throw tooManyKeys(maxKeys)
      await this.#redis.hSet(hash, key, value)
    })
  }

  delete(user: string, key: string): Promise<void> {
    return guarded(() => this.#redis.hDel(hashKey(user), key))
  }

  keys(user: string): Promise<string[]> {
    return guarded(() => this.#redis.hKeys(hashKey(user)))
  }
}

function hashKey(user: string): string {
  return `user-storage:${user}`
}

async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (err) {
    if (!isSvcError(err) || !err.code.startsWith('SVC_ERR_REDIS_')) throw err
    const code = err.code === 'SVC_ERR_REDIS_VALUE_TOO_LARGE' ? 'SVC_ERR_UI_STORAGE' : 'SVC_ERR_UI_STORAGE_UNAVAILABLE'
    throw new SvcError(code, `st.userStorage: ${err.message}`, { cause: err })
  }
}
