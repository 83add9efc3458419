import { fork, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Logger } from 'pino'
import { Lifecycle } from '../../src/internal/lifecycle.js'
import { z } from '../../src/internal/zod.js'
import { processChannel } from '../../ipc/channel.js'
import { TypeCheckerToSupervisor, type DevTypeError, type TypeCheckReport } from '../../ipc/messages.js'
import { findTypeCheckProject } from './find-project.js'

/** The checker's main, next to this file in dist/. */
export const CHECKER_MAIN = fileURLToPath(new URL('./checker-main.js', import.meta.url))
/** A checker that does not exit within this after SIGTERM is killed. */
const STOP_GRACE_MS = 2_000

/** Where the errors show besides the terminal: the bundled page server's open tabs (`Sidecar`). */
export interface TypeErrorsTarget {
  showTypeErrors(report: TypeCheckReport): void
}

/** `svc dev`'s type check, as the supervisor sees it. */
export interface TypeCheck {
  /** Show the errors in this page server's tabs from now on (a new one after a full reload or a restart). */
  showIn(target: TypeErrorsTarget | null): void
  /** Stop the checker (SIGTERM, then SIGKILL after a grace); resolves once it exited. Same promise on repeat. */
  close(): Promise<void>
  /** Kill the checker now; resolves once it exited. */
  destroy(err?: Error): Promise<void>
}

export interface TypeCheckOptions {
  /** The app's folder: the project's TypeScript and tsconfig.json are looked up from it. */
  appDir: string
  /** Paths in errors are relative to this folder (the working directory). */
  cwd: string
  logger: Logger
  /** A terminal reader (pretty logs): each error comes with its code frame. */
  pretty: boolean
}

/**
 * Start the type checker beside the tree: a child process running the project's own TypeScript
 * on its tsconfig.json (supervisor/type-check/checker-main.ts), which watches the files itself.
 * Each error is logged once, when it appears; the page server shows the current ones. Returns
 * null, and changes nothing, when the project has no TypeScript or no tsconfig.json.
 */
export function startTypeCheck(o: TypeCheckOptions): TypeCheck | null {
  const project = findTypeCheckProject(o.appDir)
  if ('missing' in project) {
    o.logger.debug(`type check off: ${project.missing}`)
    return null
  }
  return new DevTypeCheck(o, project.typescript, project.tsconfig)
}

class DevTypeCheck extends Lifecycle implements TypeCheck {
  readonly #o: TypeCheckOptions
  readonly #child: ChildProcess
  readonly #exited: Promise<void>
  /** Stopped on its own (a fatal error, an exit): said once. */
  #stoppedItself = false
  /** The last check's result (null before the first); `#sent` is what `#target` was given. */
  #latest: TypeCheckReport | null = null
  #target: TypeErrorsTarget | null = null
  #sent: { target: TypeErrorsTarget; report: TypeCheckReport } | null = null
  /** The errors logged so far that are still there: each is logged once, when it appears. */
  #logged = new Set<string>()

