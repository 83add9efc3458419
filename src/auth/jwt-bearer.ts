import type { FastifyReply, FastifyRequest } from 'fastify'
import type { JWTVerifyGetKey } from 'jose'
import { SvcError } from '../errors.js'
import { resolveProcessSettings } from '../settings/resolve.js'
import type { ResolvedSettings } from '../settings/schema.js'
import { pinAlgorithms, secretBytes } from './algorithms.js'
import { AUTH_DETAIL, sendAuthError } from './auth-reply.js'
import { StandardClaims, findClaims, setClaims } from './claims.js'
import { loadJose, type Jose } from './jose-loader.js'

export type JwtSettings = Pick<
  ResolvedSettings,
  'jwt_issuer' | 'jwt_audience' | 'jwt_hs256_secret' | 'jwt_jwks_url' | 'jwt_leeway_seconds'
>

export interface JWTBearerOptions {
  /** Expected `iss`. Default: setting `jwt_issuer`. */
  issuer?: string
  /** Expected `aud` (any one of a list). Default: setting `jwt_audience`. */
  audience?: string | string[]
  /** Shared HMAC secret (≥ 32 bytes). Default: setting `jwt_hs256_secret`. Exclusive with `jwksUrl`. */
  secret?: string | Uint8Array
  /** URL of the issuer's JWKS; keys are cached and re-fetched on an unknown `kid`. Default: setting `jwt_jwks_url`. */
  jwksUrl?: string
  /** JWKS cache tuning: an unknown `kid` re-fetches at most once per cooldown (default 30 s); keys are kept 10 min. */
  jwks?: { cooldownSeconds?: number; cacheMaxAgeSeconds?: number; timeoutMs?: number }
  /** Accepted algorithms. Default `['HS256']` with a secret, `['RS256', 'ES256']` with a JWKS. */
  algorithms?: string[]
  /** Clock skew allowed on `exp`/`nbf`/`iat`. Default: setting `jwt_leeway_seconds`. */
  leewaySeconds?: number
  /** Where omitted options come from; default: the process settings (env, svc.config.json). Pass `app.settings`. */
  settings?: JwtSettings
  /**
   * Checked after the signature: true refuses the token with 401 "Sign-in ended". The OIDC
   * login's guard (`login.bearer`) refuses the tokens of a sign-in that was signed out.
   */
  isRevoked?: (claims: StandardClaims) => Promise<boolean>
}

/** What a bearer guard checks, without its key material. */
export interface JWTBearerConfig {
  readonly issuer: string
  readonly audience: string | readonly string[]
  readonly algorithms: readonly string[]
  readonly leewaySeconds: number
  readonly keySource: 'secret' | 'jwks'
  readonly jwksUrl: string | undefined
}

/**
 * Thrown by `bearer.verify()`; `kind` picks the 401 text. `operational` marks failures that are
 * no verdict on the token (JWKS unreachable or malformed), which the guard logs as warnings.
 */
export class TokenRejected extends SvcError {
  constructor(
    readonly kind: 'expired' | 'invalid' | 'ended',
    readonly operational = false,
    options?: ErrorOptions,
  ) {
    super('SVC_ERR_AUTH_UNAUTHORIZED', AUTH_DETAIL[kind], options)
    this.name = 'TokenRejected'
  }

  // SvcError's brand check would match every SvcError; this class means the prototype chain.
  static override [Symbol.hasInstance](value: unknown): boolean {
    return Function.prototype[Symbol.hasInstance].call(this, value)
  }
}

/**
 * A Fastify preHandler that admits requests with a valid `Authorization: Bearer <jwt>`:
 * `app.api.get('/me', { preHandler: bearer }, (req) => ({ sub: getClaims(req).sub }))`.
 */
