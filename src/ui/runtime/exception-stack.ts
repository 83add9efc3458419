import { fileURLToPath } from 'node:url'

/**
 * The stack a page exception shows (with `show_error_details`), as Streamlit shows a traceback:
 * the page's own frames, without the message again at the top and without the frames of svc's
 * runtime and of Node's internals that every page error shares; each `cause` follows, as Python
 * chains its exceptions. A stack with no frame of the page's keeps all of its frames.
 */

const SVC_SOURCES = fileURLToPath(new URL('../../', import.meta.url))
const MAX_CAUSES = 5

function frames(stack: string): string[] {
  return stack.split('\n').filter((line) => /^\s+at /.test(line))
}

function pageFrames(stack: string): string[] {
  const all = frames(stack)
  const own = all.filter((line) => !line.includes(SVC_SOURCES) && !/\(node:|at node:|\(internal\//.test(line))
  return (own.length > 0 ? own : all).map((line) => `  ${line.trim()}`)
}

export function pageStack(error: Error): string | null {
  if (error.stack === undefined) return null
  const parts = [pageFrames(error.stack).join('\n')]
  let cause: unknown = error.cause
  for (let n = 0; cause !== undefined && n < MAX_CAUSES; n++) {
    const e = cause instanceof Error ? cause : null
    parts.push(`Caused by ${e ? `${e.name}: ${e.message}` : String(cause)}${e?.stack ? `\n${pageFrames(e.stack).join('\n')}` : ''}`)
    cause = e?.cause
  }
  const text = parts.filter((p) => p !== '').join('\n\n')
  return text === '' ? null : text
}
