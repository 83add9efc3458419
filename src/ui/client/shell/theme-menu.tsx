import { useEffect, useRef, useState } from 'preact/hooks'
import { SvgIcon } from '../icons.js'
import { setThemeChoice, themeChoice, watchThemeMode, type ThemeChoice } from '../theme/mode.js'

const OPTIONS: { choice: ThemeChoice; label: string; icon: string }[] = [
  { choice: 'light', label: 'Light', icon: 'light_mode' },
  { choice: 'dark', label: 'Dark', icon: 'dark_mode' },
  { choice: 'system', label: 'System', icon: 'contrast' },
]

/** The app menu (top right): light / dark / system, remembered in this browser. */
export function ThemeMenu() {
  const [open, setOpen] = useState(false)
  const [choice, setChoice] = useState<ThemeChoice>(themeChoice)
  const root = useRef<HTMLDivElement>(null)

  useEffect(() => watchThemeMode(() => setChoice(themeChoice())), [])
  useEffect(() => {
    if (!open) return
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false)
    const onDown = (e: PointerEvent) => !root.current?.contains(e.target as Node) && setOpen(false)
    window.addEventListener('keydown', onKey)
    window.addEventListener('pointerdown', onDown)
    return () => {
      window.removeEventListener('keydown', onKey)
      window.removeEventListener('pointerdown', onDown)
    }
  }, [open])

  return (
    <div class="svc-app-menu" ref={root}>
      <button
        type="button"
        class="svc-app-menu-button"
        aria-label="App menu"
        aria-haspopup="true"
        aria-expanded={open}
        aria-controls="svc-app-menu-panel"
        onClick={() => setOpen(!open)}
      >
        <SvgIcon name="more_vert" />
      </button>
      {open ? (
        <div id="svc-app-menu-panel" class="svc-app-menu-panel">
          <div class="svc-app-menu-heading" id="svc-theme-label">
            Theme
          </div>
          <div class="svc-theme-switch" role="radiogroup" aria-labelledby="svc-theme-label" data-testid="theme-switch">
            {OPTIONS.map((o) => (
              <button
                key={o.choice}
                type="button"
                role="radio"
                aria-checked={choice === o.choice}
                class={choice === o.choice ? 'svc-theme-option is-active' : 'svc-theme-option'}
                data-choice={o.choice}
                onClick={() => {
                  setThemeChoice(o.choice)
                  setChoice(o.choice)
                }}
              >
                <SvgIcon name={o.icon} />
                <span>{o.label}</span>
              </button>
            ))}
          </div>
        </div>
      ) : null}
    </div>
  )
}
