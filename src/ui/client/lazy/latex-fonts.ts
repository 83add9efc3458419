// KaTeX's fonts (katex/dist/fonts), one file each; the latex chunk registers them (lazy/latex.ts).
import f0 from 'katex/dist/fonts/KaTeX_AMS-Regular.woff2?url'
import f1 from 'katex/dist/fonts/KaTeX_Caligraphic-Bold.woff2?url'
import f2 from 'katex/dist/fonts/KaTeX_Caligraphic-Regular.woff2?url'
import f3 from 'katex/dist/fonts/KaTeX_Fraktur-Bold.woff2?url'
import f4 from 'katex/dist/fonts/KaTeX_Fraktur-Regular.woff2?url'
import f5 from 'katex/dist/fonts/KaTeX_Main-Bold.woff2?url'
import f6 from 'katex/dist/fonts/KaTeX_Main-BoldItalic.woff2?url'
import f7 from 'katex/dist/fonts/KaTeX_Main-Italic.woff2?url'
import f8 from 'katex/dist/fonts/KaTeX_Main-Regular.woff2?url'
import f9 from 'katex/dist/fonts/KaTeX_Math-BoldItalic.woff2?url'
import f10 from 'katex/dist/fonts/KaTeX_Math-Italic.woff2?url'
import f11 from 'katex/dist/fonts/KaTeX_SansSerif-Bold.woff2?url'
import f12 from 'katex/dist/fonts/KaTeX_SansSerif-Italic.woff2?url'
import f13 from 'katex/dist/fonts/KaTeX_SansSerif-Regular.woff2?url'
import f14 from 'katex/dist/fonts/KaTeX_Script-Regular.woff2?url'
import f15 from 'katex/dist/fonts/KaTeX_Size1-Regular.woff2?url'
import f16 from 'katex/dist/fonts/KaTeX_Size2-Regular.woff2?url'
import f17 from 'katex/dist/fonts/KaTeX_Size3-Regular.woff2?url'
import f18 from 'katex/dist/fonts/KaTeX_Size4-Regular.woff2?url'
import f19 from 'katex/dist/fonts/KaTeX_Typewriter-Regular.woff2?url'

/** KaTeX's fonts as `[family, style, weight, href]`; `href` is relative to this chunk. */
export const KATEX_FONTS: readonly (readonly [family: string, style: string, weight: string, href: string])[] = [
  ['KaTeX_AMS', 'normal', '400', f0],
  ['KaTeX_Caligraphic', 'normal', '700', f1],
  ['KaTeX_Caligraphic', 'normal', '400', f2],
  ['KaTeX_Fraktur', 'normal', '700', f3],
  ['KaTeX_Fraktur', 'normal', '400', f4],
  ['KaTeX_Main', 'normal', '700', f5],
  ['KaTeX_Main', 'italic', '700', f6],
  ['KaTeX_Main', 'italic', '400', f7],
  ['KaTeX_Main', 'normal', '400', f8],
  ['KaTeX_Math', 'italic', '700', f9],
  ['KaTeX_Math', 'italic', '400', f10],
  ['KaTeX_SansSerif', 'normal', '700', f11],
  ['KaTeX_SansSerif', 'italic', '400', f12],
  ['KaTeX_SansSerif', 'normal', '400', f13],
  ['KaTeX_Script', 'normal', '400', f14],
  ['KaTeX_Size1', 'normal', '400', f15],
  ['KaTeX_Size2', 'normal', '400', f16],
  ['KaTeX_Size3', 'normal', '400', f17],
  ['KaTeX_Size4', 'normal', '400', f18],
  ['KaTeX_Typewriter', 'normal', '400', f19],
]
