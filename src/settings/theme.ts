import { z } from '../internal/zod.js'

/**
 * The `theme` setting: colours, fonts and corner radius of the page client. Every value ends up
 * inside a CSS declaration (`/_stcore/theme.css`), so each is checked against a narrow grammar
 * here: a value can never close the declaration or the rule it is written into.
 */

const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i
const FUNCTIONAL = /^(?:rgb|rgba|hsl|hsla|oklch|oklab|lab|lch)\(\s*[-+0-9.%\s,/a-z]*\)$/i
/** The CSS named colours (CSS Color 4), so a typo such as "tael" fails instead of silently drawing nothing. */
const NAMED = new Set(
  (
    'aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown ' +
    'burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan ' +
    'darkgoldenrod darkgray darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid ' +
    'darkred darksalmon darkseagreen darkslateblue darkslategray darkslategrey darkturquoise darkviolet ' +
    'deeppink deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ' +
    'ghostwhite gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki ' +
    'lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow ' +
    'lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray ' +
    'lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon mediumaquamarine ' +
    'mediumblue mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen mediumturquoise ' +
    'mediumvioletred midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive olivedrab ' +
    'orange orangered orchid palegoldenrod palegreen paleturquoise palevioletred papayawhip peachpuff peru ' +
    'pink plum powderblue purple rebeccapurple red rosybrown royalblue saddlebrown salmon sandybrown seagreen ' +
    'seashell sienna silver skyblue slateblue slategray slategrey snow springgreen steelblue tan teal thistle ' +
    'tomato turquoise violet wheat white whitesmoke yellow yellowgreen'
  ).split(' '),
)

const color = z
  .string()
  .trim()
  .refine((v) => HEX.test(v) || FUNCTIONAL.test(v) || NAMED.has(v.toLowerCase()), {
    message: 'must be a CSS colour: #4f46e5, rgb(79 70 229), hsl(243 75% 59%) or a colour name',
  })

/** Streamlit's generic names, or a font-family list of plain names (quotes allowed, nothing that ends the declaration). */
const GENERIC_FONTS: Record<string, string> = {
  'sans-serif': "ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', sans-serif",
  serif: "ui-serif, Georgia, Cambria, 'Times New Roman', Times, serif",
  monospace: "ui-monospace, SFMono-Regular, 'SF Mono', Menlo, Consolas, 'Liberation Mono', monospace",
}
const font = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .refine((v) => /^[A-Za-z0-9 ,'"_-]+$/.test(v) && (v.split('"').length - 1) % 2 === 0 && (v.split("'").length - 1) % 2 === 0, {
    message: `must be "sans-serif", "serif", "monospace" or a font-family list such as "Inter, sans-serif" (letters, digits, spaces, commas, quotes, - and _)`,
  })
  .transform((v) => GENERIC_FONTS[v] ?? v)

const RADII: Record<string, string> = { none: '0px', small: '4px', medium: '8px', large: '12px', full: '9999px' }
const radius = z
  .union([z.number(), z.string().trim()])
  .refine((v) => (typeof v === 'number' ? v >= 0 && v <= 64 : Object.hasOwn(RADII, v) || /^\d+(?:\.\d+)?(?:px|rem|em)$/.test(v)), {
    message: 'must be "none", "small", "medium", "large", "full", a number of pixels (0..64) or a length like "0.5rem"',
  })
  .transform((v) => (typeof v === 'number' ? `${v}px` : (RADII[v] ?? v)))

/** Colours that can differ between the light and the dark theme. */
const palette = z
  .object({
    primaryColor: color.optional(),
    backgroundColor: color.optional(),
    secondaryBackgroundColor: color.optional(),
    textColor: color.optional(),
  })
  .strict()

export const themeSchema = palette
  .extend({
    /** The mode a visitor sees before choosing one in the menu; `system` follows `prefers-color-scheme`. */
    base: z.enum(['system', 'light', 'dark']).optional(),
    font: font.optional(),
    codeFont: font.optional(),
    baseRadius: radius.optional(),
    light: palette.optional(),
    dark: palette.optional(),
  })
  .strict()

export type ThemeSettings = z.output<typeof themeSchema>
export type ThemeInput = z.input<typeof themeSchema>
type Palette = z.output<typeof palette>

const PALETTE_VARS: [keyof Palette, string][] = [
  ['primaryColor', '--svc-accent'],
  ['backgroundColor', '--svc-bg'],
  ['secondaryBackgroundColor', '--svc-bg-subtle'],
  ['textColor', '--svc-text'],
]

function paletteDecls(p: Palette | undefined): string[] {
  const out: string[] = []
  for (const [k, name] of PALETTE_VARS) {
    const v = p?.[k]
    if (v === undefined) continue
    out.push(`${name}: ${v};`)
    // The shades around the primary colour follow it, so buttons, links and focus rings match.
    if (k === 'primaryColor') {
      out.push(
        '--svc-accent-hover: color-mix(in srgb, var(--svc-accent) 84%, black);',
        '--svc-accent-soft: color-mix(in srgb, var(--svc-accent) 12%, var(--svc-bg));',
        '--svc-accent-text: color-mix(in srgb, var(--svc-accent) 70%, var(--svc-text));',
        '--svc-focus: 0 0 0 3px color-mix(in srgb, var(--svc-accent) 30%, transparent);',
      )
    }
  }
  return out
}

/**
 * The stylesheet served at `{base}/_stcore/theme.css`, loaded after the client's own CSS:
 * shared values on `:root`, then per-mode colours (`light`/`dark` win over the shared ones).
 */
export function themeCss(theme: ThemeSettings): string {
  const shared = paletteDecls(theme)
  if (theme.font !== undefined) shared.push(`--svc-font: ${theme.font};`)
  if (theme.codeFont !== undefined) shared.push(`--svc-mono: ${theme.codeFont};`)
  if (theme.baseRadius !== undefined) {
    shared.push(`--svc-radius: ${theme.baseRadius};`, `--svc-radius-sm: calc(${theme.baseRadius} * 0.75);`)
  }
  const rules: string[] = []
  if (shared.length > 0) rules.push(`:root, :root[data-theme] {\n  ${shared.join('\n  ')}\n}`)
  const light = paletteDecls(theme.light)
  if (light.length > 0) rules.push(`:root:not([data-theme='dark']) {\n  ${light.join('\n  ')}\n}`)
  const dark = paletteDecls(theme.dark)
  if (dark.length > 0) rules.push(`:root[data-theme='dark'] {\n  ${dark.join('\n  ')}\n}`)
  return rules.join('\n') + '\n'
}
