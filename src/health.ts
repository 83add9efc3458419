import type { FastifyInstance } from 'fastify'
import { http } from './internal/node-http.js'

/** readyz gives the sidecar this long to answer before it reports not ready. */
export const READY_PROBE_TIMEOUT_MS = 500

export type ReadyBody =
  | { status: 'ready'; ui: 'ok' | 'not_configured' }
  | { status: 'not_ready'; detail: string }

/** GET the upstream root (and `{root_path}/` when a mount is set); ready iff one answers 2xx. */
export async function probeUpstream(upstream: string, rootPath: string): Promise<{ ok: true } | { ok: false; detail: string }> {
  const candidates = rootPath ? ['/', `${rootPath}/`] : ['/']
  const failures: string[] = []
  for (const path of candidates) {
    try {
      const status = await probeStatus(upstream + path)
      if (status >= 200 && status < 300) return { ok: true }
      failures.push(`${path}:${status}`)
    } catch (err) {
      const e = err as Error & { code?: string }
      return { ok: false, detail: `upstream_unreachable ${e.code ?? e.name}: ${e.message}` }
    }
  }
  return { ok: false, detail: `upstream_http_failed ${failures.join(';')}` }
}

/**
 * One GET with Node's own client, body discarded, the whole exchange within the probe timeout.
 * (undici's `request` would load all of undici in every gateway worker for a few probes.)
 */
function probeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const fail = (err: Error): void =>
      reject(err.name === 'AbortError' ? Object.assign(new Error(`no answer within ${READY_PROBE_TIMEOUT_MS} ms`), { code: 'PROBE_TIMEOUT' }) : err)
    const req = http.get(url, { signal: AbortSignal.timeout(READY_PROBE_TIMEOUT_MS) }, (res) => {
      res.once('error', fail)
      res.once('end', () => resolve(res.statusCode ?? 0))
      res.resume()
    })
    req.once('error', fail)
  })
}

/** What readyz reads; the gateway serving the app provides it (`gateway/runtime.ts`). */
export interface HealthSource {
  readonly draining: boolean
  /** The sidecar URL, '' when none is configured. */
  readonly uiUpstream: string
  /** Why the upstream pool counts as saturated, or null. */
  upstreamSaturation(): string | null
}

/** An app no gateway serves (e.g. `app.api.inject()`): not draining, no sidecar to probe. */
export const UNSERVED: HealthSource = { draining: false, uiUpstream: '', upstreamSaturation: () => null }

/** A dependency readyz checks after the UI: null when fine, else the `detail` of the 503. */
export type ReadinessCheck = () => Promise<string | null>

/**
 * `GET /healthz` and `GET /readyz` on the API, both hidden from OpenAPI; `source()` is read per
 * request. `dependencies` (e.g. Redis when `redis_url` is set) must all pass for ready.
 */
export function registerHealthRoutes(api: FastifyInstance, source: () => HealthSource, rootPath: string, dependencies: ReadinessCheck = async () => null): void {
  const hidden = { schema: { hide: true } }
  api.get('/healthz', hidden, async () => ({ status: 'ok' }))
  api.get('/readyz', hidden, async (_req, reply): Promise<ReadyBody> => {
    const runtime = source()
    if (runtime.draining) {
      reply.code(503)
      return { status: 'not_ready', detail: 'draining' }
    }
    const unready = await dependencies()
    if (unready !== null) {
      reply.code(503)
      return { status: 'not_ready', detail: unready }
    }
    if (!runtime.uiUpstream) return { status: 'ready', ui: 'not_configured' }
    const saturated = runtime.upstreamSaturation()
    if (saturated !== null) {
      reply.code(503)
      return { status: 'not_ready', detail: saturated }
    }
    const probe = await probeUpstream(runtime.uiUpstream, rootPath)
    if (probe.ok) return { status: 'ready', ui: 'ok' }
    reply.code(503)
    return { status: 'not_ready', detail: probe.detail }
  })
}
