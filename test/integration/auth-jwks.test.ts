import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JWTBearer, TokenRejected } from '../../src/auth/index.js'
import { AUDIENCE, ISSUER, confusedToken, makeKey, noneToken, signWith, startJwksServer, type JwksServer, type TestKey } from '../helpers/auth-tokens.js'

let jwks: JwksServer
let rsa: TestKey
let ec: TestKey

beforeAll(async () => {
  rsa = await makeKey('RS256', 'rsa-1')
  ec = await makeKey('ES256', 'ec-1')
  jwks = await startJwksServer([rsa, ec])
})
afterAll(() => jwks?.close())

const bearer = () => JWTBearer({ issuer: ISSUER, audience: AUDIENCE, jwksUrl: jwks.url })

async function rejection(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(() => undefined, (e: unknown) => e)
  expect(err).toBeInstanceOf(TokenRejected)
  return (err as TokenRejected).message
}

describe('JWTBearer with a JWKS on loopback', () => {
  it('verifies RS256 and ES256 tokens by kid', async () => {
    const b = bearer()
    await expect(b.verify(await signWith(rsa, { sub: 'rs' }))).resolves.toMatchObject({ sub: 'rs' })
    await expect(b.verify(await signWith(ec, { sub: 'es' }))).resolves.toMatchObject({ sub: 'es' })
  })

  it('rejects expired, wrong-issuer and wrong-audience tokens', async () => {
    const b = bearer()
    expect(await rejection(b.verify(await signWith(rsa, { expiresIn: -10 })))).toBe('Token expired')
    expect(await rejection(b.verify(await signWith(rsa, { iss: 'https://other.test' })))).toBe('Invalid token')
    expect(await rejection(b.verify(await signWith(rsa, { aud: 'other' })))).toBe('Invalid token')
  })

  it('rejects a token signed by a key that is not in the set, even with a known kid', async () => {
    const impostor = await makeKey('RS256', 'rsa-1')
    expect(await rejection(bearer().verify(await signWith(impostor)))).toBe('Invalid token')
  })

  it('rejects HS/RS confusion: HS256 keyed with the RSA public key', async () => {
    expect(await rejection(bearer().verify(await confusedToken(rsa)))).toBe('Invalid token')
  })

  it('rejects alg none', async () => {
    expect(await rejection(bearer().verify(noneToken()))).toBe('Invalid token')
  })

  it('only accepts the pinned algorithms', async () => {
    const rsOnly = JWTBearer({ issuer: ISSUER, audience: AUDIENCE, jwksUrl: jwks.url, algorithms: ['RS256'] })
    expect(await rejection(rsOnly.verify(await signWith(ec)))).toBe('Invalid token')
  })

  it('picks up a rotated key without a restart, and caches between rotations', async () => {
    const b = JWTBearer({ issuer: ISSUER, audience: AUDIENCE, jwksUrl: jwks.url, jwks: { cooldownSeconds: 0 } })
    await b.verify(await signWith(rsa))
    const hitsAfterFirst = jwks.hits
    await b.verify(await signWith(ec))
    expect(jwks.hits).toBe(hitsAfterFirst)

    const next = await makeKey('RS256', 'rsa-2')
    jwks.setKeys([next])
    await expect(b.verify(await signWith(next, { sub: 'rotated' }))).resolves.toMatchObject({ sub: 'rotated' })
    expect(jwks.hits).toBe(hitsAfterFirst + 1)
    jwks.setKeys([rsa, ec])
  })

  it('does not re-fetch for unknown kids during the cooldown', async () => {
    const b = bearer()
    await b.verify(await signWith(rsa))
    const hits = jwks.hits
    const stranger = await makeKey('RS256', 'unknown-kid')
    for (let i = 0; i < 3; i++) expect(await rejection(b.verify(await signWith(stranger)))).toBe('Invalid token')
    expect(jwks.hits).toBe(hits)
  })

  it('answers 401 (and does not hang) when the JWKS is unreachable', async () => {
    const b = JWTBearer({ issuer: ISSUER, audience: AUDIENCE, jwksUrl: 'http://127.0.0.1:9/jwks.json' })
    const err = await b.verify(await signWith(rsa)).then(() => undefined, (e: unknown) => e)
    expect(err).toBeInstanceOf(TokenRejected)
    expect((err as TokenRejected).operational).toBe(true)
  })
})
