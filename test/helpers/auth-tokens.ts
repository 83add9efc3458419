import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type JWK, type CryptoKey } from 'jose'

/** A 32-byte test secret (svc refuses shorter HMAC secrets). */
export const TEST_SECRET = 'test-secret-0123456789abcdef-0123456789'
export const ISSUER = 'https://issuer.test'
export const AUDIENCE = 'svc-tests'

export interface TokenOptions {
  sub?: string
  iss?: string
  aud?: string | string[]
  /** Seconds from now; negative = already expired. */
  expiresIn?: number
  claims?: Record<string, unknown>
}

function base(options: TokenOptions, alg: string, kid?: string): SignJWT {
  const now = Math.floor(Date.now() / 1000)
  const jwt = new SignJWT({ ...(options.claims ?? {}) })
    .setProtectedHeader(kid ? { alg, kid, typ: 'JWT' } : { alg, typ: 'JWT' })
    .setIssuedAt(now - 60)
    .setIssuer(options.iss ?? ISSUER)
    .setAudience(options.aud ?? AUDIENCE)
    .setExpirationTime(now + (options.expiresIn ?? 300))
  if (options.sub !== '') jwt.setSubject(options.sub ?? 'user-1')
  return jwt
}

export function hsToken(options: TokenOptions = {}, secret: string | Uint8Array = TEST_SECRET): Promise<string> {
  return base(options, 'HS256').sign(typeof secret === 'string' ? new TextEncoder().encode(secret) : secret)
}

/** An unsecured JWT (`alg: none`, empty signature). */
export function noneToken(options: TokenOptions = {}): string {
  const now = Math.floor(Date.now() / 1000)
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const payload = { sub: options.sub ?? 'user-1', iss: options.iss ?? ISSUER, aud: options.aud ?? AUDIENCE, iat: now, exp: now + 300 }
  return `${enc({ alg: 'none', typ: 'JWT' })}.${enc(payload)}.`
}

export interface TestKey {
  kid: string
  alg: 'RS256' | 'ES256'
  privateKey: CryptoKey
  publicJwk: JWK
  publicPem: string
}

export async function makeKey(alg: 'RS256' | 'ES256', kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true })
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' }
  return { kid, alg, privateKey, publicJwk, publicPem: await exportSPKI(publicKey) }
}

export function signWith(key: TestKey, options: TokenOptions = {}): Promise<string> {
  return base(options, key.alg, key.kid).sign(key.privateKey)
}

/** HS/RS confusion: an HS256 token whose HMAC secret is the RSA public key text. */
export function confusedToken(key: TestKey, options: TokenOptions = {}): Promise<string> {
  return base(options, 'HS256', key.kid).sign(new TextEncoder().encode(key.publicPem))
}

export interface JwksServer {
  url: string
  /** Replace the served key set (key rotation). */
  setKeys(keys: TestKey[]): void
  readonly hits: number
  close(): Promise<void>
}

/** A JWKS endpoint on a real loopback node:http server. */
export async function startJwksServer(keys: TestKey[]): Promise<JwksServer> {
  let current = keys
  let hits = 0
  const server: Server = createServer((req, res) => {
    hits += 1
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ keys: current.map((k) => k.publicJwk) }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    setKeys: (next) => {
      current = next
    },
    get hits() {
      return hits
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
