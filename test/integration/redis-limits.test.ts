import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server, type Socket } from 'node:net'
import { once } from 'node:events'
import pino from 'pino'
import { createClient } from 'redis'
import { request } from 'undici'
import { RedisConnection } from '../../src/shared-state/redis-connection.js'
import { hasRedis, RedisServer } from '../helpers/redis-server.js'
import { startSvc, stopAllTrees } from '../helpers/svc-process.js'
import { waitUntil } from '../helpers/cli-processes.js'

/**
 * What svc reads from Redis is bounded, and readyz tells when Redis refuses writes: a fake Redis
 * on loopback that answers a read with an endless bulk string, and a real redis-server holding a
 * value over the limit or set to refuse every write (`maxmemory` with `noeviction`).
 */

const LIMIT = 64 * 1024

/**
 * Speaks just enough RESP for node-redis: every command gets `+OK`, except reads (GET, GETRANGE,
 * GETDEL) on the first `endless` connections, which get a bulk string announced as 1 GB and
 * streamed until the client goes away; later connections answer them with a null.
 */
class EndlessRedis {
  readonly server: Server
  /** Bytes of endless replies written, per connection, and whether the client closed it. */
  readonly streams: { sent: number; closedByClient: boolean }[] = []
  #endless: number

  constructor(endless: number) {
    this.#endless = endless
    this.server = createServer((socket) => this.#serve(socket))
  }

  async listen(): Promise<string> {
    this.server.listen(0, '127.0.0.1')
    await once(this.server, 'listening')
    return `redis://127.0.0.1:${(this.server.address() as { port: number }).port}`
  }

  #serve(socket: Socket): void {
    socket.on('error', () => {})
    const endless = this.#endless-- > 0
    let pending = ''
    socket.on('data', (d: Buffer) => {
      pending += d.toString('latin1')
      for (;;) {
        const command = takeCommand(pending)
        if (command === null) return
        pending = command.rest
        const name = command.args[0]?.toUpperCase() ?? ''
        if (!['GET', 'GETRANGE', 'GETDEL'].includes(name)) socket.write('+OK\r\n')
        else if (!endless) socket.write('$-1\r\n')
        else this.#stream(socket)
      }
    })
  }

  #stream(socket: Socket): void {
    const stream = { sent: 0, closedByClient: false }
    this.streams.push(stream)
    socket.once('close', () => (stream.closedByClient = true))
    socket.write('$1000000000\r\n')
    const chunk = Buffer.alloc(64 * 1024, 97)
    const pump = (): void => {
      while (!socket.destroyed && stream.sent < 1_000_000_000) {
        stream.sent += chunk.length
        if (!socket.write(chunk)) {
          socket.once('drain', pump)
          return
        }
      }
    }
    pump()
  }
}

/** One RESP array of bulk strings from the front of `text`, or null when it is not complete yet. */
function takeCommand(text: string): { args: string[]; rest: string } | null {
  const head = /^\*(\d+)\r\n/.exec(text)
  if (!head) return null
  let at = head[0].length
  const args: string[] = []
  for (let i = 0; i < Number(head[1]); i++) {
    const len = /^\$(\d+)\r\n/.exec(text.slice(at))
    if (!len) return null
    at += len[0].length
    if (text.length < at + Number(len[1]) + 2) return null
    args.push(text.slice(at, at + Number(len[1])))
    at += Number(len[1]) + 2
  }
  return { args, rest: text.slice(at) }
}

