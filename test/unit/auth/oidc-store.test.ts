import { describe, expect, it } from 'vitest'
import { MemoryOidcBffStore } from '../../../src/auth/oidc-store.js'
import { pkceChallenge, pkceVerifier, randomToken } from '../../../src/auth/pkce.js'

describe('MemoryOidcBffStore', () => {
  it('take() is single use', async () => {
    const store = new MemoryOidcBffStore()
    await store.set('code:a', 'v', 60)
    expect(await store.take('code:a')).toBe('v')
    expect(await store.take('code:a')).toBeUndefined()
  })

  it('never returns an expired entry', async () => {
    let now = 0
    const store = new MemoryOidcBffStore({ now: () => now })
    await store.set('state:s', 'v', 120)
    now = 120_001
    expect(await store.take('state:s')).toBeUndefined()
  })

  it('purges expired entries and caps its size, dropping the oldest', async () => {
    let now = 0
    const store = new MemoryOidcBffStore({ maxEntries: 3, now: () => now })
    await store.set('a', '1', 1)
    now = 2_000
    await store.set('b', '2', 60)
    expect(store.size).toBe(1)
    await store.set('c', '3', 60)
    await store.set('d', '4', 60)
    await store.set('e', '5', 60)
    expect(store.size).toBe(3)
    expect(await store.take('b')).toBeUndefined()
    expect(await store.take('e')).toBe('5')
  })
})

describe('PKCE', () => {
  it('matches the RFC 7636 appendix B example', () => {
    expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')
  })

  it('makes URL-safe values of the right length', () => {
    expect(randomToken()).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(pkceVerifier()).toMatch(/^[A-Za-z0-9_-]{64}$/)
  })
})
