import { readFileSync } from 'node:fs'
import { basename, isAbsolute, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Why importing the app failed, as one line: the file (and position) at fault, the cause, the
 * fix. Node's and esbuild's own messages are multi-line with a stack of loader internals; the
 * user needs the first user-code frame and what to do about it.
 */
const ESBUILD_ERROR = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m
// tsx adds `?namespace=…` / `?tsx-namespace=…` to the URLs of modules it re-imports (dev reload).
const FRAME = /(?:\(|at )((?:file:\/\/)?\/[^():\s?]+)(?:\?[^():\s]*)?:(\d+):(\d+)\)?$/
const REQUIRE_OF_ESM = new Set(['ERR_REQUIRE_CYCLE_MODULE', 'ERR_REQUIRE_ESM', 'ERR_REQUIRE_ASYNC_MODULE'])

/** A place in a file: 1-based line and column, as editors count them. */
export interface SourcePlace {
  /** Absolute path. */
  path: string
  line: number
  column: number
}

export interface ImportFailure {
  /** The whole story in one line: `cannot load app.ts: <cause> (at <place>); <fix>`. */
  summary: string
  /** What went wrong, without the place: `syntax error: Unexpected ";"`. */
  cause: string
  /** What to do about it. */
  fix: string
  /** Where in the user's code, when the error says. */
  at: SourcePlace | null
}

export function describeImportFailure(file: string, err: unknown, cwd: string = process.cwd()): string {
  return analyzeImportFailure(file, err, cwd).summary
}

/** The cause, place and fix of a failed import of `file` (the app module). */
export function analyzeImportFailure(file: string, err: unknown, cwd: string = process.cwd()): ImportFailure {
  const show = (p: string): string => showPath(p, cwd)
  const e = (err instanceof Error ? err : new Error(String(err))) as Error & { code?: string }
  const head = `cannot load ${show(file)}`
  const firstLine = (e.message.split('\n')[0] ?? '').trim()
  const result = (cause: string, fix: string, at: SourcePlace | null, summary?: string): ImportFailure => ({
    cause,
    fix,
    at,
    summary: summary ?? `${head}: ${cause}${at ? ` (at ${show(at.path)}:${at.line}:${at.column})` : ''}; ${fix}`,
  })

  const esbuild = ESBUILD_ERROR.exec(e.message)
  if (esbuild) {
    const [, path, line, col, text] = esbuild
    // esbuild counts columns from 0.
    const at = { path: toPath(path!), line: Number(line), column: Number(col) + 1 }
    return result(`syntax error: ${text}`, 'fix the code there', at, `${head}: syntax error at ${show(at.path)}:${at.line}:${at.column}: ${text}; fix the code there`)
  }
  const missing = missingModule(e, firstLine)
  if (missing) {
    const at = importPlace(missing.importer, missing.specifier)
    const from = `(imported from ${show(missing.importer)})`
    const shownSpec = isAbsolute(missing.specifier) ? show(missing.specifier) : missing.specifier
    return missing.bare
      ? result(`cannot find package "${missing.specifier}"`, `install it (npm install ${missing.specifier}) or fix the import`, at, `${head}: cannot find package "${missing.specifier}" ${from}; install it (npm install ${missing.specifier}) or fix the import`)
      : result(`cannot find module ${shownSpec}`, 'fix the import path', at, `${head}: cannot find module ${shownSpec} ${from}; fix the import path`)
  }
  // A thrown non-Error has no stack of its own (the wrapper's would point here).
  const at = err instanceof Error ? userFrame(e.stack ?? '') : null
  if (e.code !== undefined && REQUIRE_OF_ESM.has(e.code)) {
    const fix = 'use import instead of require() for the app\'s own modules, or make the requiring file an ES module (.mjs/.mts or import/export syntax)'
    const where = at ? ` (at ${show(at.path)}:${at.line}:${at.column})` : ''
    return result(`a CommonJS require() loads an ES module (${e.code})`, fix, at, `${head}: a CommonJS require()${where} loads an ES module (${e.code}); ${fix}`)
  }
  if (e.name === 'SyntaxError') return result(`${e.name}: ${firstLine}`, 'fix the code or the import there', at)
  return result(`${e.name}: ${firstLine}`, 'fix the code that throws there (the app module runs at import)', at)
}

/** A path for messages: relative to `cwd` when inside it. */
export function showPath(p: string, cwd: string = process.cwd()): string {
  const path = toPath(p)
  const rel = relative(cwd, path)
  return rel === '' || rel.startsWith('..') ? path : rel
}

function toPath(p: string): string {
  return p.startsWith('file:') ? fileURLToPath(p) : p
}

/**
 * "Cannot find package 'x' imported from /app.ts" (ESM) or "Cannot find module 'x'\nRequire
 * stack:\n- /app.ts" (CommonJS): the specifier and the importing file.
 */
function missingModule(e: Error & { code?: string }, firstLine: string): { specifier: string; importer: string; bare: boolean } | null {
  if (e.code === 'ERR_MODULE_NOT_FOUND') {
    const pkg = /Cannot find package '([^']+)' imported from (.+)$/.exec(firstLine)
    if (pkg) return { specifier: pkg[1]!, importer: stripQuery(pkg[2]!), bare: true }
    const mod = /Cannot find module '([^']+)' imported from (.+)$/.exec(firstLine)
    if (mod) return { specifier: stripQuery(mod[1]!), importer: stripQuery(mod[2]!), bare: false }
  }
  if (e.code === 'MODULE_NOT_FOUND') {
    const spec = /Cannot find module '([^']+)'/.exec(firstLine)
    const importer = /^- (.+)$/m.exec(e.message)
    if (spec && importer) {
      const bare = !/^[./]/.test(spec[1]!) && !spec[1]!.startsWith('file:')
      return { specifier: spec[1]!, importer: stripQuery(importer[1]!), bare }
    }
  }
  return null
}

function stripQuery(p: string): string {
  const path = toPath(p.trim())
  const q = path.indexOf('?')
  return q === -1 ? path : path.slice(0, q)
}

/**
 * The line of `importer` that names `specifier` in quotes (Node's error does not say where). A
 * specifier Node resolved to an absolute path is matched by its file name.
 */
function importPlace(importer: string, specifier: string): SourcePlace | null {
  let text: string
  try {
    text = readFileSync(importer, 'utf8')
  } catch {
    return null
  }
  const name = specifier.startsWith('/') ? `[^'"\`\n]*/${escapeRegExp(basename(specifier))}` : escapeRegExp(specifier)
  const quoted = new RegExp(`(['"\`])${name}\\1`)
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const m = quoted.exec(lines[i]!)
    if (m) return { path: importer, line: i + 1, column: m.index + 1 }
  }
  return null
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** The first stack frame in user code (not node internals, not a package in node_modules). */
function userFrame(stack: string): SourcePlace | null {
  for (const raw of stack.split('\n').slice(1)) {
    const m = FRAME.exec(raw.trim())
    if (m && !m[1]!.includes('/node_modules/')) return { path: toPath(m[1]!), line: Number(m[2]), column: Number(m[3]) }
  }
  return null
}
