import { describe, expect, it } from 'vitest'
import { safeUrl } from '../../../src/ui/client/url.js'
import { checkUrl, type UrlKind } from '../../../src/ui/wire/url-policy.js'

/** What the browser client does with a URL on a page served at this location. */
const PAGE = 'http://127.0.0.1:8000/tools/reports?x=1'
const inBrowser = (value: string, kind: UrlKind): string | undefined => safeUrl(value, kind, PAGE)

describe('URLs pages may use: the WHATWG parser decides, on the server and in the browser', () => {
  // Browsers drop tabs and newlines anywhere in a URL and trim leading control characters and spaces.
  const scripts = ['javascript:alert(1)', 'java\tscript:alert(1)', 'java\nscript:alert(1)', '\x01javascript:alert(1)', ' \x00JavaScript:alert(1)', 'jav&#x09;ascript:alert(1)'.replace('&#x09;', '\t'), 'vbscript:x', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', 'blob:http://127.0.0.1:8000/x', 'chrome://settings']
  it.each(scripts)('refuses %j for every kind', (value) => {
    for (const kind of ['link', 'image', 'audio', 'video', 'pdf'] as const) {
      expect(checkUrl(value, kind).ok, `${kind}`).toBe(false)
      expect(inBrowser(value, kind), `${kind}`).toBeUndefined()
    }
  })

  // `\` is `/` for http(s): these are another site, not a path of this app.
  it.each(['/\\evil.example', '\\\\evil.example', '//evil.example/x', '\\/evil.example', '/\t/evil.example', ' //evil.example', '/\\/evil.example'])('refuses %j: another origin without a scheme', (value) => {
    const checked = checkUrl(value, 'link')
    expect(checked.ok).toBe(false)
    if (!checked.ok) expect(checked.reason).toMatch(/another site \(evil\.example\)/)
    for (const kind of ['link', 'image', 'pdf'] as const) expect(inBrowser(value, kind)).toBeUndefined()
  })

  it('paths of this app stay paths; the browser resolves them against the page', () => {
    expect(checkUrl('/reports?x=1#top', 'link')).toEqual({ ok: true, href: '/reports?x=1#top', sameOrigin: true, path: '/reports' })
    expect(checkUrl('/a/../reports', 'link')).toMatchObject({ ok: true, path: '/reports' })
    expect(checkUrl('details', 'link')).toEqual({ ok: true, href: 'details', sameOrigin: true, path: null })
    expect(checkUrl(' /re\tports ', 'link')).toMatchObject({ ok: true, href: '/reports', path: '/reports' })
    expect(inBrowser('/api/report.pdf', 'pdf')).toBe('/api/report.pdf')
    expect(inBrowser('chart.png', 'image')).toBe('chart.png')
  })

  it('URLs with a scheme come back as the parser serialises them', () => {
    expect(checkUrl('https://Example.com', 'link')).toEqual({ ok: true, href: 'https://example.com/', sameOrigin: false, path: null })
    expect(checkUrl('ht\ttps://example.com/a b', 'link')).toMatchObject({ ok: true, href: 'https://example.com/a%20b' })
    expect(inBrowser('HTTPS://cdn.example.com/x.mp3', 'audio')).toBe('https://cdn.example.com/x.mp3')
  })

  it('mailto and tel are links, never media', () => {
    expect(checkUrl('mailto:ops@example.com', 'link').ok).toBe(true)
    expect(checkUrl('tel:+4930123', 'link').ok).toBe(true)
    expect(checkUrl('mailto:ops@example.com', 'image').ok).toBe(false)
  })

  it('data: URLs only of the element’s own kind', () => {
    expect(checkUrl('data:image/png;base64,AAAA', 'image').ok).toBe(true)
    expect(checkUrl('DATA:image/svg+xml;base64,AAAA', 'image').ok).toBe(true)
    expect(checkUrl('data:image/png;base64,AAAA', 'link').ok).toBe(false)
    expect(checkUrl('data:text/html;base64,AAAA', 'image').ok).toBe(false)
    expect(checkUrl('data:audio/wav;base64,AAAA', 'audio').ok).toBe(true)
    expect(checkUrl('data:audio/wav;base64,AAAA', 'video').ok).toBe(false)
    expect(checkUrl('data:application/pdf;base64,AAAA', 'pdf').ok).toBe(true)
    expect(checkUrl('data:application/pdf;base64,AAAA', 'image').ok).toBe(false)
    expect(inBrowser('data:text/html,<b>x</b>', 'pdf')).toBeUndefined()
  })

  it('the reason names what to write instead', () => {
    const checked = checkUrl('ftp://files.example.com/a', 'image')
    expect(checked).toEqual({ ok: false, reason: 'the scheme ftp: is not allowed here; use http:, https:, data:image/… or a path of this app' })
  })
})
