import type { FastifyReply, FastifyRequest } from 'fastify'
import { ERRORS, type SvcErrorCode } from '../errors.js'
import { getRequestId } from '../logging/context.js'

/** FluxLit-compatible texts of an auth failure, also sent as `detail`. */
export const AUTH_DETAIL = {
  missing: 'Missing bearer token',
  empty: 'Empty bearer token',
  expired: 'Token expired',
  invalid: 'Invalid token',
  ended: 'Sign-in ended (signed out); sign in again',
  scope: 'Insufficient scope',
  role: 'Insufficient role',
} as const

export interface AuthErrorBody {
  error: string
  message: string
  detail: string
  request_id: string
}

/**
 * Answer with svc's JSON error shape. Returns the reply so an async preHandler can
 * `return sendAuthError(...)` and Fastify stops the chain.
 */
export function sendAuthError(
  request: FastifyRequest,
  reply: FastifyReply,
  code: SvcErrorCode,
  text: string,
  wwwAuthenticate?: string,
): FastifyReply {
  const { status, error } = ERRORS[code]
  if (wwwAuthenticate) reply.header('WWW-Authenticate', wwwAuthenticate)
  const body: AuthErrorBody = { error, message: text, detail: text, request_id: getRequestId() ?? String(request.id) }
  return reply.code(status).header('Cache-Control', 'no-store').send(body)
}
