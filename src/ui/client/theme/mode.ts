/**
 * Light/dark mode of the page. The visitor's choice (`light`, `dark` or `system`) is kept in
 * localStorage; `system` follows `prefers-color-scheme`. The resolved mode is the `data-theme`
 * attribute on <html>, which selects the colour variables in styles/base.css. `theme-init.ts`
 * runs `applyThemeMode()` before the first paint; the app bundle keeps it in step afterwards.
 */

export type ThemeChoice = 'light' | 'dark' | 'system'
export type ThemeMode = 'light' | 'dark'

export const THEME_STORAGE_KEY = 'svc.theme'
const CHOICES: readonly ThemeChoice[] = ['light', 'dark', 'system']

function isChoice(v: unknown): v is ThemeChoice {
  return typeof v === 'string' && (CHOICES as readonly string[]).includes(v)
}

/** The app's default from `theme.base` (the shell's `data-theme-default`), else `system`. */
function appDefault(): ThemeChoice {
  const v = document.documentElement.getAttribute('data-theme-default')
  return isChoice(v) ? v : 'system'
}

export function storedThemeChoice(): ThemeChoice | null {
  try {
    const v = window.localStorage.getItem(THEME_STORAGE_KEY)
    return isChoice(v) ? v : null
  } catch {
    // Storage can be off (privacy settings): the choice then lasts for this page only.
    return null
  }
}

export function themeChoice(): ThemeChoice {
  return storedThemeChoice() ?? appDefault()
}

export function resolveThemeMode(choice: ThemeChoice): ThemeMode {
  if (choice !== 'system') return choice
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'
}

export function applyThemeMode(choice: ThemeChoice = themeChoice()): ThemeMode {
  const mode = resolveThemeMode(choice)
  document.documentElement.setAttribute('data-theme', mode)
  return mode
}

const listeners = new Set<() => void>()

export function setThemeChoice(choice: ThemeChoice): void {
  try {
    window.localStorage.setItem(THEME_STORAGE_KEY, choice)
  } catch {
    // see storedThemeChoice
  }
  applyThemeMode(choice)
  for (const l of listeners) l()
}

/** Re-apply on OS scheme changes and on a choice made in another tab; `onChange` is told too. */
export function watchThemeMode(onChange: () => void): () => void {
  listeners.add(onChange)
  const media = window.matchMedia?.('(prefers-color-scheme: dark)')
  const again = () => {
    applyThemeMode()
    onChange()
  }
  const onStorage = (e: StorageEvent) => e.key === THEME_STORAGE_KEY && again()
  media?.addEventListener('change', again)
  window.addEventListener('storage', onStorage)
  return () => {
    listeners.delete(onChange)
    media?.removeEventListener('change', again)
    window.removeEventListener('storage', onStorage)
  }
}
