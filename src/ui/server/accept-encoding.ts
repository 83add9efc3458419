import negotiate from '@fastify/accept-negotiator'

/**
 * The encoding to send for an `Accept-Encoding` header, from `offered` (best first), q-values
 * honoured (`br;q=0` refuses brotli, `*` takes the best offered); null means the plain body.
 * Parsing is @fastify/accept-negotiator's. Browsers send a handful of distinct headers, so answers
 * are memoised, in a map that is emptied when it fills (a client sending a new header per request
 * cannot grow it).
 */
const MEMO_MAX = 256
const memo = new Map<string, string | null>()

export function pickEncoding<E extends string>(header: string | string[] | undefined, offered: readonly E[]): E | null {
  if (header === undefined || offered.length === 0) return null
  const value = Array.isArray(header) ? header.join(',') : header
  const key = `${offered.join(',')}\n${value}`
  let found = memo.get(key)
  if (found === undefined) {
    found = negotiate(value, offered as E[])
    if (memo.size >= MEMO_MAX) memo.clear()
    memo.set(key, found)
  }
  return found as E | null
}
