/** Lines shown above and below the one at fault. */
const FRAME_CONTEXT = 2
/** A longer source line is cut in the frame (minified or generated code). */
const MAX_FRAME_LINE = 200

/** One line of a code frame: its 1-based number and its text. */
export interface FrameLine {
  line: number
  text: string
}

/**
 * The lines around `line` (1-based) of `text`, as the dev overlay and the terminal show them
 * under an error: a load error (src/ui/server/dev-load-error.ts) or a type error (svc dev's type check).
 */
export function codeFrame(text: string, line: number): FrameLine[] {
  const lines = text.split(/\r?\n/)
  if (lines.at(-1) === '') lines.pop()
  const first = Math.max(1, line - FRAME_CONTEXT)
  const last = Math.min(lines.length, line + FRAME_CONTEXT)
  const frame: FrameLine[] = []
  for (let n = first; n <= last; n++) {
    const t = lines[n - 1]!
    frame.push({ line: n, text: t.length > MAX_FRAME_LINE ? t.slice(0, MAX_FRAME_LINE) + '…' : t })
  }
  return frame
}
