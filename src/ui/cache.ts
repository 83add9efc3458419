import { z } from '../internal/zod.js'
import { SvcError } from '../errors.js'
import { DurationSchema, durationMs } from './duration.js'

/**
 * `cacheData` / `cacheResource`: memoise a function by its argument values, shared by every run
 * and every session of the page server process (the cache lives with the wrapped function, so
 * define it at module level, not inside a page function).
 */

const CacheOptionsSchema = z.strictObject({
  /** Seconds (like Streamlit), or a string with a unit: `'500ms'`, `'90s'`, `'15m'`, `'1h'`, `'1d'`. */
  ttl: DurationSchema.optional(),
  /** Most entries kept; the least recently used goes first. */
  maxEntries: z.number().int().positive().optional(),
})

export type CacheOptions = z.input<typeof CacheOptionsSchema>

/** The wrapped function, with `clear()` to drop every entry. */
export type CachedFunction<F extends (...args: never[]) => unknown> = F & { clear(): void }

/**
 * A stable key for the arguments: equal values give equal keys whatever the object key order.
 * Anything whose value cannot be read that way (functions, class instances, symbols, cycles)
 * is refused rather than cached by identity.
 */
function argsKey(what: string, args: readonly unknown[]): string {
  const seen = new Set<object>()
  const bad = (i: number, kind: string): never => {
    throw new SvcError(
      'SVC_ERR_UI_CACHE',
      `${what}: argument ${i + 1} is ${kind}; cached functions take strings, numbers, booleans, bigints, null, undefined, Dates, and arrays, plain objects, Maps and Sets of these. Pass an id and look the object up inside the function`,
    )
  }
  const key = (v: unknown, i: number): string => {
    switch (typeof v) {
      case 'string': return JSON.stringify(v)
      case 'number': return Object.is(v, -0) ? '-0' : String(v)
      case 'boolean': return v ? 'true' : 'false'
      case 'bigint': return `${v}n`
      case 'undefined': return 'undefined'
      case 'object': {
        if (v === null) return 'null'
        if (v instanceof Date) return `Date(${v.getTime()})`
        if (seen.has(v)) return bad(i, 'a structure that contains itself')
        seen.add(v)
        let out: string
        if (Array.isArray(v)) out = `[${v.map((x) => key(x, i)).join(',')}]`
        else if (v instanceof Map) out = `Map{${[...v].map(([k, x]) => `${key(k, i)}=>${key(x, i)}`).join(',')}}`
        else if (v instanceof Set) out = `Set{${[...v].map((x) => key(x, i)).join(',')}}`
        else {
          const proto = Object.getPrototypeOf(v) as unknown
          if (proto !== Object.prototype && proto !== null) return bad(i, `an instance of ${(v as object).constructor?.name ?? 'a class'}`)
          out = `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${key((v as Record<string, unknown>)[k], i)}`).join(',')}}`
        }
        seen.delete(v)
        return out
      }
      default: return bad(i, `a ${typeof v}`)
    }
  }
  return args.map((a, i) => key(a, i)).join('|')
}

interface Entry {
  value: unknown
  /** Epoch ms; Infinity while the first call is still running or without a ttl. */
  expires: number
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function'
}

function cached<F extends (...args: never[]) => unknown>(kind: 'cacheData' | 'cacheResource', fn: F, options: CacheOptions | undefined): CachedFunction<F> {
  const parsed = CacheOptionsSchema.safeParse(options ?? {})
  if (!parsed.success) {
    throw new SvcError('SVC_ERR_UI_CACHE', `${kind}(${fn.name || 'fn'}): invalid options: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'options'}: ${i.message}`).join('; ')}`)
  }
  const what = `${kind}(${fn.name || 'fn'})`
  const ttl = parsed.data.ttl === undefined ? Infinity : durationMs(parsed.data.ttl)
  const maxEntries = parsed.data.maxEntries ?? Infinity
  const store = new Map<string, Entry>()

  /** cacheData hands out copies, so a caller that changes its result cannot change the cache. */
  const hand = (key: string, entry: Entry, value: unknown): unknown => {
    if (kind === 'cacheResource') return value
    const copy = (v: unknown): unknown => {
      try {
        return structuredClone(v)
      } catch (err) {
        if (store.get(key) === entry) store.delete(key)
        throw new SvcError('SVC_ERR_UI_CACHE', `${what}: the result cannot be copied for each caller (${(err as Error).message}); return plain data, or use cacheResource for shared objects such as connections`)
      }
    }
    return isPromiseLike(value) ? Promise.resolve(value).then(copy) : copy(value)
  }

  const wrapper = function (this: unknown, ...args: never[]): unknown {
    const key = argsKey(what, args)
    const hit = store.get(key)
    if (hit && hit.expires > Date.now()) {
      // Re-inserted: Map order is the recency order the eviction reads.
      store.delete(key)
      store.set(key, hit)
      return hand(key, hit, hit.value)
    }
    if (hit) store.delete(key)
    const result = fn.apply(this, args)
    const entry: Entry = { value: result, expires: Infinity }
    if (isPromiseLike(result)) {
      // Concurrent callers share this promise; the ttl starts when it settles, a rejection is not kept.
      entry.value = Promise.resolve(result).then(
        (v) => {
          if (store.get(key) === entry) entry.expires = Date.now() + ttl
          return v
        },
        (err: unknown) => {
          if (store.get(key) === entry) store.delete(key)
          throw err
        },
      )
    } else {
      entry.expires = Date.now() + ttl
    }
    store.set(key, entry)
    while (store.size > maxEntries) store.delete(store.keys().next().value!)
    return hand(key, entry, entry.value)
  }
  return Object.assign(wrapper as F, { clear: () => store.clear() })
}

/**
 * Memoise a function that returns data (a query result, a parsed file). Every caller gets its
 * own copy (`structuredClone`), so changing it does not change what others see.
 */
export function cacheData<F extends (...args: never[]) => unknown>(fn: F, options?: CacheOptions): CachedFunction<F> {
  return cached('cacheData', fn, options)
}

/** Memoise a function that creates a shared object (a DB pool, a client): every caller gets the same instance. */
export function cacheResource<F extends (...args: never[]) => unknown>(fn: F, options?: CacheOptions): CachedFunction<F> {
  return cached('cacheResource', fn, options)
}
