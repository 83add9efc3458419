import { describe, expect, it } from 'vitest'
import { isSvcError } from '../../../src/errors.js'
import {
  MAX_FORWARD_ALLOWLIST,
  NEVER_FORWARD_HEADERS,
  isNeverForwarded,
  normalizeForwardAllowlist,
} from '../../../src/settings/forward-headers.js'

describe('normalizeForwardAllowlist', () => {
  it('trims, lowercases, drops empties, splits off refused and invalid names, dedupes and sorts', () => {
    expect(normalizeForwardAllowlist(['X-Tenant', 'authorization', 'traceparent', '', 'bad name', 'cookie', ' x-tenant '])).toEqual({
      allowed: ['traceparent', 'x-tenant'],
      rejected: ['authorization', 'cookie'],
      invalid: ['bad name'],
    })
  })

  it('records each refused name once, lowercased', () => {
    expect(normalizeForwardAllowlist(['Authorization', 'traceparent']).rejected).toEqual(['authorization'])
    expect(normalizeForwardAllowlist(['cookie', 'Cookie', 'x']).rejected).toEqual(['cookie'])
    expect(normalizeForwardAllowlist(['', 'host']).rejected).toEqual(['host'])
  })

  it('refuses every x-forwarded-* name, hop-by-hop and credential headers', () => {
    const names = ['X-Forwarded-For', 'x-forwarded-anything', 'Connection', 'TE', 'Upgrade', 'Proxy-Authorization', 'Set-Cookie', 'Content-Length', 'X-Request-ID', 'Forwarded']
    const result = normalizeForwardAllowlist(names)
    expect(result.allowed).toEqual([])
    expect(result.rejected).toHaveLength(names.length)
  })

  it('enforces the header-name pattern: no underscores, dots, leading dash, or more than 64 chars', () => {
    const result = normalizeForwardAllowlist(['x_user', 'x.user', '-x', 'a'.repeat(64), 'a'.repeat(65), '9lives'])
    expect(result.allowed).toEqual(['9lives', 'a'.repeat(64)])
    expect(result.invalid).toEqual(['-x', 'a'.repeat(65), 'x.user', 'x_user'])
  })

  it(`allows ${MAX_FORWARD_ALLOWLIST} valid names and fails above`, () => {
    const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `x-h${i}`)
    expect(normalizeForwardAllowlist(names(MAX_FORWARD_ALLOWLIST)).allowed).toHaveLength(MAX_FORWARD_ALLOWLIST)
    // Refused and duplicate names do not count towards the limit.
    expect(normalizeForwardAllowlist([...names(MAX_FORWARD_ALLOWLIST), 'cookie', 'X-H0']).allowed).toHaveLength(MAX_FORWARD_ALLOWLIST)
    try {
      normalizeForwardAllowlist(names(MAX_FORWARD_ALLOWLIST + 1))
      expect.unreachable()
    } catch (err) {
      expect(isSvcError(err) && err.code).toBe('SVC_ERR_CONFIG_INVALID')
      expect((err as Error).message).toMatch(/33 header names; at most 32/)
    }
  })
})

describe('NEVER_FORWARD_HEADERS', () => {
  it('is lowercase and covered by isNeverForwarded', () => {
    for (const name of NEVER_FORWARD_HEADERS) {
      expect(name).toBe(name.toLowerCase())
      expect(isNeverForwarded(name)).toBe(true)
    }
    expect(isNeverForwarded('traceparent')).toBe(false)
  })
})
