import { createHash, randomBytes } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { SvcError } from '../../errors.js'

/**
 * Where `st.userStorage` keeps each signed-in user's values (JSON text by key): Redis when
 * `redis_url` is set (`src/shared-state/redis-user-store.ts`), else files under
 * `ui_user_storage_dir`. `user` is `userStorageId(st.user)`, never the raw subject.
 */
export interface UserStore {
  get(user: string, key: string): Promise<string | null>
  /** Throws `SVC_ERR_UI_STORAGE` when a new key would pass `maxKeys`. */
  set(user: string, key: string, value: string, maxKeys: number): Promise<void>
  delete(user: string, key: string): Promise<void>
  keys(user: string): Promise<string[]>
}

/** A user's storage id: a hash of the login and the subject (no PII in file names or Redis keys). */
export function userStorageId(provider: string, sub: string): string {
  return createHash('sha256').update(`${provider}\0${sub}`).digest('base64url').slice(0, 32)
}

export function tooManyKeys(maxKeys: number): SvcError {
  return new SvcError('SVC_ERR_UI_STORAGE', `st.userStorage.set(): this user already keeps ${maxKeys} keys (ui_user_storage_max_keys); delete one first, or keep related values under one key`)
}

/**
 * One folder per user, one file per key (its name the key in base64url), written to a temporary
 * file and renamed, so a reader sees the old value or the new one and two page threads writing
 * different keys of one user never lose each other's write. Folders 0700, files 0600: they hold
 * users' data.
 */
export class FileUserStore implements UserStore {
  readonly #dir: string

  constructor(dir: string, cwd: string = process.cwd()) {
    this.#dir = resolve(cwd, dir)
  }

  async get(user: string, key: string): Promise<string | null> {
    try {
      return await readFile(this.#file(user, key), 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw unavailable(this.#dir, err)
    }
  }

  async set(user: string, key: string, value: string, maxKeys: number): Promise<void> {
    const folder = join(this.#dir, user)
    const file = this.#file(user, key)
    try {
      await mkdir(folder, { recursive: true, mode: 0o700 })
      const names = await readdir(folder)
      if (!names.includes(fileName(key)) && names.filter((n) => n.endsWith('.json')).length >= maxKeys) throw tooManyKeys(maxKeys)
      const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`
      await writeFile(temp, value, { mode: 0o600 })
      await rename(temp, file)
    } catch (err) {
      if (err instanceof SvcError) throw err
      throw unavailable(this.#dir, err)
    }
  }

  async delete(user: string, key: string): Promise<void> {
    await rm(this.#file(user, key), { force: true }).catch((err: unknown) => {
      throw unavailable(this.#dir, err)
    })
  }

  async keys(user: string): Promise<string[]> {
    try {
      const names = await readdir(join(this.#dir, user))
      return names.filter((n) => n.endsWith('.json')).map((n) => Buffer.from(n.slice(0, -'.json'.length), 'base64url').toString('utf8'))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw unavailable(this.#dir, err)
    }
  }

  #file(user: string, key: string): string {
    return join(this.#dir, user, fileName(key))
  }
}

function fileName(key: string): string {
  return `${Buffer.from(key, 'utf8').toString('base64url')}.json`
}

function unavailable(dir: string, err: unknown): SvcError {
  return new SvcError('SVC_ERR_UI_STORAGE_UNAVAILABLE', `st.userStorage: the folder ${dir} (ui_user_storage_dir) cannot be used: ${(err as Error).message}`, { cause: err })
}

/** In memory, per process: the test handle's store (pass one to several handles to share it). */
export class MemoryUserStore implements UserStore {
  readonly #users = new Map<string, Map<string, string>>()

  async get(user: string, key: string): Promise<string | null> {
    return this.#users.get(user)?.get(key) ?? null
  }

  async set(user: string, key: string, value: string, maxKeys: number): Promise<void> {
    let values = this.#users.get(user)
    if (!values) this.#users.set(user, (values = new Map<string, string>()))
    if (!values.has(key) && values.size >= maxKeys) throw tooManyKeys(maxKeys)
    values.set(key, value)
  }

  async delete(user: string, key: string): Promise<void> {
    this.#users.get(user)?.delete(key)
  }

  async keys(user: string): Promise<string[]> {
    return [...(this.#users.get(user)?.keys() ?? [])]
  }
}
