import { relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Why importing the app failed, as one line: the file (and position) at fault, the cause, the
 * fix. Node's and esbuild's own messages are multi-line with a stack of loader internals; the
 * user needs the first user-code frame and what to do about it.
 */
const ESBUILD_ERROR = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m
const FRAME = /(?:\(|at )((?:file:\/\/)?\/[^():\s]+):(\d+):(\d+)\)?$/
const REQUIRE_OF_ESM = new Set(['ERR_REQUIRE_CYCLE_MODULE', 'ERR_REQUIRE_ESM', 'ERR_REQUIRE_ASYNC_MODULE'])

export function describeImportFailure(file: string, err: unknown, cwd: string = process.cwd()): string {
  const show = (p: string): string => {
    const path = p.startsWith('file:') ? fileURLToPath(p) : p
    const rel = relative(cwd, path)
    return rel === '' || rel.startsWith('..') ? path : rel
  }
  const e = (err instanceof Error ? err : new Error(String(err))) as Error & { code?: string }
  const head = `cannot load ${show(file)}`
  const firstLine = (e.message.split('\n')[0] ?? '').trim()

  const esbuild = ESBUILD_ERROR.exec(e.message)
  if (esbuild) {
    const [, path, line, col, text] = esbuild
    return `${head}: syntax error at ${show(path!)}:${line}:${col}: ${text}; fix the code there`
  }
  if (e.code === 'ERR_MODULE_NOT_FOUND') {
    const pkg = /Cannot find package '([^']+)' imported from (.+)$/.exec(firstLine)
    if (pkg) return `${head}: cannot find package "${pkg[1]}" (imported from ${show(pkg[2]!)}); install it (npm install ${pkg[1]}) or fix the import`
    const mod = /Cannot find module '([^']+)' imported from (.+)$/.exec(firstLine)
    if (mod) return `${head}: cannot find module ${show(mod[1]!)} (imported from ${show(mod[2]!)}); fix the import path`
  }
  const at = userFrame(e.stack ?? '')
  const where = at ? ` (at ${show(at.path)}:${at.line}:${at.col})` : ''
  if (e.code !== undefined && REQUIRE_OF_ESM.has(e.code)) {
    return `${head}: a CommonJS require()${where} loads an ES module (${e.code}); use import instead of require() for the app's own modules, or make the requiring file an ES module (.mjs/.mts or import/export syntax)`
  }
  if (e.name === 'SyntaxError') {
    return `${head}: ${e.name}: ${firstLine}${where}; fix the code or the import there`
  }
  return `${head}: ${e.name}: ${firstLine}${where}; fix the code that throws there (the app module runs at import)`
}

/** The first stack frame in user code (not node internals, not a package in node_modules). */
function userFrame(stack: string): { path: string; line: string; col: string } | null {
  for (const raw of stack.split('\n').slice(1)) {
    const m = FRAME.exec(raw.trim())
    if (m && !m[1]!.includes('/node_modules/')) return { path: m[1]!, line: m[2]!, col: m[3]! }
  }
  return null
}
