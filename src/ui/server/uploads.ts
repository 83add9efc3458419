import { resolveRequestId } from '../../logging/request-id.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ERRORS, type SvcErrorCode } from '../../errors.js'
import type { SessionHost } from './local-sessions.js'

/**
 * `POST {base}/_stcore/upload`: one file per request, the raw bytes as the body (the browser
 * streams the `File`), for the page session named in `X-Svc-Session`. The answer is a reference
 * (`{"ref": …}`) that the `fileUploader` message carries instead of the file, so files never
 * travel inside a page-socket message and `ui_max_message_bytes` stays small. The session id
 * travels in a header, not the path, so access logs never show it.
 */
export const UPLOAD_PATH = '/_stcore/upload'
export const SESSION_HEADER = 'x-svc-session'
/** The file name, URI-encoded (a header carries only Latin-1). */
export const FILE_NAME_HEADER = 'x-svc-file-name'

export async function handleUpload(req: IncomingMessage, res: ServerResponse, deps: { sessions: SessionHost; maxBytes: number }): Promise<void> {
  const requestId = resolveRequestId(req.headers['x-request-id'])
  // The rest of a refused body is read and dropped by Node's server (nothing is kept), so the
  // client gets the answer instead of a reset while it is still sending.
  const fail = (code: SvcErrorCode, message: string): void => {
    reply(res, ERRORS[code].status, { error: ERRORS[code].error, message, request_id: requestId })
  }
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST')
    reply(res, 405, { error: 'method_not_allowed', message: `${UPLOAD_PATH} takes POST`, request_id: requestId })
    return
  }
  const sessionId = req.headers[SESSION_HEADER]
  const rawName = req.headers[FILE_NAME_HEADER]
  if (typeof sessionId !== 'string' || sessionId === '' || typeof rawName !== 'string') {
    fail('SVC_ERR_UI_UPLOAD_REJECTED', `an upload needs the ${SESSION_HEADER} and ${FILE_NAME_HEADER} headers`)
    return
  }
  let name: string
  try {
    name = decodeURIComponent(rawName)
  } catch {
    fail('SVC_ERR_UI_UPLOAD_REJECTED', `${FILE_NAME_HEADER} must be the URI-encoded (UTF-8) file name`)
    return
  }
  const limit = deps.maxBytes
  const declared = Number(req.headers['content-length'] ?? Number.NaN)
  const tooLarge = `the file is larger than ui_max_upload_bytes (${limit} bytes)`
  if (limit > 0 && declared > limit) {
    fail('SVC_ERR_UI_UPLOAD_TOO_LARGE', tooLarge)
    return
  }
  const bytes = await readBody(req, limit)
  if (bytes === 'too_large') {
    fail('SVC_ERR_UI_UPLOAD_TOO_LARGE', tooLarge)
    return
  }
  if (bytes === 'aborted') return
  const type = (req.headers['content-type'] ?? '').trim() || 'application/octet-stream'
  // Read before the bytes are moved to the session's page thread.
  const size = bytes.byteLength
  const outcome = await deps.sessions.upload({ sessionId, name, type, bytes })
  if (outcome.ok) reply(res, 200, { ref: outcome.ref, size })
  else fail(outcome.status === 404 ? 'SVC_ERR_UI_UPLOAD_SESSION' : 'SVC_ERR_UI_UPLOAD_REJECTED', outcome.message)
}

/** The body in one buffer of its own, or why not; at most `limit` bytes are ever held (0 = no limit). */
export function readBody(req: IncomingMessage, limit: number): Promise<Uint8Array | 'too_large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let total = 0
    req.on('data', (chunk: Buffer) => {
      total += chunk.byteLength
      if (limit > 0 && total > limit) {
        chunks.length = 0
        // Keep reading, dropping: the answer goes out and the connection stays usable.
        req.removeAllListeners('data')
        req.resume()
        resolve('too_large')
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      const out = new Uint8Array(total)
      let at = 0
      for (const c of chunks) {
        out.set(c, at)
        at += c.byteLength
      }
      resolve(out)
    })
    req.on('aborted', () => resolve('aborted'))
    req.on('error', () => resolve('aborted'))
  })
}

/** A JSON answer of the page server's own endpoints (uploads, cookie tickets). */
export function reply(res: ServerResponse, status: number, body: object): void {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' })
  res.end(text)
}
