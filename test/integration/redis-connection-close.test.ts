import pino from 'pino'
import { createClient } from 'redis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisConnection } from '../../src/shared-state/redis-connection.js'
import { hasRedis, RedisServer } from '../helpers/redis-server.js'

/** The close contract on a real redis-server: destroy() cuts a close that waits on Redis short. */
describe.skipIf(!hasRedis)('RedisConnection close and destroy', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await RedisServer.start()
  }, 30_000)
  afterAll(() => server?.stop())

  it('destroy() during a close that waits for a paused Redis ends both at once; the pending command fails', async () => {
    const conn = new RedisConnection({ url: server.url, keyPrefix: 'lifecycle:', timeoutMs: 120_000, maxValueBytes: 1_000_000, logger: pino({ level: 'silent' }) })
    await conn.set('k', 'v', 60)
    const admin = createClient({ url: server.url })
    // Dropped mid-pause at the end: its socket error is expected.
    admin.on('error', () => {})
    await admin.connect()
    try {
      // Every client waits two minutes for its next answer: far past this test's timeout.
      await admin.sendCommand(['CLIENT', 'PAUSE', '120000', 'ALL'])
      const pending = conn.get('k')
      const failed = pending.then(
        () => 'answered',
        () => 'failed',
      )
      const closing = conn.close()
      await conn.destroy(new Error('test stops now'))
      await closing
      expect(await failed).toBe('failed')
      await expect(conn.get('k')).rejects.toMatchObject({ code: 'SVC_ERR_REDIS_UNAVAILABLE' })
    } finally {
      // The server stays paused (admin too) until afterAll stops it.
      admin.destroy()
    }
  }, 20_000)
})
