import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from 'redis'
import { hasRedis, RedisServer } from '../helpers/redis-server.js'
import { freePort } from '../helpers/ui-sidecar.js'
import { runSvcCli, tempDir } from '../helpers/cli-run.js'
import { REPO } from '../helpers/svc-process.js'

const BASIC_APP = `${REPO}test/fixtures/app-basic.ts`

interface JsonReport { checks: { name: string; status: string; detail: string }[] }
async function redisRow(env: Record<string, string>): Promise<{ code: number | null; row: JsonReport['checks'][number] | undefined; stdout: string }> {
  const dir = await tempDir('svc-doctor-redis-')
  const r = await runSvcCli(['doctor', BASIC_APP, '--json'], { cwd: dir, env: { SVC_GATEWAY_PORT: '0', ...env } })
  return { code: r.code, row: (JSON.parse(r.stdout) as JsonReport).checks.find((c) => c.name === 'redis'), stdout: r.stdout }
}

describe.skipIf(!hasRedis)('svc doctor: the redis row', () => {
  let redis: RedisServer
  beforeAll(async () => {
    redis = await RedisServer.start()
  })
  afterAll(async () => {
    await redis?.stop()
  })

  it('off when redis_url is not set', async () => {
    const { row } = await redisRow({})
    expect(row).toMatchObject({ status: 'PASS', detail: expect.stringMatching(/^off \(redis_url not set\)/) })
  })

  it('reachable: version, latency and address, never the password', async () => {
    const url = redis.url.replace('redis://', 'redis://default:hunter2-secret@')
    const { row, stdout } = await redisRow({ SVC_REDIS_URL: url })
    // Whatever the server says to the password, neither the row nor the report may show it.
    expect(stdout).not.toContain('hunter2-secret')
    expect(row?.detail).not.toContain('hunter2-secret')
    const plain = await redisRow({ SVC_REDIS_URL: redis.url })
    expect(plain.row).toMatchObject({ status: 'PASS', detail: expect.stringMatching(new RegExp(`^redis \\d+\\.\\d+\\S* at 127\\.0\\.0\\.1:${redis.port}, PING \\d+\\.\\d ms`)) })
  })

  it('unreachable: FAIL naming the address and the fix, exit 1', async () => {
    const port = await freePort()
    const { code, row } = await redisRow({ SVC_REDIS_URL: `redis://127.0.0.1:${port}`, SVC_REDIS_TIMEOUT_S: '0.3' })
    expect(code).toBe(1)
    expect(row).toMatchObject({ status: 'FAIL', detail: expect.stringContaining(`cannot reach 127.0.0.1:${port}`) })
    expect(row?.detail).toContain('SVC_REDIS_URL')
  })

  it('answers but refuses writes (full under maxmemory with noeviction): FAIL naming the error and the fixes, exit 1', async () => {
    const full = await RedisServer.start()
    try {
      const admin = createClient({ url: full.url })
      await admin.connect()
      await admin.configSet({ maxmemory: '1', 'maxmemory-policy': 'noeviction' })
      await admin.close()
      const { code, row } = await redisRow({ SVC_REDIS_URL: full.url })
      expect(code).toBe(1)
      expect(row).toMatchObject({ status: 'FAIL', detail: expect.stringMatching(/answers but refuses writes: .*OOM.*maxmemory/) })
    } finally {
      await full.stop()
    }
  })

  it('a bad redis_url is a settings error naming the value', async () => {
    const dir = await tempDir('svc-doctor-redis-')
    const r = await runSvcCli(['doctor', BASIC_APP, '--json'], { cwd: dir, env: { SVC_GATEWAY_PORT: '0', SVC_REDIS_URL: 'localhost:6379' } })
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('redis:// or rediss://')
  })
})
