import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TLSSocket } from 'node:tls'
import type { ResolvedSettings } from '../src/settings/schema.js'

/** Sent on every response when `enable_security_headers` is on (unless the response already has them). */
export const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'SAMEORIGIN',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
} as const

/** Only over HTTPS: a browser ignores HSTS on http, and sending it there would be misleading. */
export const HSTS_VALUE = 'max-age=63072000; includeSubDomains'

export type SecurityHeadersFn = (req: IncomingMessage, res: ServerResponse) => void

/**
 * The gateway's hardening headers (SVC_ENABLE_SECURITY_HEADERS=1), for EVERY response: API,
 * proxied UI and the gateway's own answers. Returns null when off, so the hot path checks one
 * variable. Call it before the head is written; headers already set (e.g. copied from the
 * upstream) are kept. HSTS only when the connection is TLS, or when `trust_proxy` is on and the
 * first `X-Forwarded-Proto` value is `https`.
 */
export function createSecurityHeaders(
  settings: Pick<ResolvedSettings, 'enable_security_headers' | 'trust_proxy'>,
): SecurityHeadersFn | null {
  if (!settings.enable_security_headers) return null
  const entries = Object.entries(SECURITY_HEADERS)
  const trustProxy = settings.trust_proxy
  return (req, res) => {
    for (const [name, value] of entries) {
      if (!res.hasHeader(name)) res.setHeader(name, value)
    }
    if (!res.hasHeader('Strict-Transport-Security') && isHttps(req, trustProxy)) {
      res.setHeader('Strict-Transport-Security', HSTS_VALUE)
    }
  }
}

function isHttps(req: IncomingMessage, trustProxy: boolean): boolean {
  if ((req.socket as Partial<TLSSocket>).encrypted === true) return true
  if (!trustProxy) return false
  const raw = req.headers['x-forwarded-proto']
  const first = (Array.isArray(raw) ? raw[0] : raw)?.split(',')[0]?.trim().toLowerCase()
  return first === 'https'
}
