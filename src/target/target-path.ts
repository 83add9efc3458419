import { existsSync, statSync } from 'node:fs'
import { isAbsolute, resolve as resolvePath } from 'node:path'
import { SvcError } from '../errors.js'

/**
 * The app target `module:export` as a path, without importing anything: the supervisor checks it
 * here (and never runs the app's code itself); `load-target.ts` imports it.
 */
/** Extensions tried, in order, for a bare module name (`app` → `./app.ts`, ...). */
export const TARGET_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs'] as const

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