  constructor(o: TypeCheckOptions, typescript: string, tsconfig: string) {
    super()
    this.#o = o
    const args = { typescript, tsconfig, buildInfo: buildInfoPath(tsconfig), cwd: o.cwd }
    this.#child = fork(CHECKER_MAIN, [JSON.stringify(args)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [...process.execArgv, '--expose-gc'] })
    this.#child.on('error', () => {})
    this.#exited = new Promise((resolve) => this.#child.once('exit', () => resolve()))
    const channel = processChannel(this.#child, { incoming: TypeCheckerToSupervisor, outgoing: z.never() }, o.logger, 'type checker')
    channel.onMessage((m) => {
      if (m.type === 'checked') this.#checked(m, m.ms)
      else this.#stopped(m.message)
    })
    this.#child.once('exit', (code, signal) => {
      if (!this.closed) this.#stopped(`the checker exited (${signal ?? `exit code ${code}`})`)
    })
    o.logger.debug({ tsconfig, typescript }, 'type check started')
  }

  showIn(target: TypeErrorsTarget | null): void {
    this.#target = target
    this.#show()
  }

  /** The check under way is dropped: the checker gets SIGTERM, and SIGKILL if it is still there `STOP_GRACE_MS` later. */
  protected async drain(): Promise<void> {
    if (this.#gone()) return
    this.#child.kill('SIGTERM')
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), STOP_GRACE_MS)
    await this.#exited
    clearTimeout(timer)
  }

  protected async abort(): Promise<void> {
    if (this.#gone()) return
    this.#child.kill('SIGKILL')
    await this.#exited
  }

  #gone(): boolean {
    return this.#child.exitCode !== null || this.#child.signalCode !== null
  }

  #checked(report: TypeCheckReport, ms: number): void {
    const { logger, pretty } = this.#o
    logger.debug({ ms, total: report.total }, `type check done: ${report.total} error(s)`)
    const before = this.#latest
    this.#latest = { errors: report.errors, total: report.total }
    const now = new Set<string>()
    for (const e of report.errors) {
      const key = identity(e)
      now.add(key)
      if (this.#logged.has(key)) continue
      logger.warn({ code: 'SVC_ERR_TARGET_TYPE_ERROR', ts_code: e.code, file: e.file, line: e.line, column: e.column }, describe(e) + (pretty ? textFrame(e) : ''))
    }
    this.#logged = now
    if (report.total > report.errors.length) logger.warn(`... and ${report.total - report.errors.length} more type errors (npx tsc --noEmit lists them all)`)
    if (report.total === 0 && (before === null || before.total > 0)) logger.info({ ms }, before === null ? 'type check: no type errors' : 'type check: no type errors left')
    this.#show()
  }

  /** The checker cannot go on: say so once and clear what the tabs show (it would go stale). */
  #stopped(why: string): void {
    if (this.#stoppedItself) return
    this.#stoppedItself = true
    this.#o.logger.warn({ code: 'SVC_ERR_PROCESS_TYPE_CHECK' }, `type check stopped: ${why}; svc dev goes on without it`)
    this.#latest = { errors: [], total: 0 }
    this.#show()
  }

  /** Give the target the latest result, unless it has it already (the tabs would show a dismissed result again). */
  #show(): void {
    const target = this.#target
    const report = this.#latest
    if (target === null || report === null) return
    if (this.#sent?.target === target && JSON.stringify(this.#sent.report) === JSON.stringify(report)) return
    this.#sent = { target, report }
    target.showTypeErrors(report)
  }
}

/** The same error after lines moved above it (its line number changed) is not a new one. */
function identity(e: DevTypeError): string {
  const text = e.frame.find((l) => l.line === e.line)?.text.trim() ?? ''
  return JSON.stringify([e.file, e.code, e.message, text])
}

/**
 * `type error at app.ts:12:5 TS2339: Property 'x' does not exist on type 'Y'. (the code still runs)`;
 * `syntax error at app.ts:27:3 TS1005: ',' expected. (if the app imports this file, the save does not load: svc dev keeps running the last version that did)`.
 */
function describe(e: DevTypeError): string {
  const place = e.file === null ? '' : ` at ${e.file}${e.line === null ? '' : `:${e.line}:${e.column ?? 1}`}`
  return e.syntax === true ? `syntax error${place} ${e.code}: ${e.message} (if the app imports this file, the save does not load: svc dev keeps running the last version that did)` : `type error${place} ${e.code}: ${e.message} (the code still runs)`
}

/** The code frame as tsc prints it, for a terminal. */
function textFrame(e: DevTypeError): string {
  const width = String(e.frame.at(-1)?.line ?? 0).length
  let out = ''
  for (const l of e.frame) {
    const at = l.line === e.line
    out += `\n${at ? '>' : ' '} ${String(l.line).padStart(width)} | ${l.text}`
    if (at && e.column !== null) out += `\n  ${' '.repeat(width)} | ${l.text.slice(0, e.column - 1).replace(/[^\t]/g, ' ')}^`
  }
  return out
}

/** One build-info file per tsconfig, outside the project (the user's own `tsc` keeps its own). */
export function buildInfoPath(tsconfig: string): string {
  const id = createHash('sha256').update(tsconfig).digest('hex').slice(0, 16)
  return join(tmpdir(), 'svc-type-check', `${id}.tsbuildinfo`)
}
