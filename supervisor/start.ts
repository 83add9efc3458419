import { dirname, resolve as resolvePath } from 'node:path'
import type { Logger } from 'pino'
import { isSvcError } from '../src/errors.js'
import type { AppProfile } from '../ipc/messages.js'
import type { ResolvedSettings, SettingKey } from '../src/settings/schema.js'
import { createRootLogger, childLogger } from '../src/logging/logger.js'
import { readCmdline, SUPERVISOR_TITLE } from '../src/process/process-check.js'
import { describeLeftovers, endLeftoverTree } from '../state/leftovers.js'
import { stateFilePath } from '../state/state-file.js'
import { compileCacheDir } from '../src/internal/compile-cache.js'
import { newTreeId } from '../src/process/kill-tree.js'
import { runProbe, type ProbeOutcome } from '../probe/run-probe.js'
import { parseTarget } from '../src/target/target-path.js'
import { bindPublicPort, internalApiBase } from './bind.js'
import { Supervisor, type ReloadScope, type Topology } from './supervisor.js'
import { settingsToEnv } from './settings-env.js'
import { debugLine, listeningLine, workbenchBanner } from './banner.js'
import { ChildSpecs } from './child-specs.js'
import { StateKeeper, type TreeState } from './state-keeper.js'
import type { DevLoop } from './dev-loop.js'
import { childExecArgv } from './child-exec-argv.js'
import type { ControlServer } from './control-server.js'
import type { LogFile } from './log-file.js'
import { Reloads } from './reloads.js'
import type { ControlAnswer, ControlRequest } from '../ipc/control.js'
import { runProcess, type ProcessControl } from '../src/process/run-process.js'
import { EXIT } from '../src/process/exit-codes.js'
import { settleHeapSoon } from '../src/process/settle-heap.js'
import type { TypeCheck } from './type-check/type-checker.js'

export { BUNDLED_SIDECAR } from './child-specs.js'

/** What `svc run|dev|workbench` asks of the supervisor. */
export interface ServeRequest {
  mode: 'run' | 'dev' | 'workbench'
  flags: Partial<Record<SettingKey, { flag: string; value: unknown }>>
  reload: ReloadScope | null
}

function fail(message: string): void {
  process.stderr.write(`svc: error: ${message}\n`)
}

/** Start failures a save can mend under `svc dev --reload` (the app's code, options or pages); not a busy port or another app's pid file. */
function waitsForFix(code: string): boolean {
  return !/^SVC_ERR_(PIDFILE_|PROCESS_(PORT_IN_USE|HOST_UNRESOLVABLE|START_CANCELLED)$)/.test(code)
}

/** Start failures that are the user's to fix before anything can run (exit 2). */
function isUsageError(code: string): boolean {
  return /^SVC_ERR_(TARGET_|PIDFILE_|CONFIG_)/.test(code) || code === 'SVC_ERR_PROCESS_HOST_UNRESOLVABLE'
}

/**
 * The supervisor's main. The supervisor never runs the app: a probe child loads it once and
 * reports its settings and pages (flags named in its errors); then the pid file is claimed, the
 * port bound and the tree started with those settings. Resolves with the exit code when the
 * start ends before the tree serves; afterwards the tree ends the process.
 */
export function serve(req: ServeRequest): Promise<number> {
  const state = new StateKeeper(readCmdline(process.pid) ?? undefined)
  return runProcess(
    {
      // `svc shutdown` recognises the supervisor by its title (src/process/process-check.ts), and so can `ps`.
      title: SUPERVISOR_TITLE,
      interruptNotice: 'svc: stopping (Ctrl-C again to force)\n',
      onForcedExit: () => state.release(),
      beforeExit: async () => {
        await state.flushed()
        state.release()
      },
    },
    (proc) => new Start(req, state, proc).run(),
  )
}

/** One `svc run|dev|workbench` from the probe to the tree, and again after a fix under `svc dev --reload`. */
class Start {
  readonly #req: ServeRequest
  readonly #state: StateKeeper
  readonly #proc: ProcessControl
  readonly #specs: ChildSpecs
  /** `svc dev --reload`: made once the app's folder is known (the probe's settings name the target). */
  #dev: DevLoop | null = null
  #root: Logger | null = null
  #logger: Logger | null = null
  /** The control socket, once the tree serves with a pid file. */
  #control: ControlServer | null = null
  /** `log_file`: where every process's log goes instead of stdout. */
  #logFile: LogFile | null = null
  readonly #startedAt = new Date()
  /** `svc dev`: the type checker beside the tree (supervisor/type-check/), from the first start that serves. */
  #typeCheck: TypeCheck | null = null
  /** Resolves the start's promise with an exit code (only before the tree serves). */
  #done!: (code: number) => void
  #launching = false