export interface JWTBearer {
  (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>
  readonly config: JWTBearerConfig
  /** Verify a raw token; resolves to its claims or rejects with `TokenRejected`. */
  verify(token: string): Promise<StandardClaims>
}

const WHERE = 'JWTBearer()'
const CHALLENGE = 'Bearer'
const CHALLENGE_INVALID = 'Bearer error="invalid_token"'

/** Build a bearer guard; options not given come from the `jwt_*` settings. */
export function JWTBearer(options: JWTBearerOptions = {}): JWTBearer {
  const resolved = resolveBearerOptions(options)
  const { config, secret } = resolved
  let keyPromise: Promise<{ jose: Jose; key: Uint8Array | JWTVerifyGetKey }> | undefined
  const keyOnce = () => {
    keyPromise ??= loadJose().then((jose) => ({
      jose,
      key: secret ?? jose.createRemoteJWKSet(new URL(config.jwksUrl as string), {
        timeoutDuration: options.jwks?.timeoutMs ?? 5_000,
        // Bounds re-fetches triggered by tokens with unknown kids (a cheap DoS otherwise).
        cooldownDuration: (options.jwks?.cooldownSeconds ?? 30) * 1000,
        cacheMaxAge: (options.jwks?.cacheMaxAgeSeconds ?? 600) * 1000,
      }),
    }))
    keyPromise.catch(() => {
      keyPromise = undefined
    })
    return keyPromise
  }

  const verify = async (token: string): Promise<StandardClaims> => {
    const { jose, key } = await keyOnce()
    let payload: unknown
    try {
      const result = await jose.jwtVerify(token, key as Uint8Array, {
        issuer: config.issuer,
        audience: config.audience as string | string[],
        algorithms: config.algorithms as string[],
        clockTolerance: config.leewaySeconds,
        requiredClaims: ['exp', 'sub'],
      })
      payload = result.payload
    } catch (err) {
      const { errors } = jose
      const operational =
        !(err instanceof errors.JOSEError) || err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid
      throw new TokenRejected(err instanceof errors.JWTExpired ? 'expired' : 'invalid', operational, { cause: err })
    }
    const parsed = StandardClaims.safeParse(payload)
    if (!parsed.success) throw new TokenRejected('invalid', false, { cause: parsed.error })
    if (options.isRevoked && (await options.isRevoked(parsed.data))) throw new TokenRejected('ended')
    return parsed.data
  }

  const guard = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (findClaims(request)) return undefined
    const header = request.headers.authorization
    const match = typeof header === 'string' ? /^\s*(\S+)(.*)$/s.exec(header) : null
    if (!match || match[1]?.toLowerCase() !== 'bearer') {
      return sendAuthError(request, reply, 'SVC_ERR_AUTH_UNAUTHORIZED', AUTH_DETAIL.missing, CHALLENGE)
    }
    const token = (match[2] ?? '').trim()
    if (token === '') return sendAuthError(request, reply, 'SVC_ERR_AUTH_UNAUTHORIZED', AUTH_DETAIL.empty, CHALLENGE)
    try {
      setClaims(request, await verify(token))
      return undefined
    } catch (err) {
      if (!(err instanceof TokenRejected)) throw err
      const { kind } = err
      const reason = (err.cause as Error | undefined)?.message
      if (err.operational) request.log.warn({ reason }, 'bearer token could not be verified (key source problem)')
      else request.log.debug({ reason }, `bearer token rejected: ${kind}`)
      return sendAuthError(request, reply, 'SVC_ERR_AUTH_UNAUTHORIZED', AUTH_DETAIL[kind], CHALLENGE_INVALID)
    }
  }
  return Object.assign(guard, { config, verify })
}

interface ResolvedBearer {
  config: JWTBearerConfig
  secret: Uint8Array | undefined
}

function resolveBearerOptions(options: JWTBearerOptions): ResolvedBearer {
  const needsSettings =
    options.issuer === undefined ||
    options.audience === undefined ||
    options.leewaySeconds === undefined ||
    (options.secret === undefined && options.jwksUrl === undefined)
  const s = needsSettings ? (options.settings ?? resolveProcessSettings()) : undefined
  const issuer = options.issuer ?? s?.jwt_issuer ?? ''
  const audience = options.audience ?? s?.jwt_audience ?? ''
  const leewaySeconds = options.leewaySeconds ?? s?.jwt_leeway_seconds ?? 0
  if (issuer === '') throw missing('issuer', 'SVC_JWT_ISSUER')
  if (audience === '' || (Array.isArray(audience) && audience.length === 0)) throw missing('audience', 'SVC_JWT_AUDIENCE')
  if (!Number.isFinite(leewaySeconds) || leewaySeconds < 0) {
    throw new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: leewaySeconds must be ≥ 0, got ${leewaySeconds}`)
  }

  let secret = options.secret
  let jwksUrl = options.jwksUrl
  if (secret === undefined && jwksUrl === undefined) {
    secret = s?.jwt_hs256_secret || undefined
    jwksUrl = s?.jwt_jwks_url || undefined
    if (secret !== undefined && jwksUrl !== undefined) {
      throw new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: set only one of SVC_JWT_HS256_SECRET and SVC_JWT_JWKS_URL`)
    }
  }
  if (secret !== undefined && jwksUrl !== undefined) {
    throw new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: pass either secret (HS*) or jwksUrl (public keys), not both`)
  }
  if (secret === undefined && jwksUrl === undefined) {
    throw new SvcError(
      'SVC_ERR_AUTH_CONFIG',
      `${WHERE}: no key; pass { secret } or { jwksUrl }, or set SVC_JWT_HS256_SECRET or SVC_JWT_JWKS_URL`,
    )
  }
  if (jwksUrl !== undefined) assertHttpUrl(jwksUrl)
  const family = secret !== undefined ? 'hmac' : 'asymmetric'
  return {
    secret: secret !== undefined ? secretBytes(secret, WHERE) : undefined,
    config: Object.freeze({
      issuer,
      audience: Array.isArray(audience) ? Object.freeze([...audience]) : audience,
      algorithms: Object.freeze(pinAlgorithms(family, options.algorithms, WHERE)),
      leewaySeconds,
      keySource: family === 'hmac' ? 'secret' : 'jwks',
      jwksUrl,
    }),
  }
}

function missing(option: string, env: string): SvcError {
  return new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: ${option} is required; pass { ${option} } or set ${env}`)
}

function assertHttpUrl(url: string): void {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch (err) {
    throw new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: jwksUrl ${JSON.stringify(url)} is not an absolute URL`, { cause: err })
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new SvcError('SVC_ERR_AUTH_CONFIG', `${WHERE}: jwksUrl must be http(s), got ${parsed.protocol}`)
  }
}
