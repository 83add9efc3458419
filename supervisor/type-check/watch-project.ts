import { performance } from 'node:perf_hooks'
import type * as TS from 'typescript'
import { codeFrame } from '../../src/internal/code-frame.js'
import { showPath } from '../../src/target/import-failure.js'
import type { DevTypeError, TypeCheckReport } from '../../ipc/messages.js'

/** Errors sent with full detail after each check; `total` counts them all. */
export const MAX_REPORTED_TYPE_ERRORS = 50

/** TypeScript's watch statuses "Starting compilation in watch mode..." and "File change detected...". */
const CHECK_STARTS = new Set([6031, 6032])

export interface WatchProjectOptions {
  tsconfig: string
  /** Where the incremental state is kept between runs of `svc dev`. */
  buildInfo: string
  /** Paths in reports are relative to this folder. */
  cwd: string
  onReport: (report: TypeCheckReport & { ms: number }) => void
}

/**
 * TypeScript's watch program over the project's tsconfig: it watches the files itself, rebuilds
 * incrementally (only what a save touched, and from the `.tsbuildinfo` of the last run on start)
 * and reports the errors after every check. Nothing is emitted but the build info.
 */
export function watchProject(ts: typeof TS, o: WatchProjectOptions): { close(): void } {
  // A tsconfig that cannot be read is reported here, not by a program.
  let pending: TS.Diagnostic[] = []
  let started = performance.now()
  const host = ts.createWatchCompilerHost(
    o.tsconfig,
    { noEmit: true, incremental: true, tsBuildInfoFile: o.buildInfo },
    ts.sys,
    ts.createEmitAndSemanticDiagnosticsBuilderProgram,
    (d) => void pending.push(d),
    (d) => {
      if (CHECK_STARTS.has(d.code)) started = performance.now()
    },
  )
  host.afterProgramCreate = (program) => {
    const syntax = program.getSyntacticDiagnostics()
    // A file that does not parse gets knock-on type errors from the half it could read: only its syntax errors are told.
    const unparsed = new Set(syntax.map((d) => d.file?.fileName))
    const diagnostics = [
      ...pending,
      ...program.getConfigFileParsingDiagnostics(),
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...program.getSemanticDiagnostics().filter((d) => d.file === undefined || !unparsed.has(d.file.fileName)),
    ]
    pending = []
    // With noEmit this writes the .tsbuildinfo only: the next `svc dev` starts warm.
    program.emit()
    o.onReport({ ...report(ts, diagnostics, syntax, o.cwd), ms: Math.round(performance.now() - started) })
  }
  const watch = ts.createWatchProgram(host)
  return { close: () => watch.close() }
}

function report(ts: typeof TS, diagnostics: readonly TS.Diagnostic[], syntax: readonly TS.Diagnostic[], cwd: string): TypeCheckReport {
  const isError = (d: TS.Diagnostic): boolean => d.category === ts.DiagnosticCategory.Error
  const errors = [...syntax.filter(isError).map((d) => ({ ...toError(ts, d, cwd), syntax: true })), ...diagnostics.filter(isError).map((d) => toError(ts, d, cwd))]
  errors.sort((a, b) => (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0))
  return { errors: errors.slice(0, MAX_REPORTED_TYPE_ERRORS), total: errors.length }
}

function toError(ts: typeof TS, d: TS.Diagnostic, cwd: string): DevTypeError {
  const code = `TS${d.code}`
  const message = ts.flattenDiagnosticMessageText(d.messageText, '\n')
  if (!d.file) return { file: null, line: null, column: null, code, message, frame: [] }
  const file = showPath(d.file.fileName, cwd)
  if (d.start === undefined) return { file, line: null, column: null, code, message, frame: [] }
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start)
  return { file, line: line + 1, column: character + 1, code, message, frame: codeFrame(d.file.text, line + 1) }
}
