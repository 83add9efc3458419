import { validateHeaderValue } from 'node:http'
import { describe, expect, it } from 'vitest'
import { isSvcError } from '../../../src/errors.js'
import { checkFileName, checkMime, contentDisposition, isPassiveMime, MEDIA_CSP, mediaHeaders } from '../../../src/ui/media-headers.js'
import { MediaStore } from '../../../src/ui/media-store.js'

/** Every header Node would refuse to write throws here, as it would inside a request handler. */
function writable(headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) validateHeaderValue(name, value)
}

function codeOf(fn: () => unknown): string | null {
  try {
    fn()
    return null
  } catch (err) {
    return isSvcError(err) ? err.code : 'not an SvcError'
  }
}

describe('media MIME types are checked at the call', () => {
  it.each(['image/png', 'IMAGE/SVG+XML', 'audio/ogg; codecs=opus', 'text/csv;charset="utf-8"', 'application/vnd.ms-excel'])('accepts %j', (mime) => {
    expect(checkMime('image()', 'mime', mime)).toBe(mime)
  })

  it.each(['png', 'text/html\x01', 'text/html\r\nSet-Cookie: a=b', 'image/png; x', 'a b/c', '/png', 'image/', 'x'.repeat(300) + '/y', 'image/png; q="\x7f"'])('refuses %j with a coded error naming the call', (mime) => {
    expect(codeOf(() => checkMime('image()', 'mime', mime))).toBe('SVC_ERR_UI_BAD_CALL')
    expect(() => checkMime('image()', 'mime', mime)).toThrow(/^image\(\): mime .* is not a MIME type; pass "type\/subtype"/)
  })

  it('refuses what is not a string', () => {
    expect(codeOf(() => checkMime('audio()', 'format', 42))).toBe('SVC_ERR_UI_BAD_CALL')
  })
})

describe('download file names', () => {
  it('any text of 1 to 255 characters; empty, longer or not text is a coded error', () => {
    expect(checkFileName('downloadButton("x")', 'a\x01b.csv')).toBe('a\x01b.csv')
    expect(codeOf(() => checkFileName('downloadButton("x")', ''))).toBe('SVC_ERR_UI_BAD_CALL')
    expect(codeOf(() => checkFileName('downloadButton("x")', 'a'.repeat(256)))).toBe('SVC_ERR_UI_BAD_CALL')
    expect(codeOf(() => checkFileName('downloadButton("x")', 7))).toBe('SVC_ERR_UI_BAD_CALL')
  })

  it('RFC 6266: an ASCII fallback and the exact name in filename*', () => {
    expect(contentDisposition('report.csv')).toBe(`attachment; filename="report.csv"; filename*=UTF-8''report.csv`)
    expect(contentDisposition('отчёт.csv')).toBe(`attachment; filename="_____.csv"; filename*=UTF-8''%D0%BE%D1%82%D1%87%D1%91%D1%82.csv`)
    expect(contentDisposition(`a"b\\c%d'(e)*.txt`)).toBe(`attachment; filename="a_b_c_d'(e)*.txt"; filename*=UTF-8''a%22b%5Cc%25d%27%28e%29%2A.txt`)
    expect(contentDisposition('a\x01b\r\n.csv')).toBe(`attachment; filename="a_b__.csv"; filename*=UTF-8''a%01b%0D%0A.csv`)
  })

  it.each(['a\x01b.csv', 'x\r\ny', '\x00', '\x7f', 'émoji 😀.txt', '\ud800lone.txt', 'lone\udc00', '"; filename=evil.exe', 'a'.repeat(255)])('never builds a header Node refuses: %j', (name) => {
    writable(mediaHeaders('text/csv', name))
  })
})

describe('what media is served inline', () => {
  it.each([
    ['image/png', true],
    ['IMAGE/JPEG', true],
    ['image/webp', true],
    ['audio/mpeg', true],
    ['Video/MP4', true],
    ['application/pdf', true],
    ['APPLICATION/PDF; x=1', true],
    ['image/svg+xml', false],
    ['image/SVG+xml', false],
    ['image/svg', false],
    ['text/html', false],
    ['text/plain', false],
    ['application/xhtml+xml', false],
    ['text/xml', false],
    ['application/javascript', false],
    ['multipart/x-mixed-replace', false],
  ])('%s inline: %s', (mime, inline) => {
    expect(isPassiveMime(mime)).toBe(inline)
    const headers = mediaHeaders(mime, null)
    writable(headers)
    expect(headers['x-content-type-options']).toBe('nosniff')
    expect(headers['content-security-policy']).toBe(MEDIA_CSP)
    expect(headers['content-security-policy']).toMatch(/(^|; )sandbox$/)
    if (inline) {
      expect(headers['content-type']).toBe(mime.split(';')[0]!.toLowerCase())
      expect(headers['content-disposition']).toBeUndefined()
    } else {
      expect(headers['content-type']).toBe('application/octet-stream')
      expect(headers['content-disposition']).toBe('attachment')
    }
  })

  it('a download of a passive type keeps its type and is still an attachment', () => {
    expect(mediaHeaders('image/png', 'chart.png')).toMatchObject({ 'content-type': 'image/png', 'content-disposition': expect.stringMatching(/^attachment; filename="chart.png"/) })
  })

  it('a type that never passed the check is not written into a header', () => {
    const headers = mediaHeaders('image/png\x01', null)
    writable(headers)
    expect(headers['content-type']).toBe('application/octet-stream')
  })

  it('the store builds the headers when bytes are added', () => {
    const store = new MediaStore()
    const url = store.add(new Uint8Array([1, 2, 3]), 'image/SVG+xml', null)
    expect(url).toMatch(/^\/_stcore\/media\/[0-9a-f]{40}\.svg$/)
    expect(store.get(url.slice('/_stcore/media/'.length))!.headers).toMatchObject({ 'content-type': 'application/octet-stream', 'content-disposition': 'attachment' })
  })
})
