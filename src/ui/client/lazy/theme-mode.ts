export type ThemeMode = 'light' | 'dark'

export function themeMode(): ThemeMode {
  return document.documentElement.getAttribute('data-theme') === 'dark' ? 'dark' : 'light'
}

/** Calls `fn` when the visitor switches light/dark (`data-theme` on <html>); returns the unsubscribe. */
export function onThemeChange(fn: (mode: ThemeMode) => void): () => void {
  let last = themeMode()
  const observer = new MutationObserver(() => {
    const mode = themeMode()
    if (mode === last) return
    last = mode
    fn(mode)
  })
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] })
  return () => observer.disconnect()
}

/** A CSS custom property of the page theme, read now (theme colours change with the mode). */
export function cssVar(name: string): string | undefined {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || undefined
}
