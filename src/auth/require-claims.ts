import type { FastifyReply, FastifyRequest } from 'fastify'
import { SvcError } from '../errors.js'
import { AUTH_DETAIL, sendAuthError } from './auth-reply.js'
import { claimValues, findClaims } from './claims.js'
import type { JWTBearer } from './jwt-bearer.js'

/** A preHandler that runs a bearer guard (once per request) and then checks claims. */
export type ClaimGuard = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>

export interface RequireClaimOptions {
  /** Claim(s) to read; a claim may be a space-delimited string or a list of strings. */
  claim?: string | string[]
}

type Args = [RequireClaimOptions, ...string[]] | string[]

function splitArgs(args: Args, fallback: string[], where: string): { claims: string[]; wanted: string[] } {
  const [first, ...rest] = args
  const options = typeof first === 'object' ? first : undefined
  const wanted = (options ? rest : args) as string[]
  if (wanted.length === 0 || wanted.some((w) => typeof w !== 'string' || w.trim() === '')) {
    throw new SvcError('SVC_ERR_AUTH_CONFIG', `${where}: name at least one non-empty value after the bearer guard`)
  }
  const claim = options?.claim
  const claims = claim === undefined ? fallback : Array.isArray(claim) ? claim : [claim]
  return { claims, wanted }
}

/**
 * Admit the request only if the token carries ALL the scopes: read from `scope` (space-delimited
 * string, OAuth 2.0) and `scp` (list or string, as Azure AD and Okta send it). 403 `Insufficient scope`
 * otherwise. `RequireScopes(bearer, 'reports:read')` or `RequireScopes(bearer, { claim: 'permissions' }, 'x')`.
 */
export function RequireScopes(bearer: JWTBearer, ...args: Args): ClaimGuard {
  const { claims, wanted } = splitArgs(args, ['scope', 'scp'], 'RequireScopes()')
  const challenge = `Bearer error="insufficient_scope", scope="${wanted.join(' ')}"`
  return guardWith(bearer, (have) => wanted.every((w) => have.has(w)), claims, AUTH_DETAIL.scope, challenge)
}

/**
 * Admit the request if the token carries AT LEAST ONE of the roles (claim `roles`; a string
 * counts as one role). 403 `Insufficient role` otherwise.
 */
export function RequireRoles(bearer: JWTBearer, ...args: Args): ClaimGuard {
  const { claims, wanted } = splitArgs(args, ['roles'], 'RequireRoles()')
  return guardWith(bearer, (have) => wanted.some((w) => have.has(w)), claims, AUTH_DETAIL.role, undefined)
}

function guardWith(
  bearer: JWTBearer,
  admits: (have: ReadonlySet<string>) => boolean,
  claimNames: string[],
  detail: string,
  challenge: string | undefined,
): ClaimGuard {
  return async (request, reply) => {
    if (!findClaims(request)) {
      const answered = await bearer(request, reply)
      if (answered) return answered
    }
    const claims = findClaims(request)
    // Space-splitting applies to scope-style claims only; a role string is one role.
    const split = detail === AUTH_DETAIL.scope
    const have = new Set(claims ? claimNames.flatMap((n) => claimValues(claims, n, split)) : [])
    if (admits(have)) return undefined
    return sendAuthError(request, reply, 'SVC_ERR_AUTH_FORBIDDEN', detail, challenge)
  }
}
