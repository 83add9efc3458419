import { randomUUID } from 'node:crypto'
import { SvcError } from '../errors.js'
import { secretBytes } from './algorithms.js'
import { loadJose } from './jose-loader.js'

export interface IssueAccessTokenOptions {
  subject: string
  issuer: string
  audience: string | string[]
  /** HMAC secret, ≥ 32 bytes; the same value the verifying `JWTBearer` gets. */
  secret: string | Uint8Array
  /** Lifetime; keep it short (default 900 s = 15 min). */
  ttlSeconds?: number
  /** Extra claims (`scope`, `roles`, ...); they cannot override `sub`, `iss`, `aud`, `iat`, `exp`. */
  claims?: Record<string, unknown>
}

export const DEFAULT_ACCESS_TOKEN_TTL_S = 900

const RESERVED = new Set(['sub', 'iss', 'aud', 'iat', 'exp', 'nbf'])

/** Mint a first-party HS256 access token with `sub, iss, aud, iat, exp, jti` plus `claims`. */
export async function issueAccessToken(options: IssueAccessTokenOptions): Promise<string> {
  const where = 'issueAccessToken()'
  const ttl = options.ttlSeconds ?? DEFAULT_ACCESS_TOKEN_TTL_S
  if (!Number.isInteger(ttl) || ttl <= 0) {
    throw new SvcError('SVC_ERR_AUTH_CONFIG', `${where}: ttlSeconds must be a positive integer, got ${ttl}`)
  }
  if (options.subject === '') throw new SvcError('SVC_ERR_AUTH_CONFIG', `${where}: subject is empty`)
  const key = secretBytes(options.secret, where)
  const jose = await loadJose()
  const extra = Object.fromEntries(Object.entries(options.claims ?? {}).filter(([k]) => !RESERVED.has(k)))
  const now = Math.floor(Date.now() / 1000)
  return new jose.SignJWT({ jti: randomUUID(), ...extra })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(options.subject)
    .setIssuer(options.issuer)
    .setAudience(options.audience)
    .setIssuedAt(now)
    .setExpirationTime(now + ttl)
    .sign(key)
}
