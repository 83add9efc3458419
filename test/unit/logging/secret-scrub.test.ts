import { describe, expect, it } from 'vitest'
import { registerSecretValues, scrubSecrets } from '../../../src/logging/secret-scrub.js'
import { captureLogger } from '../../helpers/observability-log-sink.js'
import { Rng } from '../../helpers/fuzz-http.js'

/**
 * Issue #34.1: a secret is scrubbed in every spelling a log line can carry it in: as written,
 * JSON-escaped at any depth, URL-encoded (also twice, also as a form), base64 (standard and URL
 * alphabets, any alignment, wrapped), hex, and split across lines; the line stays valid JSON.
 */
const ISSUE_SECRET = 'sk_live_SuperSecret"Value\\42xyz'
const OTHERS = ['pa$$w0rd+/=%é😀', 'line1\nline2-secret', '"quoted-start', 'ends-with-backslash\\']
registerSecretValues([ISSUE_SECRET, ...OTHERS])

/** Every spelling of `s` this test expects to be scrubbed, as the text a page or library would log. */
function spellings(s: string): Record<string, string> {
  const b64 = (prefix: string) => Buffer.from(prefix + s + 'tail').toString('base64')
  return {
    raw: s,
    json: JSON.stringify({ k: s }),
    json2: JSON.stringify(JSON.stringify({ k: s })),
    json3: JSON.stringify(JSON.stringify(JSON.stringify([s]))),
    uri: encodeURIComponent(s),
    uri2: encodeURIComponent(encodeURIComponent(s)),
    uriJson: encodeURIComponent(JSON.stringify(s)),
    form: new URLSearchParams({ k: s }).toString(),
    b64a0: b64(''),
    b64a1: b64('x'),
    b64a2: b64('xy'),
    b64url: Buffer.from('z' + s).toString('base64url'),
    b64wrapped: b64('xyz').replace(/(.{8})/g, '$1\n'),
    hex: Buffer.from(s).toString('hex'),
    HEX: Buffer.from(s).toString('hex').toUpperCase(),
    splitLf: `${s.slice(0, 7)}\n${s.slice(7)}`,
    splitCrLf: `${s.slice(0, 3)}\r\n  ${s.slice(3, 9)}\r\n${s.slice(9)}`,
  }
}

describe('secret scrubbing in every spelling (issue #34.1)', () => {
  it.each([ISSUE_SECRET, ...OTHERS])('%j: every spelling is scrubbed from a JSON line, which stays JSON', (secret) => {
    const { sink, logger } = captureLogger('svc')
    const forms = spellings(secret)
    for (const [name, text] of Object.entries(forms)) {
      logger.error({ err: new Error(`cfg ${text}`), form: name }, `failed: ${text}`)
    }
    const lines = sink.text().trim().split('\n')
    expect(lines).toHaveLength(Object.keys(forms).length)
    for (const line of lines) {
      const record = JSON.parse(line) as { form: string; message: string; exception: string }
      expect(record.message, record.form).toContain('<redacted>')
      expect(record.exception, record.form).toContain('<redacted>')
      // Nothing recognisable is left: neither the spelling logged nor a long piece of the secret.
      expect(line, record.form).not.toContain(forms[record.form]!)
      expect(line.replace(/\\+/g, ''), record.form).not.toContain(secret.replace(/\\/g, '').slice(2, 12))
    }
  })

  it('the issue\'s repro: a page error built with JSON.stringify of st.secrets.apiKey', () => {
    const message = 'cfg ' + JSON.stringify({ k: ISSUE_SECRET })
    const line = JSON.stringify({ level: 'error', logger: 'svc.ui', message: 'ui page exception', exception: `Error: ${message}\n    at page (/app/app.ts:3:9)` })
    const out = scrubSecrets(line)
    expect(out).toBe(JSON.stringify({ level: 'error', logger: 'svc.ui', message: 'ui page exception', exception: 'Error: cfg {"k":"<redacted>"}\n    at page (/app/app.ts:3:9)' }))
    // What a page shows (show_error_details) is the raw message, scrubbed the same way.
    expect(scrubSecrets(message)).toBe('cfg {"k":"<redacted>"}')
  })

  it('lines without a secret come back as they are, whatever they hold', () => {
    const rng = new Rng(3401)
    const alphabet = ['a', 'k', '%', '2', '5', '4', '1', '\\', 'u', '0', 'n', 'r', '+', '"', '\n', '\r', 'é', '😀', '/', '=']
    for (let i = 0; i < 2_000; i++) {
      const line = Array.from({ length: rng.int(0, 60) }, () => rng.pick(alphabet)).join('')
      expect(scrubSecrets(line)).toBe(line)
    }
    for (const line of ['{"message":"GET /api/orders?region=North&limit=10 200 1.2ms"}\n', 'a + b = c, 100% done, C:\\\\temp\\\\x', 'sk_live_ only a prefix']) {
      expect(scrubSecrets(line)).toBe(line)
    }
  })

  it('with random escapes, percent signs and line breaks around it, a found secret is replaced where it is (never the whole line)', () => {
    const rng = new Rng(3403)
    const junk = ['%', '%2', '%25', '\\', '\\u00', '+', '\n', '\r\n ', 'a', '"', 'é']
    let found = 0
    for (let i = 0; i < 3_000; i++) {
      const secret = rng.pick([ISSUE_SECRET, ...OTHERS])
      const [, text] = rng.pick(Object.entries(spellings(secret)))
      const around = () => Array.from({ length: rng.int(0, 4) }, () => rng.pick(junk)).join('')
      const line = `BEGIN ${around()}${text}${around()} END`
      const out = scrubSecrets(line)
      if (out === line) continue
      found++
      expect(out, JSON.stringify(line)).toMatch(/^BEGIN .*<redacted>.* END$/s)
    }
    expect(found).toBeGreaterThan(2_000)
  })

  it('a secret between random text in random spellings is always gone', () => {
    const rng = new Rng(3402)
    for (let i = 0; i < 300; i++) {
      const secret = rng.pick([ISSUE_SECRET, ...OTHERS])
      const [name, text] = rng.pick(Object.entries(spellings(secret)))
      const line = JSON.stringify({ message: `${'x'.repeat(rng.int(0, 5))} ${text} ${'y'.repeat(rng.int(0, 5))}` })
      const out = scrubSecrets(line)
      expect(out, name).toContain('<redacted>')
      expect(() => JSON.parse(out), `${name}: ${out}`).not.toThrow()
    }
  })
})
