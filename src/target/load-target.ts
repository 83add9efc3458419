import { existsSync, statSync } from 'node:fs'
import { isAbsolute, resolve as resolvePath } from 'node:path'
import { pathToFileURL } from 'node:url'
import { register } from 'tsx/esm/api'
import { SvcError } from '../errors.js'
import { isSvc, type Svc } from '../app.js'

/** Extensions tried, in order, for a bare module name (`app` → `./app.ts`, ...). */
export const TARGET_EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'] as const
const DEFAULT_EXPORTS = ['app', 'default'] as const

export interface ParsedTarget {
  module: string
  exportName: string | undefined
}

/** `module:export`; a Windows drive letter or a missing `:export` is handled (export defaults). */
export function parseTarget(target: string): ParsedTarget {
  const t = target.trim()
  if (t === '') {
    throw new SvcError('SVC_ERR_TARGET_SYNTAX', 'the app target is empty; write it as "<file>:<export>", e.g. "app.ts:app"')
  }
  const idx = t.lastIndexOf(':')
  if (idx <= 1) return { module: t, exportName: undefined }
  const exportName = t.slice(idx + 1)
  const module = t.slice(0, idx)
  if (!/^[A-Za-z_$][\w$]*$/.test(exportName)) {
    throw new SvcError('SVC_ERR_TARGET_SYNTAX', `app target "${t}": "${exportName}" is not an export name; write it as "<file>:<export>", e.g. "app.ts:app"`)
  }
  return { module, exportName }
}

/** Resolve the module part of a target to an existing file, relative to `cwd`. */
export function resolveTargetFile(module: string, cwd: string = process.cwd()): string {
  const base = isAbsolute(module) ? module : resolvePath(cwd, module)
  const candidates = /\.(c|m)?(t|j)sx?$/.test(module) ? [base] : [base, ...TARGET_EXTENSIONS.map((e) => base + e)]
  for (const c of candidates) {
    if (existsSync(c) && statSync(c).isFile()) return c
  }
  throw new SvcError(
    'SVC_ERR_TARGET_NOT_FOUND',
    `cannot find the app module "${module}" (looked for ${candidates.join(', ')}); pass the file, e.g. "svc run ./src/app.ts:app"`,
  )
}

let tsxRegistered = false

/** Load `module:export` and check that it is an `Svc`. TypeScript files load through tsx. */
export async function loadTarget(target: string, cwd: string = process.cwd()): Promise<{ app: Svc; file: string; exportName: string }> {
  const parsed = parseTarget(target)
  const file = resolveTargetFile(parsed.module, cwd)
  if (!tsxRegistered) {
    // Global (un-namespaced) registration keeps one module instance of svc for app and runtime.
    register()
    tsxRegistered = true
  }
  let mod: Record<string, unknown>
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>
  } catch (err) {
    if (err instanceof SvcError) throw err
    const e = err as Error
    throw new SvcError('SVC_ERR_TARGET_IMPORT_FAILED', `importing ${file} failed: ${e.stack ?? e.message}`, { cause: err })
  }
  const names = parsed.exportName ? [parsed.exportName] : DEFAULT_EXPORTS
  const exportName = names.find((n) => n in mod && mod[n] !== undefined)
  if (exportName === undefined) {
    const found = Object.keys(mod).filter((k) => k !== '__esModule')
    throw new SvcError(
      'SVC_ERR_TARGET_EXPORT_MISSING',
      `${file} has no export ${names.map((n) => `"${n}"`).join(' or ')} (found: ${found.join(', ') || 'none'}); write the target as "${parsed.module}:<export>"`,
    )
  }
  const value = mod[exportName]
  if (!isSvc(value)) {
    const kind = value === null ? 'null' : typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value
    throw new SvcError(
      'SVC_ERR_TARGET_NOT_SVC',
      `${file} export "${exportName}" is a ${kind}, not an Svc app; export one with "export const ${exportName} = new Svc({ ... })"`,
    )
  }
  return { app: value, file, exportName }
}
