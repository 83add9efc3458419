import { fallbackIconName, iconPath } from './icon-names.js'

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

export function SvgIcon({ name, class: cls }: { name: string; class?: string }) {
  return (
    <svg class={cls ? `svc-svg-icon ${cls}` : 'svc-svg-icon'} viewBox="0 0 24 24" width="1em" height="1em" aria-hidden="true" data-icon={name}>
      <path d={iconPath(name) ?? iconPath('circle')} />
    </svg>
  )
}

/** An icon string as text, or as a built-in icon when it is `:material/…:` or an emoji this browser cannot draw. */
export function Icon({ value }: { value: string }) {
  const name = fallbackIconName(value, hasEmojiFont())
  return name === null ? <>{value}</> : <SvgIcon name={name} />
}
