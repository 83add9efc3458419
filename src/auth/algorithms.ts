import { SvcError } from '../errors.js'

/** Algorithms verified with a shared secret. */
export const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const
/** Algorithms verified with a public key (JWKS). */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519',
] as const

/** HS256 keys shorter than this are brute-forceable (RFC 7518 §3.2: key size ≥ hash size). */
export const MIN_HMAC_SECRET_BYTES = 32

/**
 * Pin the accepted algorithms to one family so a token can never pick its own: a secret only
 * verifies HS*, a JWKS only verifies public-key algorithms, and `none` is never accepted.
 */
export function pinAlgorithms(family: 'hmac' | 'asymmetric', requested: readonly string[] | undefined, where: string): string[] {
  const allowed: readonly string[] = family === 'hmac' ? HMAC_ALGORITHMS : ASYMMETRIC_ALGORITHMS
  const algorithms = requested ?? (family === 'hmac' ? ['HS256'] : ['RS256', 'ES256'])
  if (algorithms.length === 0) {
    throw new SvcError('SVC_ERR_AUTH_CONFIG', `${where}: algorithms is empty; list at least one of ${allowed.join(', ')}`)
  }
  const bad = algorithms.filter((a) => !allowed.includes(a))
  if (bad.length > 0) {
    const source = family === 'hmac' ? 'a shared secret' : 'a JWKS URL'
    throw new SvcError(
      'SVC_ERR_AUTH_CONFIG',
      `${where}: algorithm(s) ${bad.join(', ')} cannot be used with ${source}; allowed: ${allowed.join(', ')}`,
    )
  }
  return [...algorithms]
}

export function secretBytes(secret: string | Uint8Array, where: string): Uint8Array {
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret
  if (bytes.byteLength < MIN_HMAC_SECRET_BYTES) {
    throw new SvcError(
      'SVC_ERR_AUTH_CONFIG',
      `${where}: the HMAC secret is ${bytes.byteLength} bytes; use at least ${MIN_HMAC_SECRET_BYTES} random bytes ` +
        '(e.g. `node -e "console.log(crypto.randomBytes(32).toString(\'base64url\'))"`)',
    )
  }
  return bytes
}
