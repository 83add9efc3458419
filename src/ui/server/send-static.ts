import type { IncomingMessage, ServerResponse } from 'node:http'
import { pickEncoding } from './accept-encoding.js'
import { sendFileBody } from './file-body.js'
import type { Body, Encoding, StaticFile } from './static-files.js'

const SUFFIX: Record<Encoding, string> = { br: '.br', gzip: '.gz' }

/**
 * Answer a GET or HEAD for a static file: the stored body the client accepts best (precompressed
 * brotli or gzip, else plain), `Vary: Accept-Encoding` when there is a choice, its ETag and a 304
 * when `If-None-Match` has it, `nosniff`. Large bodies on disk are streamed. Headers already set on
 * `res` (request ID, security headers) stay.
 */
export function sendStatic(req: IncomingMessage, res: ServerResponse, file: StaticFile): void {
  const encoding = pickEncoding(req.headers['accept-encoding'], file.offered)
  const body: Body = encoding === null ? file.identity : file[encoding]!
  const etag = `"${encoding === null ? file.etag : file.etag + SUFFIX[encoding]}"`
  const headers: Record<string, string | number> = {
    'content-type': file.type,
    'cache-control': file.cacheControl,
    etag,
    'x-content-type-options': 'nosniff',
  }
  if (file.offered.length > 0) headers.vary = 'Accept-Encoding'
  if (encoding !== null) headers['content-encoding'] = encoding
  if (etagMatches(req.headers['if-none-match'], etag)) {
    delete headers['content-type']
    delete headers['content-encoding']
    res.writeHead(304, headers).end()
    return
  }
  headers['content-length'] = body.size
  res.writeHead(200, headers)
  if (req.method === 'HEAD') {
    res.end()
    return
  }
  if ('bytes' in body) {
    res.end(body.bytes)
    return
  }
  sendFileBody(res, body.path, body.size)
}

/** RFC 9110 §13.1.2: `If-None-Match` lists ETags (weak comparison) or is `*`. */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  if (header.trim() === '*') return true
  for (const part of header.split(',')) {
    const tag = part.trim()
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true
  }
  return false
}
