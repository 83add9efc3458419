import { readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { isSvcError, SvcError } from '../../src/errors.js'
import { TokenRejected } from '../../src/auth/jwt-bearer.js'
import { Cookie, Depends, Header } from '../../src/ui/inject.js'
import { resetTraceHook, setTraceHook, traceSpan } from '../../src/tracing/index.js'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
/** Server-side code; src/ui/client is the browser bundle and never throws across the API. */
const DIRS = ['src', 'gateway', 'supervisor', 'state', 'ipc']
const SKIP = ['src/ui/client']
/** Classes that extend the built-in errors on purpose; each says why where it is defined. */
const ALLOWED_CLASSES = new Set([
  'src/errors.ts', // SvcError itself
  'src/client/usage-error.ts', // ApiClientUsageError: a TypeError carrying the SvcError brand
  'src/ui/st/signals.ts', // run signals (rerun, stop, switch page): control flow, not errors
])

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    const rel = relative(root, path)
    if (SKIP.some((s) => rel === s || rel.startsWith(s + '/'))) return []
    if (statSync(path).isDirectory()) return sources(path)
    return /\.tsx?$/.test(name) ? [path] : []
  })
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (err) {
    return isSvcError(err) ? err.code : `not an SvcError: ${String(err)}`
  }
  return undefined
}

describe('every thrown error is a coded SvcError', () => {
  const files = DIRS.flatMap((d) => sources(join(root, d)))

  it('scans the server-side sources', () => {
    expect(files.length).toBeGreaterThan(50)
  })

  it('no module throws a plain Error, TypeError or RangeError', () => {
    const bad = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (/throw new (Type|Range|Syntax)?Error\(/.test(line) ? [`${relative(root, file)}:${i + 1}`] : [])),
    )
    expect(bad).toEqual([])
  })

  it('no module defines its own error class outside the allowed few', () => {
    const bad = files
      .filter((file) => /class \w+ extends (Type|Range|Syntax)?Error\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file))
      .filter((rel) => !ALLOWED_CLASSES.has(rel))
    expect(bad).toEqual([])
  })
})

describe('errors that used to be plain', () => {
  it('TokenRejected is an SvcError with SVC_ERR_AUTH_UNAUTHORIZED; instanceof still means the class', () => {
    const err = new TokenRejected('expired')
    expect(isSvcError(err)).toBe(true)
    expect(err.code).toBe('SVC_ERR_AUTH_UNAUTHORIZED')
    expect(err.name).toBe('TokenRejected')
    expect(err instanceof TokenRejected).toBe(true)
    expect(err instanceof SvcError).toBe(true)
    expect(new SvcError('SVC_ERR_AUTH_UNAUTHORIZED', 'x') instanceof TokenRejected).toBe(false)
  })

  it('bad Depends/Header/Cookie arguments are SVC_ERR_UI_BAD_CALL', () => {
    expect(codeOf(() => Depends(42 as never))).toBe('SVC_ERR_UI_BAD_CALL')
    expect(codeOf(() => Header(''))).toBe('SVC_ERR_UI_BAD_CALL')
    expect(codeOf(() => Cookie(''))).toBe('SVC_ERR_UI_BAD_CALL')
  })

  it('a trace hook returning something unusable is SVC_ERR_TRACE_BAD_HOOK', () => {
    const token = setTraceHook(() => 42 as never)
    try {
      expect(codeOf(() => traceSpan('x'))).toBe('SVC_ERR_TRACE_BAD_HOOK')
    } finally {
      resetTraceHook(token)
    }
  })

})
