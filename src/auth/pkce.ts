import { createHash, randomBytes } from 'node:crypto'

/** 32 random bytes as unpadded base64url (43 characters): state, nonce, auth codes. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

/** RFC 7636 S256: the challenge is base64url(SHA-256(verifier)). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url')
}

/** A PKCE verifier of 64 characters (RFC 7636 allows 43–128). */
export function pkceVerifier(): string {
  return randomToken(48)
}
