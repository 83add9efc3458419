import { SvcError } from '../../errors.js'
import { readStored, storedText, type Output, type ZodSchema } from './checked-value.js'
import type { StUser } from '../../auth/user.js'
import { userStorageId, type UserStore } from './user-store.js'

/** Longest key of `st.userStorage`. */
export const MAX_USER_STORAGE_KEY = 200

export interface UserStorageOptions {
  store: () => UserStore | null
  user: () => StUser
  /** `ui_user_storage_max_value_bytes`. */
  maxValueBytes: number
  /** `ui_user_storage_max_keys`. */
  maxKeys: number
  invalid: (key: string, reason: string) => void
}

/**
 * `st.userStorage`: values kept per signed-in user (`st.user`) across sessions, tabs, browsers and
 * replicas (with Redis), as JSON text. Reads go to the store every time, so a value another tab
 * of the same user wrote is seen; what comes back is checked by the page's schema.
 */
export class UserStorage {
  readonly #opts: UserStorageOptions

  constructor(options: UserStorageOptions) {
    this.#opts = options
  }

  async get(key: string): Promise<unknown>
  async get<S extends ZodSchema>(key: string, schema: S): Promise<Output<S> | undefined>
  async get(key: string, schema?: ZodSchema): Promise<unknown> {
    const where = `st.userStorage.get(${JSON.stringify(key)})`
    const [store, user] = this.#where(key, where)
    const raw = await store.get(user, key)
    return raw === null ? undefined : readStored(raw, schema, where, (reason) => this.#opts.invalid(key, reason))
  }

  async set(key: string, value: unknown): Promise<void> {
    const where = `st.userStorage.set(${JSON.stringify(key)})`
    const [store, user] = this.#where(key, where)
    const text = storedText(value, where)
    const bytes = Buffer.byteLength(text)
    if (bytes > this.#opts.maxValueBytes) {
      throw new SvcError('SVC_ERR_UI_STORAGE', `${where}: the value is ${bytes} bytes as JSON; one key keeps at most ${this.#opts.maxValueBytes} (ui_user_storage_max_value_bytes)`)
    }
    await store.set(user, key, text, this.#opts.maxKeys)
  }

  async delete(key: string): Promise<void> {
    const [store, user] = this.#where(key, `st.userStorage.delete(${JSON.stringify(key)})`)
    await store.delete(user, key)
  }

  async keys(): Promise<string[]> {
    const [store, user] = this.#where(null, 'st.userStorage.keys()')
    return store.keys(user)
  }

  #where(key: string | null, where: string): [UserStore, string] {
    if (key !== null && (typeof key !== 'string' || key === '' || key.length > MAX_USER_STORAGE_KEY)) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `${where}: a key is a non-empty string of at most ${MAX_USER_STORAGE_KEY} characters`)
    }
    const user = this.#opts.user()
    if (!user.isLoggedIn) {
      throw new SvcError('SVC_ERR_UI_STORAGE', `${where}: per-user storage needs a signed-in user (st.user.isLoggedIn is false); check st.user first, or keep the value in st.localStorage`)
    }
    const store = this.#opts.store()
    if (!store) throw new SvcError('SVC_ERR_UI_STORAGE_UNAVAILABLE', `${where}: this app has no per-user store here`)
    return [store, userStorageId(user.provider, user.sub)]
  }
}