describe('bounded Redis replies', () => {
  const logs: Record<string, unknown>[] = []
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) })
  const open: RedisConnection[] = []
  const connection = (url: string, keyPrefix = 't:'): RedisConnection => {
    const c = new RedisConnection({ url, keyPrefix, timeoutMs: 2_000, maxValueBytes: LIMIT, logger })
    open.push(c)
    return c
  }
  afterAll(async () => {
    await Promise.all(open.map((c) => c.destroy()))
  })

  it('an endless bulk string from a fake Redis ends the connection near the limit, is logged, and the client recovers on reconnect', async () => {
    // The first two connections stream endlessly: the first read, and the reconnect after it.
    const fake = new EndlessRedis(2)
    const url = await fake.listen()
    try {
      const c = connection(url)
      await expect(c.get('k')).rejects.toMatchObject({ code: 'SVC_ERR_REDIS_UNAVAILABLE' })
      // The client closed the stream; before, it went on reading (and buffering) for as long as
      // the server sent: gigabytes within seconds.
      await waitUntil('the client closes the endless reply', () => fake.streams[0]?.closedByClient === true, 10_000)
      expect(logs.filter((l) => l.code === 'SVC_ERR_REDIS_REPLY_TOO_LARGE')).toHaveLength(1)
      // What was sent before the close: the limit, plus what the two kernels' socket buffers held.
      expect(fake.streams[0]!.sent).toBeLessThan(32 * 1024 * 1024)
      // The reconnected connection is watched as well.
      let second: string | null | undefined
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
        second = await c.get('k').catch(() => undefined)
        if (second !== undefined) break
        await new Promise((r) => setTimeout(r, 100))
      }
      expect(fake.streams).toHaveLength(2)
      expect(fake.streams[1]!.closedByClient).toBe(true)
      expect(fake.streams[1]!.sent).toBeLessThan(32 * 1024 * 1024)
      // The third connection behaves: a missing key.
      expect(second).toBeNull()
    } finally {
      fake.server.close()
    }
  }, 30_000)

  describe.skipIf(!hasRedis)('on a real redis-server', () => {
    let redis: RedisServer
    beforeAll(async () => {
      redis = await RedisServer.start()
    })
    afterAll(async () => {
      await redis?.stop()
    })

    it('a stored value over redis_max_value_bytes reads as missing (logged, connection kept); writing one is refused', async () => {
      const raw = createClient({ url: redis.url })
      await raw.connect()
      try {
        await raw.set('big:huge', 'x'.repeat(LIMIT * 4))
        await raw.set('big:fits', 'y'.repeat(LIMIT))
      } finally {
        await raw.close()
      }
      const cutsBefore = logs.filter((l) => l.code === 'SVC_ERR_REDIS_REPLY_TOO_LARGE').length
      const c = connection(redis.url, 'big:')
      expect(await c.get('huge')).toBeNull()
      const logged = logs.filter((l) => l.code === 'SVC_ERR_REDIS_VALUE_TOO_LARGE')
      expect(logged).toHaveLength(1)
      expect(logged[0]).toMatchObject({ kind: 'huge', limit: LIMIT })
      // No reconnect was needed: the same connection reads the next value whole.
      expect(await c.get('fits')).toHaveLength(LIMIT)
      expect(logs.filter((l) => l.code === 'SVC_ERR_REDIS_REPLY_TOO_LARGE')).toHaveLength(cutsBefore)
      await expect(c.set('page-session:abc', 'z'.repeat(LIMIT + 1), 60)).rejects.toMatchObject({
        code: 'SVC_ERR_REDIS_VALUE_TOO_LARGE',
        message: expect.stringMatching(/page-session value of 65537 bytes is over redis_max_value_bytes/),
      })
    })
  })
})

describe.skipIf(!hasRedis)('readyz while Redis refuses writes', () => {
  let redis: RedisServer
  beforeAll(async () => {
    redis = await RedisServer.start()
  })
  afterAll(async () => {
    await stopAllTrees()
    await redis?.stop()
  })

  it('a real svc tree answers 503 redis_refuses_writes while redis-server is full (maxmemory, noeviction), 200 once it accepts writes again', async () => {
    const svc = await startSvc({ env: { SVC_REDIS_URL: redis.url } })
    const readyz = async (): Promise<{ status: number; body: { status: string; detail?: string } }> => {
      const res = await request(`${svc.url}/api/readyz`)
      return { status: res.statusCode, body: (await res.body.json()) as { status: string; detail?: string } }
    }
    expect(await readyz()).toMatchObject({ status: 200, body: { status: 'ready' } })
    const admin = createClient({ url: redis.url })
    await admin.connect()
    try {
      // Used memory is now over the limit: every command that may grow memory gets OOM.
      await admin.configSet({ maxmemory: '1', 'maxmemory-policy': 'noeviction' })
      const refused = await readyz()
      expect(refused).toMatchObject({ status: 503, body: { status: 'not_ready', detail: expect.stringMatching(/^redis_refuses_writes: .*OOM/) } })
      // Still refusing: logged once, not once per probe.
      expect((await readyz()).status).toBe(503)
      await svc.waitForLine('stdout', /redis refuses writes/)
      expect(svc.stdout.filter((l) => l.includes('redis refuses writes'))).toHaveLength(1)
      await admin.configSet({ maxmemory: '0' })
      expect(await readyz()).toMatchObject({ status: 200, body: { status: 'ready' } })
      await svc.waitForLine('stdout', /redis accepts writes again/)
    } finally {
      await admin.close()
    }
  }, 60_000)
})
