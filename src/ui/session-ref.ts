import { createHash } from 'node:crypto'

/**
 * What logs carry instead of a page-session id (a bearer secret: whoever holds it resumes the
 * session): the first 12 characters of its SHA-256, enough to tell one session's lines from
 * another's, useless for resuming it.
 */
export function sessionRef(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('base64url').slice(0, 12)
}
