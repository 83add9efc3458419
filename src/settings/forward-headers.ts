import { SvcError } from '../errors.js'

/**
 * Rules for the `gateway_forward_client_headers` allowlist, shared by the gateway (which
 * forwards) and `svc doctor` (which reports). Pure: no I/O, no settings object.
 */

/** Hop-by-hop headers (RFC 7230 §6.1 and the common non-standard ones): never cross a proxy. */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
])

/** Set by the gateway itself on every hop; a client's values are dropped, never forwarded. */
export const GATEWAY_SET_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-forwarded-prefix',
  'forwarded',
  'x-request-id',
])

/**
 * Names the gateway never copies from a client on behalf of the allowlist: hop-by-hop headers,
 * framing (`host`, `content-length`), forwarding headers the gateway sets itself
 * (`x-forwarded-*`, `forwarded`, `x-request-id`) and credentials (`authorization`,
 * `proxy-authorization`, `cookie`, `set-cookie`).
 * Any other `x-forwarded-…` name is also refused (see `isNeverForwarded`).
 */
export const NEVER_FORWARD_HEADERS: ReadonlySet<string> = new Set([
  ...HOP_BY_HOP_HEADERS,
  ...GATEWAY_SET_HEADERS,
  'content-length',
  'authorization',
  'cookie',
  'set-cookie',
])

/** At most this many valid names; more is a settings error (FluxLit's limit). */
export const MAX_FORWARD_ALLOWLIST = 32

/** Lowercase token: starts with a letter or digit, then letters, digits, `-`; 64 chars at most. */
export const FORWARD_HEADER_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/

export function isNeverForwarded(lowerName: string): boolean {
  return NEVER_FORWARD_HEADERS.has(lowerName) || lowerName.startsWith('x-forwarded-')
}

export interface ForwardAllowlist {
  /** Names to forward: lowercased, valid, deduped, sorted. */
  allowed: string[]
  /** Names the user listed that are never forwarded (reported as `gateway_forward_rejected_names`). */
  rejected: string[]
  /** Names dropped because they are not header tokens (e.g. `bad name`, `x_user`). */
  invalid: string[]
}

const sortedUnique = (names: Iterable<string>): string[] => [...new Set(names)].sort()

/**
 * Normalise the allowlist: trim + lowercase, drop empty, split off never-forwarded names, keep
 * names matching `FORWARD_HEADER_NAME`. Throws `SVC_ERR_CONFIG_INVALID` above 32 valid names.
 * `["X-Request-Tag", "authorization", "", "bad name"]` → allowed `["x-request-tag"]`,
 * rejected `["authorization"]`, invalid `["bad name"]`.
 */
export function normalizeForwardAllowlist(names: readonly string[]): ForwardAllowlist {
  const allowed: string[] = []
  const rejected: string[] = []
  const invalid: string[] = []
  for (const raw of names) {
    const name = raw.trim().toLowerCase()
    if (name === '') continue
    if (isNeverForwarded(name)) rejected.push(name)
    else if (FORWARD_HEADER_NAME.test(name)) allowed.push(name)
    else invalid.push(name)
  }
  const result = { allowed: sortedUnique(allowed), rejected: sortedUnique(rejected), invalid: sortedUnique(invalid) }
  if (result.allowed.length > MAX_FORWARD_ALLOWLIST) {
    throw new SvcError(
      'SVC_ERR_CONFIG_INVALID',
      `gateway_forward_client_headers lists ${result.allowed.length} header names; at most ${MAX_FORWARD_ALLOWLIST} are allowed — keep only the headers the UI sidecar needs`,
    )
  }
  return result
}
