import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CORE_PATHS, fallbackIconName, iconPath, isCoreIcon } from '../../../src/ui/client/icon-names.js'
import * as set from '../../../src/ui/client/icon-set.js'

describe('icon strings', () => {
  it(':material/name: always draws the built-in icon; an unknown name draws a dot', () => {
    expect(fallbackIconName(':material/home:', true, set)).toBe('home')
    expect(fallbackIconName(' :material/bar_chart: ', false, set)).toBe('bar_chart')
    expect(fallbackIconName(':material/no_such_icon:', true, set)).toBe('circle')
  })

  it('before the icon set is loaded, a :material/ name keeps its name and an emoji without a font waits for it', () => {
    expect(fallbackIconName(':material/home:', true, null)).toBe('home')
    expect(fallbackIconName(':material/no_such_icon:', true, null)).toBe('no_such_icon')
    expect(fallbackIconName('📊', false, null)).toBeUndefined()
    expect(fallbackIconName('📊', true, null)).toBeNull()
    expect(iconPath('home', null)).toBeUndefined()
    expect(iconPath('more_vert', null)).toMatch(/^M/)
  })

  it('emoji stay text when the browser has an emoji font', () => {
    expect(fallbackIconName('📊', true, set)).toBeNull()
    expect(fallbackIconName('🦄', true, set)).toBeNull()
  })

  it('without an emoji font, known emoji become their icon (with or without VS16) and others a dot', () => {
    expect(fallbackIconName('📊', false, set)).toBe('bar_chart')
    expect(fallbackIconName('⚙️', false, set)).toBe('settings')
    expect(fallbackIconName('⚙', false, set)).toBe('settings')
    expect(fallbackIconName('🦄', false, set)).toBe('circle')
  })

  it('plain text and symbols that every font has are never replaced', () => {
    for (const text of ['•', '▲', '×', 'A', '→']) expect(fallbackIconName(text, false, set), text).toBeNull()
  })

  it('every name has a path, each name is in one place, every emoji names an icon, and docs/pages.md lists every name', () => {
    const doc = readFileSync(new URL('../../../docs/pages.md', import.meta.url), 'utf8')
    const names = [...Object.keys(CORE_PATHS), ...Object.keys(set.PATHS)]
    for (const name of names) {
      expect(iconPath(name, set), name).toMatch(/^M/)
      expect(doc, `docs/pages.md lists ${name}`).toContain(`\`${name}\``)
    }
    for (const name of Object.keys(set.PATHS)) expect(isCoreIcon(name), `${name} is in the set or the core, not both`).toBe(false)
    for (const name of Object.values(set.EMOJI)) expect(names, name).toContain(name)
  })
})
