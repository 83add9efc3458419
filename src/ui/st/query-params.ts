import type { QueryParams } from '../st-types.js'

type QueryValue = string | number | boolean | readonly (string | number | boolean)[]

/**
 * The page URL's query, owned by the session. Repeated keys keep every value (`getAll`), `get`
 * returns the last one. Every change calls `onChange` so the browser URL follows without a rerun.
 */
export class QueryState implements QueryParams {
  #params: URLSearchParams
  readonly #onChange: () => void

  constructor(query: string, onChange: () => void = () => {}) {
    this.#params = new URLSearchParams(query)
    this.#onChange = onChange
  }

  /** Replace everything from the browser (navigation, hello); no change notification. */
  reset(query: string): void {
    this.#params = new URLSearchParams(query)
  }

  get(name: string): string | undefined {
    const all = this.#params.getAll(name)
    return all.length === 0 ? undefined : all[all.length - 1]
  }

  getAll(name: string): string[] {
    return this.#params.getAll(name)
  }

  has(name: string): boolean {
    return this.#params.has(name)
  }

  set(name: string, value: QueryValue): void {
    this.#params.delete(name)
    for (const v of Array.isArray(value) ? value : [value]) this.#params.append(name, String(v))
    this.#onChange()
  }

  delete(name: string): void {
    if (!this.#params.has(name)) return
    this.#params.delete(name)
    this.#onChange()
  }

  clear(): void {
    if ([...this.#params.keys()].length === 0) return
    this.#params = new URLSearchParams()
    this.#onChange()
  }

  update(values: Record<string, QueryValue>): void {
    for (const [k, v] of Object.entries(values)) {
      this.#params.delete(k)
      for (const item of Array.isArray(v) ? v : [v]) this.#params.append(k, String(item))
    }
    this.#onChange()
  }

  toObject(): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [k, v] of this.#params) out[k] = v
    return out
  }

  /** Every key with all its values: single values as strings, repeated keys as arrays. */
  toMulti(): Record<string, string | string[]> {
    const out: Record<string, string | string[]> = {}
    for (const k of new Set(this.#params.keys())) {
      const all = this.#params.getAll(k)
      out[k] = all.length === 1 ? all[0]! : all
    }
    return out
  }

  toString(): string {
    return this.#params.toString()
  }
}
