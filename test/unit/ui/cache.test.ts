import { afterEach, describe, expect, it, vi } from 'vitest'
import { isSvcError } from '../../../src/errors.js'
import { cacheData, cacheResource } from '../../../src/ui/cache.js'

afterEach(() => {
  vi.useRealTimers()
})

describe('cacheData', () => {
  it('runs fn once per distinct argument values, whatever the key order of objects', () => {
    const fn = vi.fn((q: { region: string; limit: number }, day: Date) => ({ rows: [q.region, q.limit, day.getTime()] }))
    const cached = cacheData(fn)
    const a = cached({ region: 'eu', limit: 5 }, new Date(0))
    const b = cached({ limit: 5, region: 'eu' }, new Date(0))
    expect(b).toEqual(a)
    expect(fn).toHaveBeenCalledTimes(1)
    cached({ region: 'us', limit: 5 }, new Date(0))
    cached({ region: 'eu', limit: 5 }, new Date(1))
    expect(fn).toHaveBeenCalledTimes(3)
  })

  it('hands every caller its own copy', () => {
    const cached = cacheData(() => ({ items: [1, 2] }))
    const first = cached()
    first.items.push(3)
    expect(cached().items).toEqual([1, 2])
    expect(cached()).not.toBe(cached())
  })

  it('shares the in-flight promise of concurrent first calls and resolves copies', async () => {
    let release!: (v: { n: number }) => void
    const fn = vi.fn(() => new Promise<{ n: number }>((r) => (release = r)))
    const cached = cacheData(fn)
    const p1 = cached()
    const p2 = cached()
    expect(fn).toHaveBeenCalledTimes(1)
    release({ n: 1 })
    const [a, b] = await Promise.all([p1, p2])
    expect(a).toEqual({ n: 1 })
    expect(a).not.toBe(b)
  })

  it('does not keep a rejected call or a thrown error', async () => {
    let calls = 0
    const cached = cacheData(async (x: number) => {
      calls++
      if (calls === 1) throw new Error('db down')
      return x * 2
    })
    await expect(cached(2)).rejects.toThrow('db down')
    await expect(cached(2)).resolves.toBe(4)
    let syncCalls = 0
    const sync = cacheData(() => {
      syncCalls++
      if (syncCalls === 1) throw new Error('once')
      return 'ok'
    })
    expect(() => sync()).toThrow('once')
    expect(sync()).toBe('ok')
  })

  it('expires entries after ttl (seconds or a duration string)', () => {
    vi.useFakeTimers({ now: 0 })
    const fn = vi.fn(() => Date.now())
    const bySeconds = cacheData(fn, { ttl: 2 })
    bySeconds()
    vi.setSystemTime(1_999)
    bySeconds()
    expect(fn).toHaveBeenCalledTimes(1)
    vi.setSystemTime(2_000)
    bySeconds()
    expect(fn).toHaveBeenCalledTimes(2)
    const minuteFn = vi.fn(() => 1)
    const byString = cacheData(minuteFn, { ttl: '1m' })
    byString()
    vi.setSystemTime(2_000 + 59_999)
    byString()
    vi.setSystemTime(2_000 + 60_000)
    expect(minuteFn).toHaveBeenCalledTimes(1)
    byString()
    expect(minuteFn).toHaveBeenCalledTimes(2)
  })

  it('keeps at most maxEntries, dropping the least recently used', () => {
    const fn = vi.fn((k: string) => k)
    const cached = cacheData(fn, { maxEntries: 2 })
    cached('a')
    cached('b')
    cached('a') // a is now the most recent
    cached('c') // drops b
    fn.mockClear()
    cached('a')
    cached('c')
    expect(fn).not.toHaveBeenCalled()
    cached('b')
    expect(fn).toHaveBeenCalledTimes(1)
  })

  it('clear() drops every entry, and a call in flight during clear() is not kept', async () => {
    const fn = vi.fn(async () => 1)
    const cached = cacheData(fn)
    const pending = cached()
    cached.clear()
    await pending
    await cached()
    expect(fn).toHaveBeenCalledTimes(2)
    cached.clear()
    await cached()
    expect(fn).toHaveBeenCalledTimes(3)
  })

  it('refuses arguments without a stable value, bad options and results that cannot be copied', () => {
    const code = (f: () => unknown): string | undefined => {
      try {
        f()
      } catch (err) {
        return isSvcError(err) ? `${err.code}: ${err.message}` : String(err)
      }
      return undefined
    }
    const cached = cacheData((_x: unknown) => 1)
    expect(code(() => cached(() => 1))).toMatch(/^SVC_ERR_UI_CACHE: cacheData\(.*\): argument 1 is a function/)
    expect(code(() => cached(new (class Pool {})()))).toMatch(/argument 1 is an instance of Pool/)
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(code(() => cached(cyclic))).toMatch(/contains itself/)
    expect(code(() => cacheData(() => 1, { ttl: '5 minutes' }))).toMatch(/^SVC_ERR_UI_CACHE: .*ttl/)
    expect(code(() => cacheData(() => 1, { maxEntries: 0 }))).toMatch(/^SVC_ERR_UI_CACHE: .*maxEntries/)
    const uncopyable = cacheData(() => ({ run: () => 1 }))
    expect(code(() => uncopyable())).toMatch(/^SVC_ERR_UI_CACHE: .*cannot be copied.*cacheResource/)
  })
})

describe('cacheResource', () => {
  it('hands every caller the same instance and runs a concurrent first call once', async () => {
    class Pool {
      constructor(readonly url: string) {}
    }
    const fn = vi.fn(async (url: string) => new Pool(url))
    const pool = cacheResource(fn)
    const [a, b] = await Promise.all([pool('db://x'), pool('db://x')])
    expect(a).toBeInstanceOf(Pool)
    expect(a).toBe(b)
    expect(await pool('db://x')).toBe(a)
    expect(fn).toHaveBeenCalledTimes(1)
    pool.clear()
    expect(await pool('db://x')).not.toBe(a)
  })
})
