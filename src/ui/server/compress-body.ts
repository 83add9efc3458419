import type { IncomingMessage, ServerResponse } from 'node:http'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import { pickEncoding } from './accept-encoding.js'

/**
 * Answers the page server makes per request (the HTML shell, JSON) are compressed on the fly
 * when they pass this size: below it the encoded body would save less than the work costs.
 */
export const COMPRESS_MIN_BYTES = 512

const OFFERED = ['br', 'gzip'] as const
const brotliAsync = promisify(brotliCompress)
const gzipAsync = promisify(gzip)
/** Quality 5: most of brotli's gain on short text at a fraction of the highest level's time (that one is for the build). */
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } }
const GZIP_OPTIONS = { level: 6 }

/**
 * Send `body` with `status` and `headers`, brotli- or gzip-encoded when the client accepts one and
 * the body is at least COMPRESS_MIN_BYTES. Always `Vary: Accept-Encoding` (the same URL may be
 * sent either way). HEAD gets the headers of the GET.
 */
export async function sendCompressible(req: IncomingMessage, res: ServerResponse, status: number, headers: Record<string, string | number>, body: string | Buffer): Promise<void> {
  const plain = typeof body === 'string' ? Buffer.from(body) : body
  const encoding = plain.byteLength >= COMPRESS_MIN_BYTES ? pickEncoding(req.headers['accept-encoding'], OFFERED) : null
  const sent = encoding === 'br' ? await brotliAsync(plain, BROTLI_OPTIONS) : encoding === 'gzip' ? await gzipAsync(plain, GZIP_OPTIONS) : plain
  const head: Record<string, string | number> = { ...headers, vary: 'Accept-Encoding', 'content-length': sent.byteLength }
  if (encoding !== null) head['content-encoding'] = encoding
  res.writeHead(status, head)
  res.end(req.method === 'HEAD' ? undefined : sent)
}
