import { useEffect, useState } from 'preact/hooks'
import { fallbackIconName, iconPath, isCoreIcon, type IconSet } from './icon-names.js'

let emojiFont: boolean | null = null

/**
 * Whether an emoji font draws colour glyphs: a blank box or a missing glyph leaves the canvas
 * grey or empty. Measured once per page load.
 */
export function hasEmojiFont(): boolean {
  if (emojiFont !== null) return emojiFont
  emojiFont = true
  try {
    const canvas = document.createElement('canvas')
    canvas.width = canvas.height = 24
    const ctx = canvas.getContext('2d', { willReadFrequently: true })
    if (!ctx) return emojiFont
    ctx.textBaseline = 'top'
    ctx.font = '20px sans-serif'
    ctx.fillStyle = '#000'
    ctx.fillText('\u{1F600}', 0, 0)
    const data = ctx.getImageData(0, 0, 24, 24).data
    let colour = false
    for (let i = 0; i < data.length && !colour; i += 4) colour = data[i + 3]! > 0 && (data[i] !== data[i + 1] || data[i + 1] !== data[i + 2])
    emojiFont = colour
  } catch {
    // No canvas (very old or locked-down browser): keep emoji as text.
  }
  return emojiFont
}

let iconSet: IconSet | null = null
let loading: Promise<IconSet> | null = null

/**
 * The icon set (icon-set.ts), loaded once per page by the first icon that needs it: the icon keeps
 * its place (an empty 1em box) for that round trip and draws when the set arrives. A failed load
 * is tried again by the next icon drawn.
 */
function useIconSet(wanted: boolean): IconSet | null {
  const [set, setSet] = useState(iconSet)
  useEffect(() => {
    if (!wanted || set !== null) return
    let live = true
    loading ??= import('./icon-set.js')
    loading.then(
      (loaded) => {
        iconSet = loaded
        if (live) setSet(loaded)
      },
      () => (loading = null),
    )
    return () => {
      live = false
    }
  }, [wanted])
  return set ?? iconSet
}

function Svg({ name, d, class: cls }: { name?: string; d?: string; class?: string }) {
  return (
    <svg class={cls ? `svc-svg-icon ${cls}` : 'svc-svg-icon'} viewBox="0 0 24 24" width="1em" height="1em" aria-hidden="true" data-icon={name}>
      {d === undefined ? null : <path d={d} />}
    </svg>
  )
}

export function SvgIcon({ name, class: cls }: { name: string; class?: string }) {
  const set = useIconSet(!isCoreIcon(name))
  return <Svg name={name} d={iconPath(name, set) ?? (set === null ? undefined : iconPath('circle', null))} class={cls} />
}

/** An icon string as text, or as a built-in icon when it is `:material/…:` or an emoji this browser cannot draw. */
export function Icon({ value }: { value: string }) {
  const emojiFont = hasEmojiFont()
  const set = useIconSet(fallbackIconName(value, emojiFont, null) === undefined)
  const name = fallbackIconName(value, emojiFont, set)
  if (name === null) return <>{value}</>
  return name === undefined ? <Svg /> : <SvgIcon name={name} />
}
