import pino from 'pino'
import { RedisConnection, redisAddress } from '../../shared-state/redis-connection.js'
import { fail, pass, warn, type CheckRow, type SettingsContext } from './types.js'

/** `redis`: off, or reachable and writable, with version and PING latency (never the URL's credentials). */
export async function redisReachable(ctx: SettingsContext): Promise<CheckRow> {
  const { redis_url: url, redis_key_prefix: keyPrefix, redis_timeout_s: timeout, redis_max_value_bytes: maxValueBytes } = ctx.settings
  if (!url) {
    const workers = ctx.settings.workers
    const whose = ctx.running ? ` (the running svc's)` : ''
    if (workers > 1) {
      return warn('redis', `off (redis_url not set) with ${workers} gateway workers${whose}: login state and URL sessions stay in each worker, so a sign-in that starts on one and returns to another fails, and a URL session is found only on the worker that made it; set SVC_REDIS_URL, or run one worker`)
    }
    return pass('redis', `off (redis_url not set): login state and sessions stay in this process; fine for one replica with one worker${whose}`)
  }
  const connection = new RedisConnection({ url, keyPrefix, timeoutMs: timeout * 1000, maxValueBytes, logger: pino({ level: 'silent' }) })
  try {
    const probe = await connection.probe()
    if (!probe.ok) {
      return fail('redis', `cannot reach ${redisAddress(url)}: ${probe.detail ?? 'no answer'}; start Redis or fix SVC_REDIS_URL (host, port, password, rediss:// for TLS)`)
    }
    if (probe.writeRefused !== null) {
      return fail('redis', `redis at ${redisAddress(url)} answers but refuses writes: ${probe.writeRefused}; free memory or raise maxmemory (or use an eviction policy), fix the disk behind MISCONF, or point SVC_REDIS_URL at the primary`)
    }
    return pass('redis', `redis ${probe.version ?? '?'} at ${redisAddress(url)}, PING ${probe.latencyMs?.toFixed(1) ?? '?'} ms, keys under "${keyPrefix}"`)
  } finally {
    await connection.destroy()
  }
}

/**
 * `cookie_secret`, asked only when `redis_url` says the app runs as replicas: without it each page
 * server seals its cookie tickets with a key of its own, so a page's cookie write served by one
 * replica and posted to another is refused, and signed cookies cannot be written at all.
 */
export function cookieSecretShared(ctx: SettingsContext): CheckRow | null {
  if (!ctx.settings.redis_url) return null
  if (ctx.settings.cookie_secret !== '') return pass('cookie_secret', 'set: cookie tickets and signed cookies use the same key on every replica that has the same value')
  return warn(
    'cookie_secret',
    'not set with redis_url (replicas): each page server seals cookie tickets with a random key of its own, so a cookie a page writes on one replica and the browser posts to another is refused (400 SVC_ERR_UI_COOKIE_REJECTED), and st.cookies.set(..., { signed: true }) throws; set the same SVC_COOKIE_SECRET (32 bytes or more) on every replica',
  )
}
