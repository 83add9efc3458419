import { readFileSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * The source text of an argument at the page's call site, for `st.echo` (the code it shows) and
 * `st.help` (the name of what it describes), as Streamlit reads them from the script. The call
 * site is the first stack frame outside svc (tsx maps frames to the TypeScript file); the file is
 * read as it is on disk, and the argument is found by scanning its tokens (strings, template
 * literals, comments and regular expressions are skipped, brackets counted).
 */

/** svc's own modules (`src/` here, `dist/src/` when installed): frames there are not the page's. */
const SVC_SOURCES = fileURLToPath(new URL('../../', import.meta.url))

const FRAME = /\(?((?:file:\/\/)?[^\s()]+?):(\d+):(\d+)\)?$/

/** The page's file, line and column (1-based) of the innermost call from outside svc, or null. */
export function pageCallSite(stack: string | undefined): { file: string; line: number; column: number } | null {
  for (const frame of (stack ?? '').split('\n').slice(1)) {
    const m = FRAME.exec(frame.trim())
    if (!m) continue
    const file = m[1]!.startsWith('file://') ? fileURLToPath(m[1]!) : m[1]!
    if (file.startsWith('node:') || !file.startsWith('/') || file.startsWith(SVC_SOURCES)) continue
    return { file, line: Number(m[2]), column: Number(m[3]) }
  }
  return null
}

const files = new Map<string, { mtimeMs: number; text: string }>()

function readSource(file: string): string | null {
  try {
    const { mtimeMs } = statSync(file)
    const cached = files.get(file)
    if (cached?.mtimeMs === mtimeMs) return cached.text
    const text = readFileSync(file, 'utf8')
    files.set(file, { mtimeMs, text })
    return text
  } catch {
    return null
  }
}

const OPEN = new Set(['(', '[', '{'])
const CLOSE = new Set([')', ']', '}'])

/**
 * Index just past the token at `i` that is not code: a string, a template literal (its `${…}`
 * parts scanned as code), a comment or a regular expression; `i` itself when the token is code.
 */
function skipNonCode(src: string, i: number, prev: string): number {
  const c = src[i]
  if (c === '/' && src[i + 1] === '/') return src.indexOf('\n', i) < 0 ? src.length : src.indexOf('\n', i)
  if (c === '/' && src[i + 1] === '*') return src.indexOf('*/', i + 2) < 0 ? src.length : src.indexOf('*/', i + 2) + 2
  if (c === '"' || c === "'") {
    let j = i + 1
    while (j < src.length && src[j] !== c && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1
    return j + 1
  }
  if (c === '`') {
    let j = i + 1
    while (j < src.length && src[j] !== '`') {
      if (src[j] === '\\') j += 2
      else if (src[j] === '$' && src[j + 1] === '{') j = scanTo(src, j + 2, '}') + 1
      else j++
    }
    return j + 1
  }
  // A slash after a value (a name, a number, a closing bracket) divides; anywhere else it opens a regular expression.
  if (c === '/' && !/[\w$)\]]/.test(prev)) {
    let j = i + 1
    let inClass = false
    while (j < src.length && src[j] !== '\n' && (inClass || src[j] !== '/')) {
      if (src[j] === '\\') j++
      else if (src[j] === '[') inClass = true
      else if (src[j] === ']') inClass = false
      j++
    }
    return j + 1
  }
  return i
}

/** Index of the first `stop` character at bracket depth 0 from `i` (or the closing bracket that ends the scope). */
function scanTo(src: string, i: number, stop: string): number {
  let depth = 0
  let prev = ''
  while (i < src.length) {
    const next = skipNonCode(src, i, prev)
    if (next !== i) {
      i = next
      prev = 'x'
      continue
    }
    const c = src[i]!
    if (depth === 0 && (stop.includes(c) || CLOSE.has(c))) return i
    if (OPEN.has(c)) depth++
    else if (CLOSE.has(c)) depth--
    if (!/\s/.test(c)) prev = c
    i++
  }
  return src.length
}

/** The text of the first argument of the call of `.method(` that starts at or after the call site. */
export function firstArgumentAt(src: string, line: number, column: number, method: string): string | null {
  let at = 0
  for (let l = 1; l < line && at >= 0; l++) at = src.indexOf('\n', at) + 1
  if (at < 0) return null
  const call = new RegExp(`\\b${method}\\s*(?:<[^>()]*>)?\\s*\\(`, 'g')
  // V8 places a method call at its name (`echo`); from there the first such call is this one.
  call.lastIndex = at + column - 1
  const m = call.exec(src)
  // The frame points at the call; one further away belongs to other code.
  if (!m || m.index - (at + column - 1) > 200) return null
  const start = m.index + m[0].length
  const end = scanTo(src, start, ',')
  return src.slice(start, end).trim() || null
}

/** The first argument of the page's `st.<method>(…)` call that is running now, as written. */
export function callArgumentSource(method: string, stack: string | undefined): string | null {
  const site = pageCallSite(stack)
  if (!site) return null
  const src = readSource(site.file)
  return src === null ? null : firstArgumentAt(src, site.line, site.column, method)
}

/** A function's body as written: without its head and outer braces, dedented. An expression body stays as it is. */
export function functionBody(source: string): string {
  const head = /^(?:async\s+)?(?:function\b[^(]*\([^)]*\)\s*(?::[^{]+)?|(?:\([^)]*\)|[\w$]+)\s*(?::[^=]+)?=>)\s*/.exec(source)
  let body = head ? source.slice(head[0].length) : source
  if (head && body.startsWith('{') && body.endsWith('}')) body = body.slice(1, -1)
  return dedent(body)
}

export function dedent(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n')
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift()
  while (lines.length > 0 && lines.at(-1)!.trim() === '') lines.pop()
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => /^\s*/.exec(l)![0].length))
  return lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n')
}
