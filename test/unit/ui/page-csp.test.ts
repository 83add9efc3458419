import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { isSvcError } from '../../../src/errors.js'
import { resolveProcessSettings } from '../../../src/settings/resolve.js'
import { appPageCsp, PAGE_CSP_DEFAULTS, pageCsp } from '../../../src/ui/server/page-csp.js'
import { cspHint } from '../../../src/ui/client/csp-hint.js'

const directives = (policy: string | null): Map<string, string[]> =>
  new Map(policy!.split('; ').map((d) => { const [name, ...sources] = d.split(' '); return [name!, sources] }))

describe('the pages Content-Security-Policy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-csp-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("is strict by default: own origin only, no 'unsafe-eval' or 'unsafe-inline', no plugins, no <base>", () => {
    const policy = pageCsp(null)!
    const d = directives(policy)
    expect(d.get('script-src')).toEqual(["'self'"])
    expect(d.get('style-src')).toEqual(["'self'"])
    expect(d.get('connect-src')).toEqual(["'self'"])
    expect(d.get('object-src')).toEqual(["'none'"])
    expect(d.get('base-uri')).toEqual(["'none'"])
    expect(policy).not.toMatch(/unsafe-/)
    expect([...d.keys()]).toEqual(Object.keys(PAGE_CSP_DEFAULTS))
  })

  it('adds sources per directive: to its list, or to what it falls back to; without duplicates; dropping none', () => {
    const d = directives(pageCsp({
      'img-src': ['https://images.example.com', "'self'"],
      'frame-src': ['https://www.youtube-nocookie.com'],
      'style-src-attr': ["'unsafe-inline'"],
      'object-src': ['https://plugins.example.com'],
      'frame-ancestors': ['https://portal.example.com'],
    }))
    expect(d.get('img-src')).toEqual(["'self'", 'data:', 'blob:', 'https://images.example.com'])
    expect(d.get('frame-src')).toEqual(["'self'", 'https://www.youtube-nocookie.com'])
    // style-src-attr had no list: it starts from style-src's, so 'self' stays.
    expect(d.get('style-src-attr')).toEqual(["'self'", "'unsafe-inline'"])
    expect(d.get('object-src')).toEqual(['https://plugins.example.com'])
    // frame-ancestors does not fall back to default-src: only what was added.
    expect(d.get('frame-ancestors')).toEqual(['https://portal.example.com'])
  })

  it("applies elements' needs first, then the app's additions; a string replaces everything; false sends none", () => {
    const d = directives(pageCsp({ 'connect-src': ['https://api.example.com'] }, [{ 'worker-src': ['blob:'], 'connect-src': ['https://tiles.example.com'] }, null]))
    expect(d.get('worker-src')).toEqual(["'self'", 'blob:'])
    expect(d.get('connect-src')).toEqual(["'self'", 'https://tiles.example.com', 'https://api.example.com'])
    expect(pageCsp("default-src 'self' https:", [{ 'worker-src': ['blob:'] }])).toBe("default-src 'self' https:")
    expect(pageCsp(false)).toBeNull()
    // st.map's need (its default basemap's origin) comes before the app's additions.
    expect(appPageCsp({ title: 't', debug: false, theme: {}, ui_csp: { 'img-src': ['https:'] } })).toContain("img-src 'self' data: blob: https://tiles.openfreemap.org https:;")
  })

  it('ui_csp comes from options, svc.config.json or SVC_UI_CSP (JSON additions or a whole policy)', () => {
    expect(resolveProcessSettings({}, {}, dir).ui_csp).toBeNull()
    expect(resolveProcessSettings({ ui_csp: { 'img-src': 'https://a.example.com  https://b.example.com' } }, {}, dir).ui_csp).toEqual({ 'img-src': ['https://a.example.com', 'https://b.example.com'] })
    expect(resolveProcessSettings({}, { SVC_UI_CSP: '{"media-src":["https://cdn.example.com"]}' }, dir).ui_csp).toEqual({ 'media-src': ['https://cdn.example.com'] })
    expect(resolveProcessSettings({}, { SVC_UI_CSP: "default-src 'self'" }, dir).ui_csp).toBe("default-src 'self'")
    expect(resolveProcessSettings({}, { SVC_UI_CSP: 'off' }, dir).ui_csp).toBe(false)
    expect(resolveProcessSettings({}, { SVC_UI_CSP: '' }, dir).ui_csp).toBeNull()
    expect(resolveProcessSettings({ ui_csp: false }, {}, dir).ui_csp).toBe(false)
  })

  it('refuses an unknown directive or a source that could break the header, naming the fix', () => {
    const message = (input: unknown): string => {
      try {
        resolveProcessSettings({ ui_csp: input as never }, {}, dir)
      } catch (err) {
        if (isSvcError(err) && err.code === 'SVC_ERR_CONFIG_INVALID') return err.message
        throw err
      }
      throw new Error('expected SVC_ERR_CONFIG_INVALID')
    }
    expect(message({ 'image-src': ['https://a.example.com'] })).toMatch(/"image-src" is not a CSP directive.*img-src/)
    expect(message({ 'img-src': ['https://a.example.com; script-src *'] })).toMatch(/must be a CSP source/)
    expect(message({ 'img-src': ["'self"] })).toMatch(/must be a CSP source/)
    expect(message("default-src 'self'\r\nX-Injected: 1")).toMatch(/one line of printable ASCII/)
  })

  it('the client names the setting that would allow a refused resource', () => {
    expect(cspHint('https://images.example.com/logo.png', 'img-src')).toBe(
      'svc: https://images.example.com/logo.png was blocked by the page\'s Content-Security-Policy (img-src); to allow it, add its origin to the ui_csp setting: {"img-src": ["https://images.example.com"]}',
    )
    expect(cspHint('inline', 'style-src-attr')).toBeNull()
    expect(cspHint('eval', 'script-src')).toBeNull()
  })
})
