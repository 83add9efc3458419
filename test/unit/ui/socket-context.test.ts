import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { clientAddress, helloContext } from '../../../src/ui/runtime/socket-context.js'
import { HelloClient } from '../../../src/ui/wire/protocol.js'
import { FileUserStore } from '../../../src/ui/storage/user-store.js'
import { isSvcError } from '../../../src/errors.js'

describe('st.context from the handshake and the hello', () => {
  it('the visitor address: the gateway peer without trust_proxy; with it, what the proxy in front reported, never an entry a client wrote', () => {
    expect(clientAddress('198.51.100.7', '127.0.0.1', false)).toBe('198.51.100.7')
    // A client-sent X-Forwarded-For never reaches the page server without trust_proxy (the gateway drops it); the last entry is the gateway's own.
    expect(clientAddress('203.0.113.9, 198.51.100.7', '127.0.0.1', false)).toBe('198.51.100.7')
    // trust_proxy: spoof, what nginx saw, nginx itself.
    expect(clientAddress('203.0.113.9, 198.51.100.7, 10.0.0.2', '127.0.0.1', true)).toBe('198.51.100.7')
    expect(clientAddress('10.0.0.2', '127.0.0.1', true)).toBe('10.0.0.2')
    expect(clientAddress(undefined, '::ffff:127.0.0.1', false)).toBe('127.0.0.1')
    expect(clientAddress('not-an-ip', undefined, false)).toBeNull()
    expect(clientAddress(undefined, undefined, false)).toBeNull()
  })

  it('browser facts are bounded: a bad field reads as null, a URL must be this host under the root path, a zone must exist', () => {
    const client = HelloClient.parse({ locale: 'en-GB', timezone: 'Europe/Berlin', timezoneOffset: -60, url: 'http://app.test/tools/x?a=1', theme: 'dark', embedded: true })
    expect(helloContext(client, { host: 'app.test' }, '/tools')).toEqual({ locale: 'en-GB', timezone: 'Europe/Berlin', timezoneOffset: -60, url: 'http://app.test/tools/x?a=1', theme: 'dark', isEmbedded: true })
    const hostile = HelloClient.parse({ locale: '<script>', timezone: 'Mars/Olympus', timezoneOffset: 1e9, url: 'http://evil.test/tools/', theme: 'pink', embedded: 'yes' })
    expect(helloContext(hostile, { host: 'app.test' }, '/tools')).toEqual({ locale: null, timezone: null, timezoneOffset: null, url: null, theme: null, isEmbedded: false })
    expect(helloContext(HelloClient.parse({ url: 'http://app.test/other' }), { host: 'app.test' }, '/tools').url).toBeNull()
    expect(helloContext(HelloClient.parse({ url: 'javascript:alert(1)' }), { host: 'app.test' }, '').url).toBeNull()
  })
})

describe('FileUserStore', () => {
  it('keeps one owner-only file per key, counts keys against the limit, and lists them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-users-'))
    try {
      const store = new FileUserStore(dir)
      await store.set('u1', 'prefs/a b', '{"x":1}', 2)
      await store.set('u1', 'prefs/a b', '{"x":2}', 2)
      await store.set('u1', 'other', '1', 2)
      const err = await store.set('u1', 'third', '1', 2).catch((e: unknown) => e)
      expect(isSvcError(err) && err.code).toBe('SVC_ERR_UI_STORAGE')
      expect(await store.get('u1', 'prefs/a b')).toBe('{"x":2}')
      expect((await store.keys('u1')).sort()).toEqual(['other', 'prefs/a b'])
      expect(await store.get('u2', 'prefs/a b')).toBeNull()
      expect(statSync(join(dir, 'u1')).mode & 0o777).toBe(0o700)
      await store.delete('u1', 'other')
      expect(await store.keys('u1')).toEqual(['prefs/a b'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
