import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import { analyzeImportFailure, showPath } from '../../target/import-failure.js'
import type { DevLoadError } from '../wire/protocol.js'
import { codeFrame } from '../../internal/code-frame.js'

/** A failed re-import of `file` as the browser overlay shows it: cause, place, code frame, fix. */
export function devLoadError(file: string, err: unknown, cwd: string = process.cwd()): DevLoadError {
  const f = analyzeImportFailure(file, err, cwd)
  return {
    summary: f.summary,
    cause: f.cause,
    fix: f.fix,
    file: f.at ? showPath(f.at.path, cwd) : null,
    line: f.at?.line ?? null,
    column: f.at?.column ?? null,
    frame: f.at ? fileFrame(f.at.path, f.at.line) : [],
  }
}

/** The module loaded but its export is no longer an app. */
export function exportLostError(file: string, exportName: string): DevLoadError {
  const fix = `export the app as "${exportName}" again (export const ${exportName} = new Svc(...))`
  return {
    summary: `${basename(file)} no longer exports an Svc app as "${exportName}"; ${fix}`,
    cause: `no Svc app exported as "${exportName}"`,
    fix,
    file: showPath(file),
    line: null,
    column: null,
    frame: [],
  }
}

/** The lines around `line` of the file as it is now (the save that failed). */
function fileFrame(path: string, line: number): DevLoadError['frame'] {
  try {
    return codeFrame(readFileSync(path, 'utf8'), line)
  } catch {
    return []
  }
}

/** A load failure that came without its place (a thread or child that could not say): its message. */
export function unexplainedLoadError(err: Error): DevLoadError {
  const fix = 'fix the app and save again'
  return { summary: `${err.message}; ${fix}`, cause: err.message, fix, file: null, line: null, column: null, frame: [] }
}