  constructor(req: ServeRequest, state: StateKeeper, proc: ProcessControl) {
    this.#req = req
    this.#state = state
    this.#proc = proc
    // Children (and the app in them) see flags as SVC_* env: CLI > env > config > options.
    const flagValues: Partial<Record<SettingKey, unknown>> = {}
    for (const [k, f] of Object.entries(req.flags)) if (f) flagValues[k as SettingKey] = f.value
    Object.assign(process.env, settingsToEnv(flagValues))
    this.#specs = new ChildSpecs({ mode: req.mode, devReload: Boolean(req.reload), compileCache: compileCacheDir(), env: process.env })
  }

  /** Code only some starts need, loaded once they are known to (`svc run` never holds the watcher's). */
  #optional: { DevLoop?: typeof DevLoop; LogFile?: typeof LogFile } = {}

  async #loadOptional(settings: ResolvedSettings | null): Promise<void> {
    if (this.#req.reload) this.#optional.DevLoop ??= (await import('./dev-loop.js')).DevLoop
    if (settings && settings.log_file !== '') this.#optional.LogFile ??= (await import('./log-file.js')).LogFile
  }

  /** The dev loop of `svc dev --reload`, watching the folder of the app these settings name; null otherwise. */
  #devLoop(settings: ResolvedSettings): DevLoop | null {
    const DevLoopClass = this.#optional.DevLoop
    if (!this.#req.reload || !DevLoopClass) return null
    this.#dev ??= new DevLoopClass({ scope: this.#req.reload, dir: dirname(resolvePath(parseTarget(settings.target).module)), logger: this.#logger ?? this.#quiet() })
    return this.#dev
  }

  run(): Promise<number> {
    return new Promise<number>((resolve) => {
      this.#done = resolve
      void this.#launch()
    })
  }

  /** Probe the app, claim the pid file, start the tree. */
  async #launch(): Promise<void> {
    this.#launching = true
    // The probe carries the coming tree's cookie: what the app starts at import (a setsid helper)
    // ends with the probe, and a kill of the supervisor mid-probe leaves nothing a sweep misses.
    const treeId = newTreeId()
    const probe = runProbe({ flags: this.#req.flags }, { env: this.#specs.probeEnv(), cookie: `${treeId}.probe`, logger: this.#logger ?? this.#quiet(), execArgv: childExecArgv(process.env) })
    this.#proc.serve({ close: () => probe.cancel(), destroy: () => probe.cancel() })
    // One app per pid file, decided while the app still loads: a second start is refused at once.
    const provisional = await probe.provisional
    const refused = provisional && this.#refusedClaim(provisional)
    if (refused) {
      await probe.cancel()
      return this.#refuse(refused)
    }
    const outcome = await probe.outcome
    this.#launching = false
    await this.#loadOptional(outcome.ok ? outcome.profile.settings : outcome.settings)
    // A stop asked for while the probe loaded the app ends the start quietly (a clean Ctrl-C).
    if (this.#proc.stopRequested) return this.#end(EXIT.OK)
    if (!outcome.ok) return this.#notStarted(outcome)
    const { profile } = outcome
    // The app's own options may name another pid file (or none).
    const moved = this.#refusedClaim(profile.settings)
    if (moved) return this.#refuse(moved)
    const logger = this.#attachLogger(profile.settings)
    // A run killed together with its sidecar guard may have left its ui_command tree behind.
    const pidfile = this.#state.pidfile
    if (pidfile !== null) {
      const ended = await endLeftoverTree(stateFilePath(pidfile))
      if (ended > 0) logger.warn(`previous run with ${profile.settings.pidfile} was killed${describeLeftovers(ended)}`)
    }
    if (this.#proc.stopRequested) return this.#end(EXIT.OK)
    await this.#startTree(profile, logger, treeId)
  }

  /** The app did not load (or its settings are wrong): say why once; under `svc dev --reload` wait for a save that mends it. */
  #notStarted(outcome: Extract<ProbeOutcome, { ok: false }>): void {
    if (outcome.code === 'SVC_ERR_PROCESS_START_CANCELLED') return this.#end(EXIT.OK)
    const refused = outcome.stage === 'app' && outcome.settings && this.#refusedClaim(outcome.settings)
    if (refused) return this.#refuse(refused)
    // The human reads it once, as the `svc: error:` line on stderr; a JSON log keeps a record
    // for machines, a pretty one would only print it a second time. The logger is attached either
    // way: `--reload`'s watcher logs with it (a quiet stand-in would drop its "starting" line).
    const logger = outcome.settings ? this.#attachLogger(outcome.settings) : null
    if (outcome.settings?.log_format === 'json') logger?.error({ code: outcome.code }, outcome.message)
    fail(outcome.message)
    if (outcome.stage === 'app' && outcome.settings && this.#devLoop(outcome.settings) && waitsForFix(outcome.code)) {
      void this.#waitForFix(outcome.settings)
      return
    }
    this.#end(isUsageError(outcome.code) ? EXIT.USAGE : EXIT.FAILURE)
  }

  /** Hold the pid file these settings name; why not when another svc holds it (or it cannot be written), else null. */
  #refusedClaim(settings: ResolvedSettings): string | null {
    try {
      this.#state.claim(settings.no_pidfile ? null : settings.pidfile)
      return null
    } catch (err) {
      if (!isSvcError(err)) throw err
      return err.message
    }
  }

  #refuse(message: string): void {
    fail(message)
    this.#end(EXIT.USAGE)
  }

