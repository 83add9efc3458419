import { SvcError } from '../../errors.js'
import { readStored, storedText, type Output, type ZodSchema } from './checked-value.js'

/** What one browser-storage area of svc may hold (keys and values, UTF-16 code units as the browser counts them). */
export const MAX_BROWSER_STORAGE_CHARS = 16 * 1024
/** Longest key. */
export const MAX_BROWSER_STORAGE_KEY = 128

/** `local`: the browser's localStorage (every tab, until cleared); `tab`: sessionStorage (this tab, reloads included). */
export type BrowserStorageArea = 'local' | 'tab'

/** What the browser sends in its `hello`: svc's entries of each area. */
export interface BrowserStorageSnapshot {
  local?: Record<string, string>
  tab?: Record<string, string>
}

/**
 * `st.localStorage` and `st.tabStorage`: svc's entries of one browser storage area. The browser
 * sends them in every `hello` (so they are read without a round trip) and a write goes to the
 * browser as a `storage` message and into this copy at once. Values are JSON text; what comes
 * back is checked by the page's schema before the page sees it.
 */
export class BrowserStore {
  readonly #area: BrowserStorageArea
  readonly #emit: (area: BrowserStorageArea, key: string, value: string | null) => void
  readonly #invalid: (key: string, reason: string) => void
  #values = new Map<string, string>()

  constructor(area: BrowserStorageArea, emit: (area: BrowserStorageArea, key: string, value: string | null) => void, invalid: (key: string, reason: string) => void) {
    this.#area = area
    this.#emit = emit
    this.#invalid = invalid
  }

  get #name(): string {
    return this.#area === 'local' ? 'st.localStorage' : 'st.tabStorage'
  }

  /** The browser's entries from its hello: an area over the bound is not taken (a browser of this app never writes one). */
  load(entries: Record<string, string> | undefined): void {
    const values = new Map(Object.entries(entries ?? {}))
    this.#values = size(values) <= MAX_BROWSER_STORAGE_CHARS ? values : new Map<string, string>()
  }

  get(key: string): unknown
  get<S extends ZodSchema>(key: string, schema: S): Output<S> | undefined
  get(key: string, schema?: ZodSchema): unknown {
    const raw = this.#values.get(key)
    return raw === undefined ? undefined : readStored(raw, schema, `${this.#name}.get(${JSON.stringify(key)})`, (reason) => this.#invalid(key, reason))
  }

  has(key: string): boolean {
    return this.#values.has(key)
  }

  keys(): string[] {
    return [...this.#values.keys()]
  }

  set(key: string, value: unknown): void {
    const where = `${this.#name}.set(${JSON.stringify(key)})`
    this.#checkKey(key, where)
    const text = storedText(value, where)
    const next = new Map(this.#values).set(key, text)
    const chars = size(next)
    if (chars > MAX_BROWSER_STORAGE_CHARS) {
      throw new SvcError('SVC_ERR_UI_STORAGE', `${where}: ${this.#name} would hold ${chars} characters; it keeps at most ${MAX_BROWSER_STORAGE_CHARS} (keys and values). Keep larger data in st.userStorage or your own store`)
    }
    this.#values = next
    this.#emit(this.#area, key, text)
  }

  delete(key: string): void {
    this.#checkKey(key, `${this.#name}.delete(${JSON.stringify(key)})`)
    if (!this.#values.delete(key)) return
    this.#emit(this.#area, key, null)
  }

  #checkKey(key: string, where: string): void {
    if (typeof key !== 'string' || key === '' || key.length > MAX_BROWSER_STORAGE_KEY) {
      throw new SvcError('SVC_ERR_UI_BAD_CALL', `${where}: a key is a non-empty string of at most ${MAX_BROWSER_STORAGE_KEY} characters`)
    }
  }
}

function size(values: ReadonlyMap<string, string>): number {
  let n = 0
  for (const [k, v] of values) n += k.length + v.length
  return n
}
