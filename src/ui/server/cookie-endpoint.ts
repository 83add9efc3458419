import type { IncomingMessage, ServerResponse } from 'node:http'
import { ERRORS } from '../../errors.js'
import { resolveRequestId } from '../../logging/request-id.js'
import { sessionRef } from '../session-ref.js'
import type { CookieKeys } from '../storage/cookie-keys.js'
import { readBody, reply, SESSION_HEADER } from './uploads.js'

/**
 * `POST {base}/_stcore/cookie`: the browser hands in a ticket a page sent it (`st.cookies.set`),
 * with its session id in `X-Svc-Session`; the answer (204) carries the ticket's `Set-Cookie`
 * lines. A ticket is sealed by the page server (AES-GCM), bound to its session and valid for a
 * minute, so nothing but a page of this app decides what is set.
 */
export const COOKIE_PATH = '/_stcore/cookie'
/** A ticket holds at most 50 cookies of 4 KiB, sealed and base64url-encoded. */
const MAX_TICKET_BYTES = 300 * 1024

export async function handleCookieTicket(req: IncomingMessage, res: ServerResponse, keys: CookieKeys): Promise<void> {
  const requestId = resolveRequestId(req.headers['x-request-id'])
  const refuse = (message: string): void => {
    const { status, error } = ERRORS.SVC_ERR_UI_COOKIE_REJECTED
    reply(res, status, { error, message, request_id: requestId })
  }
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST')
    reply(res, 405, { error: 'method_not_allowed', message: `${COOKIE_PATH} takes POST`, request_id: requestId })
    return
  }
  const sessionId = req.headers[SESSION_HEADER]
  const bytes = await readBody(req, MAX_TICKET_BYTES)
  if (bytes === 'aborted') return
  if (typeof sessionId !== 'string' || bytes === 'too_large') {
    refuse(`a cookie ticket is the body of a POST (at most ${MAX_TICKET_BYTES} bytes) with the ${SESSION_HEADER} header`)
    return
  }
  const ticket = keys.open(Buffer.from(bytes).toString('utf8').trim())
  if (ticket === null) {
    refuse('the cookie ticket was not made by this page server (with several replicas, set the same cookie_secret on each) or was changed')
    return
  }
  if (ticket.session !== sessionRef(sessionId)) {
    refuse('the cookie ticket belongs to another page session')
    return
  }
  if (!(ticket.expires > Date.now()) || !Array.isArray(ticket.cookies)) {
    refuse('the cookie ticket expired (a minute after the page made it); rerun the page')
    return
  }
  res.writeHead(204, { 'set-cookie': ticket.cookies.filter((c): c is string => typeof c === 'string'), 'cache-control': 'no-store' })
  res.end()
}