  #attachLogger(settings: ResolvedSettings): Logger {
    if (this.#logger) return this.#logger
    if (settings.log_file !== '' && this.#optional.LogFile) {
      const file = new this.#optional.LogFile(settings)
      this.#logFile = file
      this.#specs.stdout = (stream) => file.pipeFrom(stream)
      // logrotate's `postrotate`: `kill -USR2 $(cat .svc.pid)` (SIGUSR1 is Node's inspector).
      process.on('SIGUSR2', () => file.reopen())
    }
    this.#root = createRootLogger(settings, this.#logFile?.destination)
    this.#logger = childLogger(this.#root, 'svc.supervisor')
    this.#proc.logUncaught(this.#logger, 'the supervisor exits 1; its children notice and stop')
    this.#state.attach(this.#logger)
    return this.#logger
  }

  async #startTree(profile: AppProfile, logger: Logger, treeId: string): Promise<void> {
    const settings = profile.settings
    const target = settings.target
    const supervisor = new Supervisor({
      treeId,
      profile,
      logger,
      bind: (s) => bindPublicPort(s.gateway_host, s.gateway_port),
      onBound: (bound) => {
        if (settings.debug) process.stderr.write(debugLine(settings, internalApiBase(settings.gateway_host, bound.port, settings.api_mount_path)))
      },
      standbyWorkers: this.#devLoop(settings) !== null,
      sidecarSpec: (s, bound) => this.#specs.sidecar(s, bound),
      workerEnv: (s, bound, uiUpstream) => this.#specs.workerEnv(s, bound, uiUpstream),
      ...(this.#specs.stdout ? { workerStdout: this.#specs.stdout } : {}),
      onTopology: (t) => {
        this.#state.publish(treeState(t, target))
        this.#typeCheck?.showIn(t.sidecar)
      },
      onExit: (code, message, startError) => {
        if (this.#devLoop(settings) && startError !== undefined && waitsForFix(startError)) {
          if (message) fail(message)
          void this.#waitForFix(settings)
          return
        }
        if (message && code !== 0) fail(message)
        this.#end(code)
      },
    })
    this.#proc.serve(supervisor)
    await supervisor.start()
    if (supervisor.state !== 'running') return
    const reloads = new Reloads({ supervisor, probe: () => this.#probeFor(supervisor, logger), logger })
    await this.#openControl(supervisor, reloads, logger)
    // systemd's ExecReload= (`kill -HUP $MAINPID`); under `svc dev` a hang-up is still the terminal going away.
    if (this.#req.mode !== 'dev') this.#proc.onHangup(() => void reloads.request('gateway', 'signal'))
    // The pid file and state file exist before the line a script waits for (then runs `svc shutdown`).
    await this.#state.flushed()
    const { host, port } = supervisor.bound!
    if (this.#req.mode === 'workbench') process.stderr.write(workbenchBanner(settings, host, port))
    process.stderr.write(listeningLine(settings, host, port, supervisor.sidecar!.url))
    settleHeapSoon()
    const dev = this.#devLoop(settings)
    if (dev) {
      await dev.watch(settings, () => {
        void reloads.request(dev.scope, 'watch')
        return 'reloading'
      })
      process.stderr.write(dev.servingLine)
    }
    // Off the serving path: its own process, at a lower priority, once the tree serves.
    if (this.#req.mode === 'dev' && settings.dev_type_check && this.#typeCheck === null) {
      const { startTypeCheck } = await import('./type-check/type-checker.js')
      this.#typeCheck = startTypeCheck({ appDir: dirname(resolvePath(parseTarget(target).module)), cwd: process.cwd(), logger: childLogger(this.#root!, 'svc.typecheck'), pretty: settings.log_format === 'pretty' })
      this.#typeCheck?.showIn(supervisor.sidecar)
    }
  }

  /** A probe of the running app for `svc reload` and SIGHUP: its processes carry the tree's cookie. */
  #probeFor(supervisor: Supervisor, logger: Logger): Promise<ProbeOutcome> {
    return runProbe({ flags: this.#req.flags }, { env: this.#specs.probeEnv(), cookie: `${supervisor.treeId}.probe`, logger, execArgv: childExecArgv(process.env), ...(this.#specs.stdout ? { stdout: this.#specs.stdout } : {}) }).outcome
  }

  /**
   * The control socket `svc status` and `svc reload` ask (next to the pid file; none without one:
   * nothing could find it). One that cannot be opened costs those commands only: a warning.
   */
  async #openControl(supervisor: Supervisor, reloads: Reloads, logger: Logger): Promise<void> {
    const pidfile = this.#state.pidfile
    if (pidfile === null) return
    const mode = this.#req.mode
    const { ControlServer, controlSocketPath } = await import('./control-server.js')
    const handle = async (request: ControlRequest): Promise<ControlAnswer> => {
      // Loaded at the first `svc status`: reading /proc and the report's shape are not needed to serve.
      if (request.op === 'status') return { svc: 1, ok: true, status: await (await import('./status.js')).buildStatus(supervisor, mode, this.#startedAt) }
      const report = await reloads.request(request.scope, 'command')
      return report.error ? { svc: 1, ok: false, error: report.error, reload: report } : { svc: 1, ok: true, reload: report }
    }
    const control = new ControlServer({ path: controlSocketPath(pidfile), logger, handle })
    try {
      await control.listen()
    } catch (err) {
      logger.warn({ err }, `no control socket (svc status and svc reload cannot reach this svc; SIGHUP still reloads): ${(err as Error).message}`)
      return
    }
    this.#control = control
    this.#state.controlSocket = control.path
  }

  /** Like nodemon after a crash: the terminal said what broke; the next save starts the tree again. */
  async #waitForFix(settings: ResolvedSettings): Promise<void> {
    const dev = this.#devLoop(settings)!
    this.#proc.serve({ close: async () => this.#end(EXIT.OK), destroy: async () => this.#end(EXIT.FAILURE) })
    if (this.#proc.stopRequested) return
    await dev.watch(settings, () => {
      if (!this.#launching) void this.#launch()
      return 'starting'
    })
    // Said once the watcher sees every save (as the --reload line is).
    process.stderr.write(dev.waitingLine)
  }

  /** End the process with `code` (the pid file and state file go in runProcess's last step). */
  #end(code: number): void {
    this.#done(code)
    void (async () => {
      await this.#control?.destroy()
      await Promise.all([this.#dev?.close(), this.#typeCheck?.close()])
      this.#root?.flush()
      await this.#logFile?.close()
      await this.#proc.exit(code)
    })()
  }

  /** Before the settings are known: IPC trouble only, JSON on stderr. */
  #quiet(): Logger {
    return createRootLogger({ log_level: 'warn', log_format: 'json' }, process.stderr)
  }
}

function treeState(t: Topology, target: string): TreeState {
  return { treeId: t.treeId, target, uiUpstream: t.sidecar.url, sidecarPid: t.sidecar.pid, host: t.bound.host, port: t.bound.port, workers: t.workers.map((w) => ({ pid: w.pid, startedAt: w.startedAt })) }
}
