import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ICON_NAMES, fallbackIconName, iconPath } from '../../../src/ui/client/icon-names.js'

describe('icon strings', () => {
  it(':material/name: always draws the built-in icon; an unknown name draws a dot', () => {
    expect(fallbackIconName(':material/home:', true)).toBe('home')
    expect(fallbackIconName(' :material/bar_chart: ', false)).toBe('bar_chart')
    expect(fallbackIconName(':material/no_such_icon:', true)).toBe('circle')
  })

  it('emoji stay text when the browser has an emoji font', () => {
    expect(fallbackIconName('📊', true)).toBeNull()
    expect(fallbackIconName('🦄', true)).toBeNull()
  })

  it('without an emoji font, known emoji become their icon (with or without VS16) and others a dot', () => {
    expect(fallbackIconName('📊', false)).toBe('bar_chart')
    expect(fallbackIconName('⚙️', false)).toBe('settings')
    expect(fallbackIconName('⚙', false)).toBe('settings')
    expect(fallbackIconName('🦄', false)).toBe('circle')
  })

  it('plain text and symbols that every font has are never replaced', () => {
    for (const text of ['•', '▲', '×', 'A', '→']) expect(fallbackIconName(text, false), text).toBeNull()
  })

  it('every name has a path and docs/pages.md lists every name', () => {
    const doc = readFileSync(new URL('../../../docs/pages.md', import.meta.url), 'utf8')
    for (const name of ICON_NAMES) {
      expect(iconPath(name), name).toMatch(/^M/)
      expect(doc, `docs/pages.md lists ${name}`).toContain(`\`${name}\``)
    }
  })
})
