import { z } from '../internal/zod.js'
import type { FastifyRequest } from 'fastify'
import { SvcError } from '../errors.js'

const numericDate = z.number().int().nonnegative()

/**
 * The registered claims svc reads from a verified token. `sub` is required; every other claim
 * the issuer put in the token is kept as-is.
 */
export const StandardClaims = z.looseObject({
  sub: z.string().min(1),
  iss: z.string().optional(),
  aud: z.union([z.string(), z.array(z.string())]).optional(),
  exp: numericDate.optional(),
  iat: numericDate.optional(),
  nbf: numericDate.optional(),
  jti: z.string().optional(),
  scope: z.string().optional(),
})
export type StandardClaims = z.infer<typeof StandardClaims>

// Keyed by request object: no Fastify decorator is needed, so any route on any instance works.
const claimsByRequest = new WeakMap<FastifyRequest, StandardClaims>()

export function setClaims(request: FastifyRequest, claims: StandardClaims): void {
  claimsByRequest.set(request, claims)
}

/** The verified claims of this request, or undefined when no bearer guard has passed yet. */
export function findClaims(request: FastifyRequest): StandardClaims | undefined {
  return claimsByRequest.get(request)
}

/**
 * The verified claims of a request that passed a `JWTBearer` guard:
 * `app.api.get('/me', { preHandler: bearer }, (req) => ({ sub: getClaims(req).sub }))`.
 */
export function getClaims(request: FastifyRequest): StandardClaims {
  const claims = claimsByRequest.get(request)
  if (!claims) {
    throw new SvcError(
      'SVC_ERR_AUTH_CONFIG',
      `getClaims(): route ${request.method} ${request.routeOptions.url ?? request.url} has no JWTBearer guard; ` +
        'add it with { preHandler: bearer }',
    )
  }
  return claims
}

/** Values of a claim that may be a space-delimited string or a list of strings; other shapes give none. */
export function claimValues(claims: StandardClaims, name: string, split: boolean): string[] {
  const value = claims[name]
  if (typeof value === 'string') return split ? value.split(/\s+/).filter(Boolean) : [value]
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string')
  return []
}
