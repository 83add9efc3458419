import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pino from 'pino'
import { Svc } from '../../src/index.js'
import { RedisConnection } from '../../src/shared-state/redis-connection.js'
import { RedisOidcBffStore, RedisSessionStore } from '../../src/shared-state/redis-stores.js'
import { hasRedis, RedisServer } from '../helpers/redis-server.js'
import { freePort } from '../helpers/ui-sidecar.js'

/** The stores svc keeps on Redis when `redis_url` is set, against a real redis-server. */
describe.skipIf(!hasRedis)('shared state on a real Redis', () => {
  let redis: RedisServer
  const open: RedisConnection[] = []
  const logs: Record<string, unknown>[] = []
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) })

  function connection(url: string, timeoutMs = 500): RedisConnection {
    const c = new RedisConnection({ url, keyPrefix: `t${open.length}:`, timeoutMs, maxValueBytes: 1024 * 1024, logger })
    open.push(c)
    return c
  }

  beforeAll(async () => {
    redis = await RedisServer.start()
  })
  afterAll(async () => {
    await Promise.all(open.map((c) => c.destroy()))
    await redis?.stop()
  })

  it('OIDC login state is single use: of two racing takes exactly one gets the value', async () => {
    const a = new RedisOidcBffStore(connection(redis.url))
    await a.set('state:abc', '{"v":1}', 60)
    const results = await Promise.all([a.take('state:abc'), a.take('state:abc')])
    expect(results.filter((r) => r === '{"v":1}')).toHaveLength(1)
    expect(results.filter((r) => r === undefined)).toHaveLength(1)
    expect(await a.take('missing')).toBeUndefined()
  })

  it('two processes sharing one prefix see each other\'s entries (replica A writes, B takes)', async () => {
    const prefix = 'shared:'
    const a = new RedisConnection({ url: redis.url, keyPrefix: prefix, timeoutMs: 500, maxValueBytes: 1024 * 1024, logger })
    const b = new RedisConnection({ url: redis.url, keyPrefix: prefix, timeoutMs: 500, maxValueBytes: 1024 * 1024, logger })
    open.push(a, b)
    await new RedisOidcBffStore(a).set('code:x', 'token', 60)
    expect(await new RedisOidcBffStore(b).take('code:x')).toBe('token')
  })

  it('entries expire with their TTL', async () => {
    const c = connection(redis.url)
    await c.set('short', 'v', 1)
    expect(await c.get('short')).toBe('v')
    const deadline = Date.now() + 5_000
    while ((await c.get('short')) !== null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(await c.get('short')).toBeNull()
  })

  it('URL sessions round-trip as JSON and delete', async () => {
    const store = new RedisSessionStore(connection(redis.url))
    await store.set('sid1', { count: 3, name: 'ada' }, 60)
    expect(await store.get('sid1')).toEqual({ count: 3, name: 'ada' })
    await store.delete('sid1')
    expect(await store.get('sid1')).toBeUndefined()
  })

  it('an unreachable Redis fails fast with SVC_ERR_REDIS_UNAVAILABLE, never hangs, and probe says why', async () => {
    const port = await freePort()
    const c = connection(`redis://127.0.0.1:${port}`, 300)
    const started = performance.now()
    await expect(c.get('k')).rejects.toMatchObject({ code: 'SVC_ERR_REDIS_UNAVAILABLE', status: 503 })
    expect(performance.now() - started).toBeLessThan(3_000)
    const probe = await c.probe()
    expect(probe.ok).toBe(false)
    expect(probe.detail).toBeTruthy()
    const outage = logs.filter((l) => l.msg?.toString().startsWith('redis unavailable') && l.redis === `127.0.0.1:${port}`)
    expect(outage).toHaveLength(1)
  })

  it('an outage heals by itself when Redis comes back, without a restart of svc', async () => {
    const server = await RedisServer.start()
    try {
      const c = connection(server.url, 300)
      await c.set('k', 'before', 60)
      await server.kill()
      await expect(c.get('k')).rejects.toMatchObject({ code: 'SVC_ERR_REDIS_UNAVAILABLE' })
      await server.restart()
      const deadline = Date.now() + 10_000
      let value: string | null | undefined
      while (Date.now() < deadline) {
        value = await c.get('k').catch(() => undefined)
        if (value !== undefined) break
        await new Promise((r) => setTimeout(r, 100))
      }
      // No persistence: the restarted server is empty, but it answers.
      expect(value).toBeNull()
    } finally {
      await server.stop()
    }
  })

  it('probe reports the version and latency of a live server', async () => {
    const probe = await connection(redis.url).probe()
    expect(probe.ok).toBe(true)
    expect(probe.version).toMatch(/^\d+\.\d+/)
    expect(probe.latencyMs).toBeGreaterThanOrEqual(0)
  })

  it('readyz is 503 with redis_unavailable while the configured Redis is down, 200 when it answers', async () => {
    const down = new Svc({ redis_url: `redis://127.0.0.1:${await freePort()}`, redis_timeout_s: 0.3, log_level: 'fatal' })
    const up = new Svc({ redis_url: redis.url, log_level: 'fatal' })
    try {
      const bad = await down.api.inject({ method: 'GET', url: '/readyz' })
      expect(bad.statusCode).toBe(503)
      expect(bad.json()).toMatchObject({ status: 'not_ready', detail: expect.stringMatching(/^redis_unavailable: /) })
      const good = await up.api.inject({ method: 'GET', url: '/readyz' })
      expect(good.statusCode).toBe(200)
      await up.sessionStore.set('s', { a: 1 })
      expect(await up.sessionStore.get('s')).toEqual({ a: 1 })
    } finally {
      await Promise.all([down.api.close(), up.api.close()])
    }
  })
})
