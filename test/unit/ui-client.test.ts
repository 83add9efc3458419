import { describe, expect, it } from 'vitest'
import { backoffDelay } from '../../src/ui/client/backoff.js'
import { normalizeBasePath } from '../../src/ui/client/config.js'
import { pageHref, pagePathFromLocation, streamUrl } from '../../src/ui/client/url.js'

// Pure pieces of the browser client; rendering is covered by test/e2e.

describe('client url helpers', () => {
  it('maps public paths to page paths under a base path', () => {
    expect(pagePathFromLocation('/tools/reports', '/tools')).toBe('/reports')
    expect(pagePathFromLocation('/tools/', '/tools')).toBe('/')
    expect(pagePathFromLocation('/tools', '/tools')).toBe('/')
    expect(pagePathFromLocation('/toolsx/a', '/tools')).toBe('/')
    expect(pagePathFromLocation('/a/b', '')).toBe('/a/b')
  })

  it('builds page and stream URLs relative to the base path', () => {
    expect(pageHref('/tools', '/reports', 'a=1')).toBe('/tools/reports?a=1')
    expect(pageHref('', '/', '')).toBe('/')
    expect(pageHref('/tools', 'x', '?q=2')).toBe('/tools/x?q=2')
    expect(streamUrl({ protocol: 'https:', host: 'h:8443' }, '/tools')).toBe('wss://h:8443/tools/_stcore/stream')
    expect(streamUrl({ protocol: 'http:', host: 'h' }, '')).toBe('ws://h/_stcore/stream')
  })

  it('normalizes the configured base path', () => {
    expect(normalizeBasePath('/tools/')).toBe('/tools')
    expect(normalizeBasePath('tools')).toBe('/tools')
    expect(normalizeBasePath('/')).toBe('')
    expect(normalizeBasePath(undefined)).toBe('')
  })
})

describe('reconnect back-off', () => {
  const opts = { baseMs: 250, maxMs: 10_000, jitter: 0.2 }
  it('grows exponentially and caps', () => {
    expect([0, 1, 2, 3].map((a) => backoffDelay(a, opts, () => 0.5))).toEqual([250, 500, 1000, 2000])
    expect(backoffDelay(30, opts, () => 0.5)).toBe(10_000)
  })
  it('jitters within ±20%', () => {
    expect(backoffDelay(2, opts, () => 0)).toBe(800)
    expect(backoffDelay(2, opts, () => 1)).toBe(1200)
  })
})
