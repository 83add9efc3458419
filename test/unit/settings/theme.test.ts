import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isSvcError } from '../../../src/errors.js'
import { CONFIG_FILE_NAME, resolveProcessSettings } from '../../../src/settings/resolve.js'
import { themeCss, themeSchema } from '../../../src/settings/theme.js'
import { renderShell } from '../../../src/ui/server/shell.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-theme-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

function configError(theme: unknown): string {
  writeFileSync(join(dir, CONFIG_FILE_NAME), JSON.stringify({ theme }))
  try {
    resolveProcessSettings({}, {}, dir)
  } catch (err) {
    if (isSvcError(err) && err.code === 'SVC_ERR_CONFIG_INVALID') return err.message
    throw err
  }
  throw new Error('expected SVC_ERR_CONFIG_INVALID')
}

describe('theme setting', () => {
  it('defaults to an empty theme (the built-in light and dark colours)', () => {
    expect(resolveProcessSettings({}, {}, dir).theme).toEqual({})
    expect(themeCss({})).toBe('\n')
  })

  it('reads svc.config.json, new Svc({ theme }) and SVC_THEME, and normalises fonts and radius', () => {
    writeFileSync(join(dir, CONFIG_FILE_NAME), JSON.stringify({ theme: { primaryColor: '#0F766E', font: 'serif', baseRadius: 'small' } }))
    expect(resolveProcessSettings({}, {}, dir).theme).toEqual({ primaryColor: '#0F766E', font: expect.stringContaining('Georgia'), baseRadius: '4px' })
    rmSync(join(dir, CONFIG_FILE_NAME))
    expect(resolveProcessSettings({ theme: { codeFont: '"JetBrains Mono", monospace', baseRadius: 10 } }, {}, dir).theme).toEqual({ codeFont: '"JetBrains Mono", monospace', baseRadius: '10px' })
    expect(resolveProcessSettings({}, { SVC_THEME: '{"base":"dark","dark":{"backgroundColor":"rgb(10 10 10)"}}' }, dir).theme).toEqual({ base: 'dark', dark: { backgroundColor: 'rgb(10 10 10)' } })
  })

  it.each([
    [{ primaryColor: 'red; background: url(x)' }, 'primaryColor must be a CSS colour'],
    [{ primaryColor: '#12345' }, 'primaryColor must be a CSS colour'],
    [{ textColor: 'tael' }, 'textColor must be a CSS colour'],
    [{ dark: { textColor: 'rgb(1,2,3)}body{' } }, 'dark.textColor must be a CSS colour'],
    [{ font: 'Inter; } html { display: none' }, 'font must be "sans-serif"'],
    [{ font: '"Inter, sans-serif' }, 'font must be "sans-serif"'],
    [{ baseRadius: 'huge' }, 'baseRadius must be "none"'],
    [{ baseRadius: 100 }, 'baseRadius must be "none"'],
    [{ base: 'sepia' }, 'base'],
    [{ primaryColour: '#fff' }, 'primaryColour'],
    [{ light: { font: 'serif' } }, 'font'],
  ])('refuses %j with a message naming the field', (theme, expected) => {
    const message = configError(theme)
    expect(message).toContain(`${CONFIG_FILE_NAME} key "theme"`)
    expect(message).toContain(expected)
  })

  it('refuses SVC_THEME that is not JSON, with an example', () => {
    expect(() => resolveProcessSettings({}, { SVC_THEME: '{primaryColor:red}' }, dir)).toThrow(/write it as JSON, e\.g\. \{"primaryColor"/)
  })

  it('renders CSS variables: shared values on :root, light and dark overrides per mode', () => {
    const css = themeCss(themeSchema.parse({ primaryColor: '#0f766e', font: 'Inter, sans-serif', baseRadius: 'large', dark: { primaryColor: '#2dd4bf', backgroundColor: '#000' }, light: { textColor: 'Black' } }))
    expect(css).toContain(':root, :root[data-theme] {')
    expect(css).toContain('--svc-accent: #0f766e;')
    expect(css).toContain('--svc-accent-hover: color-mix(')
    expect(css).toContain('--svc-font: Inter, sans-serif;')
    expect(css).toContain('--svc-radius: 12px;')
    expect(css).toMatch(/:root:not\(\[data-theme='dark'\]\) \{\n {2}--svc-text: Black;/)
    expect(css).toMatch(/:root\[data-theme='dark'\] \{\n {2}--svc-accent: #2dd4bf;[\s\S]*--svc-bg: #000;/)
  })

  it('the shell loads theme.js before the stylesheets (no flash) and carries theme.base', () => {
    const assets = { appJs: 'app-A1.js', appCss: 'app-C1.css', themeJs: 'theme-T1.js', themeCss: 'theme-vars-V1.css' }
    const html = renderShell({ basePath: '/tools', title: 'T', themeBase: 'dark', assets, chunkStyles: {} })
    expect(html).toContain('<html lang="en" data-theme-default="dark">')
    const script = html.indexOf('<script src="/tools/_stcore/static/theme-T1.js"></script>')
    expect(script).toBeGreaterThan(0)
    expect(script).toBeLessThan(html.indexOf('app-C1.css'))
    expect(html.indexOf('/tools/_stcore/static/theme-vars-V1.css')).toBeGreaterThan(html.indexOf('app-C1.css'))
    // No theme set: no stylesheet to fetch.
    expect(renderShell({ basePath: '', title: 'T', themeBase: 'system', assets: { ...assets, themeCss: null }, chunkStyles: {} })).not.toContain('theme-vars')
  })
})
