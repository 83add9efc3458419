import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Svc } from '../../../src/app.js'
import { appIconProblem, loadAppIcon } from '../../../src/settings/app-icon.js'
import { DEFAULT_MAP_STYLE_URL, DEFAULT_MAP_STYLE_URL_DARK, isMapStyleUrl, mapCspNeed, mapStyles } from '../../../src/settings/map-style.js'
import { renderShell } from '../../../src/ui/server/shell.js'

/** The `icon` and `ui_map_style_url(_dark)` settings, and what the HTML shell says about them. */

const dir = mkdtempSync(join(tmpdir(), 'svc-icon-'))
writeFileSync(join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
writeFileSync(join(dir, 'notes.txt'), 'x')

describe('app icon', () => {
  it('default: svc’s own SVG; an emoji: drawn in an SVG (escaped); a URL: a redirect; a file: its bytes and type', () => {
    const own = loadAppIcon('')
    expect(own).toMatchObject({ kind: 'body', type: 'image/svg+xml' })
    expect(own.kind === 'body' && own.body.toString()).toMatch(/^<svg /)
    const emoji = loadAppIcon('🚀')
    expect(emoji.kind === 'body' && emoji.body.toString()).toContain('>🚀</text>')
    const text = loadAppIcon('A&<')
    expect(text.kind === 'body' && text.body.toString()).toContain('>A&amp;&lt;</text>')
    expect(loadAppIcon('https://cdn.example.com/icon.png')).toEqual({ kind: 'redirect', url: 'https://cdn.example.com/icon.png' })
    expect(loadAppIcon('logo.png', dir)).toEqual({ kind: 'body', type: 'image/png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) })
  })

  it.each([
    ['', null],
    ['📊', null],
    ['👍🏽', null],
    ['AB', null],
    ['logo.png', null],
    ['./missing.ico', /no file .*missing\.ico \(from "\.\/missing\.ico", relative to /],
    ['notes.txt', /notes\.txt is not an image file svc serves as an icon/],
    ['sub/notes.txt', /is not an image file svc serves as an icon/],
    ['a long sentence', /is too long for an icon/],
    ['https://', /is not a valid http\(s\) URL/],
  ])('%j → %s', (value, problem) => {
    const found = appIconProblem(value, dir)
    if (problem === null) expect(found).toBeNull()
    else expect(found).toMatch(problem)
  })

  it('a bad icon in new Svc({ icon }) is a configuration error naming the file and the choices', () => {
    expect(() => new Svc({ icon: './no-such-icon.png', log_level: 'fatal' })).toThrow(/icon.*no file .*no-such-icon\.png.*give an emoji/s)
  })
})

describe('map styles', () => {
  it('accept http(s) URLs and app paths only', () => {
    expect(isMapStyleUrl('https://tiles.example.com/style.json')).toBe(true)
    expect(isMapStyleUrl('/api/tiles/style.json')).toBe(true)
    for (const bad of ['javascript:alert(1)', '//evil.example/s.json', 'style.json', 'https://', '/a b']) expect(isMapStyleUrl(bad), bad).toBe(false)
    expect(() => new Svc({ ui_map_style_url: 'tiles/style.json', log_level: 'fatal' })).toThrow(/ui_map_style_url.*must be an http\(s\) URL or a path of this app/s)
  })

  it('the pages’ CSP allows the origins of the style URLs, and nothing for app paths', () => {
    expect(mapCspNeed({})).toEqual({ 'connect-src': ['https://tiles.openfreemap.org'], 'img-src': ['https://tiles.openfreemap.org'] })
    expect(mapCspNeed({ ui_map_style_url: '/api/tiles/style.json' })).toBeNull()
    expect(mapCspNeed({ ui_map_style_url: 'https://maps.example.com/light.json', ui_map_style_url_dark: 'http://10.0.0.5:8080/dark.json' })).toEqual({
      'connect-src': ['https://maps.example.com', 'http://10.0.0.5:8080'],
      'img-src': ['https://maps.example.com', 'http://10.0.0.5:8080'],
    })
  })

  it('dark follows light unless light is the public default', () => {
    expect(mapStyles(DEFAULT_MAP_STYLE_URL, '')).toEqual({ light: DEFAULT_MAP_STYLE_URL, dark: DEFAULT_MAP_STYLE_URL_DARK })
    expect(mapStyles('/tiles/style.json', '')).toEqual({ light: '/tiles/style.json', dark: '/tiles/style.json' })
    expect(mapStyles('/tiles/light.json', '/tiles/dark.json')).toEqual({ light: '/tiles/light.json', dark: '/tiles/dark.json' })
  })
})

describe('HTML shell', () => {
  it('links the icon, and carries map styles only when the app sets them', () => {
    const assets = { appJs: 'app-A.js', appCss: 'app-B.css', themeJs: 'theme-C.js', themeCss: null }
    const plain = renderShell({ basePath: '/tools', title: 'T', themeBase: 'system', assets, chunkStyles: {}, icon: { href: '/tools/favicon.ico', type: 'image/svg+xml' } })
    expect(plain).toContain('<link rel="icon" href="/tools/favicon.ico" type="image/svg+xml">')
    expect(plain).not.toContain('mapStyle')
    const mapped = renderShell({ basePath: '', title: 'T', themeBase: 'system', assets, chunkStyles: {}, mapStyle: { light: '/s.json', dark: '/d.json</script>' }, icon: { href: 'https://x.example/i.png', type: null } })
    expect(mapped).toContain('<link rel="icon" href="https://x.example/i.png">')
    expect(mapped).toContain('"mapStyle":{"light":"/s.json","dark":"/d.json\\u003c/script>"}')
  })
})
