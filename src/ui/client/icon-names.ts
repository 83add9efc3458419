/**
 * Which built-in icon stands in for an icon string (pure; rendering in icons.tsx). Icons given as
 * strings (page icons, `icon` options): an emoji, or `:material/<name>:` for one of the built-in
 * line icons (own drawings on a 24×24 grid, stroked with `currentColor`). Where the browser has no
 * emoji font, emoji would show as blank boxes: known ones are replaced by the matching built-in
 * icon, the rest by a neutral dot. The icons svc's own shell draws are here; the rest, and the
 * emoji table, are the icon set (icon-set.ts), a chunk loaded by the first icon that needs it.
 */
import type * as IconSetModule from './icon-set.js'

export type IconSet = typeof IconSetModule

/** The app menu, the theme switch, page cards and the dot: drawn without waiting for the icon set. */
export const CORE_PATHS: Readonly<Record<string, string>> = {
  description: 'M6 3h8l4 4v14H6zM14 3v4h4M9 12h6M9 16h6',
  light_mode: 'M12 8a4 4 0 1 0 0 8a4 4 0 1 0 0-8M12 2.5v2M12 19.5v2M2.5 12h2M19.5 12h2M5.3 5.3l1.4 1.4M17.3 17.3l1.4 1.4M5.3 18.7l1.4-1.4M17.3 6.7l1.4-1.4',
  dark_mode: 'M19.5 14.5A8 8 0 0 1 9.5 4.5a8 8 0 1 0 10 10z',
  contrast: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M12 3v18',
  more_vert: 'M12 5v.5M12 12v.5M12 19v.5',
  circle: 'M12 8a4 4 0 1 0 0 8a4 4 0 1 0 0-8',
}

const MATERIAL = /^:material\/([a-z0-9_]+):$/
/** Pictographic characters, which need an emoji font (plain symbols such as ▲ or × do not). */
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u

export const isCoreIcon = (name: string): boolean => Object.hasOwn(CORE_PATHS, name)

/** The path of a built-in icon; undefined when unknown, or not known until the icon set is loaded. */
export function iconPath(name: string, set: IconSet | null): string | undefined {
  if (isCoreIcon(name)) return CORE_PATHS[name]
  return set && Object.hasOwn(set.PATHS, name) ? set.PATHS[name] : undefined
}

/**
 * The built-in icon standing in for `value`; null when `value` is shown as text; undefined while
 * that takes the icon set and `set` is not loaded (an emoji without an emoji font). A
 * `:material/…:` name is given before the set is there, so the icon keeps its place; an unknown
 * one becomes the dot once the set says so.
 */
export function fallbackIconName(value: string, emojiFont: boolean, set: IconSet | null): string | null | undefined {
  const text = value.trim()
  const m = MATERIAL.exec(text)
  if (m) return set === null || iconPath(m[1]!, set) !== undefined ? m[1]! : 'circle'
  if (emojiFont || !PICTOGRAPHIC.test(value)) return null
  if (set === null) return undefined
  return set.EMOJI[text] ?? set.EMOJI[text.replace(/\uFE0F/g, '')] ?? 'circle'
}
