import type { FastifyInstance } from 'fastify'
import { createRequire } from 'node:module'
import { SvcError } from '../errors.js'
import type { ResolvedSettings } from '../settings/schema.js'

export type CorsSettings = Pick<ResolvedSettings, 'cors_allow_origins' | 'cors_allow_credentials'>

const WHERE = 'cors_allow_origins (SVC_CORS_ALLOW_ORIGINS)'

/**
 * Check the origin list once: each entry must be an exact origin (`https://app.example.com`, no
 * path or trailing slash), or `*` without credentials. Returns the list to hand to @fastify/cors.
 */
export function corsOrigins(settings: CorsSettings): string[] {
  const origins = settings.cors_allow_origins
  for (const origin of origins) {
    if (origin === '*') {
      if (settings.cors_allow_credentials) {
        throw new SvcError(
          'SVC_ERR_CONFIG_INVALID',
          `${WHERE}: "*" cannot be combined with cors_allow_credentials (SVC_CORS_ALLOW_CREDENTIALS=1); list the origins explicitly`,
        )
      }
      continue
    }
    let parsed: URL | undefined
    try {
      parsed = new URL(origin)
    } catch {
      parsed = undefined
    }
    if (!parsed || parsed.origin !== origin) {
      const hint = parsed && parsed.origin !== 'null' ? `; write it as ${JSON.stringify(parsed.origin)}` : ''
      throw new SvcError('SVC_ERR_CONFIG_INVALID', `${WHERE}: ${JSON.stringify(origin)} is not an origin (scheme://host[:port])${hint}`)
    }
  }
  return [...origins]
}

/**
 * Apply CORS to the inner API when `cors_allow_origins` is non-empty: exact-origin allowlist,
 * credentials from `cors_allow_credentials`, any method, request headers reflected on preflight.
 * Nothing is added (and no CORS header is ever sent) when the list is empty.
 */
export function applyCors(api: FastifyInstance, settings: CorsSettings): void {
  const origins = corsOrigins(settings)
  if (origins.length === 0) return
  // Loaded only when CORS is configured.
  const { fastifyCors } = createRequire(import.meta.url)('@fastify/cors') as typeof import('@fastify/cors')
  void api.register(fastifyCors, {
    origin: origins.includes('*') ? '*' : origins,
    credentials: settings.cors_allow_credentials,
    methods: ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE', 'OPTIONS'],
    maxAge: 600,
  })
}
