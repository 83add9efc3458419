import type { Logger } from 'pino'
import { logUncaught } from '../internal/uncaught.js'
import { EXIT } from './exit-codes.js'

/** What a process main hands to `runProcess` to be stopped: the close contract's two verbs. */
export interface ProcessPart {
  /** Stop gracefully: drain, then end the process (the part decides the exit code). */
  close(): Promise<unknown>
  /** Stop now (a second Ctrl-C). */
  destroy(): Promise<unknown>
}

export interface RunProcessOptions {
  /** `process.title`: what `ps` and svc's own process checks see. */
  title: string
  /** Printed on stderr at the first Ctrl-C, when a user at a terminal should learn that a second one forces. */
  interruptNotice?: string
  /**
   * The parent's IPC channel closing (the supervisor died): `close` the part (default), or
   * `part` when the part watches its channel itself (the gateway drains an orphan on a shorter
   * deadline). A process without an IPC channel never sees it.
   */
  parentGone?: 'close' | 'part'
  /** A second Ctrl-C before the part exists: last words before the process exits 1 (release the pidfile). */
  onForcedExit?: () => void
  /** Run by `exit()` before the process ends (children end the processes they started). */
  beforeExit?: () => Promise<void>
}

/** What a process main gets from `runProcess`. */
export interface ProcessControl {
  /** Hand over the part that signals stop. A stop asked for before this call is applied at once. */
  serve(part: ProcessPart): void
  /** True once a graceful stop was asked for (a signal, or the parent gone), also before `serve`. */
  readonly stopRequested: boolean
  /**
   * What SIGHUP does from now on: `handler` instead of a graceful stop (the supervisor of
   * `svc run` reloads on it, for systemd's `ExecReload=`); null: a stop again.
   */
  onHangup(handler: (() => void) | null): void
  /** svc's uncaught-error policy on this process's logger (src/internal/uncaught.ts). */
  logUncaught(logger: Logger, consequence: string): void
  /** End the process with `code`, after `beforeExit`. */
  exit(code: number): Promise<never>
}

/** Signals that ask for a graceful stop. SIGINT is Ctrl-C: the second one stops now. */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP']

/**
 * The one way svc's processes begin and end (supervisor, gateway worker, sidecar guard, page
 * server): sets the title, wires the stop signals (the first asks for a graceful stop, a second
 * Ctrl-C stops now), the parent going away, the uncaught-error policy and the exit, then runs
 * `main`. Resolves with what `main` resolves with; the part ends the process itself when it stops.
 */
export async function runProcess<T>(options: RunProcessOptions, main: (proc: ProcessControl) => Promise<T>): Promise<T> {
  process.title = options.title
  let part: ProcessPart | null = null
  let stopRequested = false
  let interrupts = 0
  let exiting: Promise<never> | null = null
  let hangup: (() => void) | null = null

  // A close or destroy that rejects is an error nothing caught: the uncaught policy ends the process.
  const stop = (): void => {
    stopRequested = true
    if (part) void part.close()
  }
  const forceStop = (): void => {
    if (part) {
      void part.destroy()
      return
    }
    options.onForcedExit?.()
    process.exit(EXIT.FAILURE)
  }
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (signal === 'SIGHUP' && hangup) return hangup()
      if (signal !== 'SIGINT') return stop()
      if (++interrupts > 1) return forceStop()
      if (options.interruptNotice) process.stderr.write(options.interruptNotice)
      stop()
    })
  }
  if ((options.parentGone ?? 'close') === 'close') process.once('disconnect', stop)

  const control: ProcessControl = {
    serve(p) {
      part = p
      if (stopRequested) void p.close()
    },
    get stopRequested() {
      return stopRequested
    },
    onHangup(handler) {
      hangup = handler
    },
    logUncaught,
    exit(code) {
      exiting ??= (async () => {
        try {
          await options.beforeExit?.()
        } finally {
          process.exit(code)
        }
      })()
      return exiting
    },
  }
  return main(control)
}
