import { existsSync } from 'node:fs'
import { resolve as resolvePath, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isSvcError } from '../src/errors.js'
import { configFileLayer, envLayer, flagsLayer, resolveSettings } from '../src/settings/resolve.js'
import type { ResolvedSettings, SettingKey } from '../src/settings/schema.js'
import { createRootLogger, childLogger } from '../src/logging/logger.js'
import { parseTarget, resolveTargetFile } from '../src/target/target-path.js'
import { stateFilePath, writeStateFile, removeStateFileSync } from '../state/state-file.js'
import { readCmdline, SUPERVISOR_TITLE } from '../src/process/process-check.js'
import { describeLeftovers, endLeftoverTree } from '../state/leftovers.js'
import { PidfileHold } from './pidfile-hold.js'
import { compileCacheDir } from '../src/internal/compile-cache.js'
import { loadedFiles, ownPaths } from '../state/reload-ignore.js'
import { bindPublicPort, freeLoopbackPort, internalApiBase, reserveLoopbackPort, type BoundPort } from './bind.js'
import { Supervisor, type ReloadScope, type Topology } from './supervisor.js'
import type { SidecarSpec } from './sidecar.js'
import { settingsToEnv } from './settings-env.js'
import { debugLine, listeningLine, workbenchBanner } from './banner.js'
import { childEnv } from '../src/process/child-env.js'
import { runProcess, type ProcessControl } from '../src/process/run-process.js'
import { EXIT } from '../src/process/exit-codes.js'
import type { TypeCheck } from './type-check/type-checker.js'

/** What `svc run|dev|workbench` asks of the supervisor. */
export interface ServeRequest {
  mode: 'run' | 'dev' | 'workbench'
  flags: Partial<Record<SettingKey, { flag: string; value: unknown }>>
  reload: ReloadScope | null
}

/** The bundled page server (src/ui/server/main.ts), next to this file in dist/. */
export const BUNDLED_SIDECAR = fileURLToPath(new URL('../src/ui/server/main.js', import.meta.url))

function fail(message: string): void {
  process.stderr.write(`svc: error: ${message}\n`)
}

/**
 * The supervisor's main: validate settings (flags named in errors) and the target path, start
 * the actor, wire signals. The supervisor never imports the app (it runs no user code and stays
 * small); the first gateway worker reports the app's settings. Resolves with the exit code only
 * for errors found before any child started; afterwards the actor ends the process.
 */
export async function serve(req: ServeRequest): Promise<number> {
  let provisional: ResolvedSettings
  let portFixed: boolean
  try {
    const layers = [configFileLayer(), envLayer(), flagsLayer(req.flags)]
    provisional = resolveSettings(layers)
    // Set above the app's options (flag, env, config): what is bound now is final.
    portFixed = layers.some((l) => l.values.gateway_port !== undefined)
    // A missing module is a usage error worth catching before anything starts.
    resolveTargetFile(parseTarget(provisional.target).module)
  } catch (err) {
    if (isSvcError(err)) {
      fail(err.message)
      return EXIT.USAGE
    }
    throw err
  }
  const pidfile = new PidfileHold()
  return runProcess(
    {
      // `svc shutdown` recognises the supervisor by its title (src/process/process-check.ts), and so can `ps`.
      title: SUPERVISOR_TITLE,
      interruptNotice: 'svc: stopping (Ctrl-C again to force)\n',
      onForcedExit: () => pidfile.release(),
    },
    (proc) => supervise(req, provisional, portFixed, pidfile, proc),
  )
}

/** The supervisor from the pidfile on; signals reach it through `proc` (src/process/run-process.ts). */
async function supervise(req: ServeRequest, provisional: ResolvedSettings, portFixed: boolean, pidfile: PidfileHold, proc: ProcessControl): Promise<number> {
  // Children (and the app in them) see flags as SVC_* env: CLI > env > config > options.
  const flagValues: Partial<Record<SettingKey, unknown>> = {}
  for (const [k, f] of Object.entries(req.flags)) if (f) flagValues[k as SettingKey] = f.value
  Object.assign(process.env, settingsToEnv(flagValues))

  const root = createRootLogger(provisional)
  const logger = childLogger(root, 'svc.supervisor')
  proc.logUncaught(logger, 'the supervisor exits 1; its children notice and stop')
  const target = provisional.target
  let settingsFinal = false
  const cacheDir = compileCacheDir()
  // Our own children (gateway workers, bundled sidecar) get the cache from their first module on.
  const cacheEnv = childEnv({ compileCache: cacheDir })
  // Until the first worker has reported the app's settings, children must resolve them exactly
  // as the app would: no SVC_GATEWAY_PORT of ours may shadow a `new Svc({ gateway_port })`,
  // unless a flag, env or config fixed the port already (then they see the real one, never 0).
  const baseEnv = (s: ResolvedSettings, bound: BoundPort): NodeJS.ProcessEnv => ({
    ...process.env,
    ...childEnv({ app: target, internalApiBase: internalApiBase(s.gateway_host, bound.port, s.api_mount_path) }),
    ...(settingsFinal || portFixed ? { SVC_GATEWAY_PORT: String(bound.port) } : {}),
  })
  const sidecarSpec = async (s: ResolvedSettings, bound: BoundPort): Promise<SidecarSpec> => {
    // The bundled server inherits a socket the supervisor holds bound; a ui_command binds {port} itself.
    const listenSocket = s.ui_command ? undefined : reserveLoopbackPort()
    const port = listenSocket ? listenSocket.port : await freeLoopbackPort()
    const upstream = `http://127.0.0.1:${port}`
    const env: NodeJS.ProcessEnv = {
      ...baseEnv(s, bound),
      ...childEnv({ uiUpstream: upstream, uiPort: port, uiHost: '127.0.0.1', rootPath: s.root_path }),
    }
    if (s.ui_command) {
      const fill = (v: string): string => v.replaceAll('{port}', String(port)).replaceAll('{host}', '127.0.0.1').replaceAll('{base_path}', s.root_path)
      return { kind: 'command', script: '', argv: s.ui_command.map(fill), env, port, healthUrl: upstream + fill(s.ui_health_path ?? '/') }
    }
    return { kind: 'bundled', script: BUNDLED_SIDECAR, argv: [], env: { ...env, ...childEnv({ devReload: Boolean(req.reload), devMode: req.mode === 'dev' }), ...cacheEnv }, port, listenSocket, healthUrl: `${upstream}${s.root_path}/_stcore/health` }
  }

  // One app per pidfile, decided before anything is bound or started.
  try {
    pidfile.take(provisional.no_pidfile ? null : provisional.pidfile)
  } catch (err) {
    if (!isSvcError(err)) throw err
    fail(err.message)
    return EXIT.USAGE
  }
  // A run killed together with its sidecar guard may have left its ui_command tree behind.
  if (pidfile.path !== null) {
    const ended = await endLeftoverTree(stateFilePath(pidfile.path))
    if (ended > 0) logger.warn(`previous run with ${provisional.pidfile} was killed${describeLeftovers(ended)}`)
  }
  // A stop asked for before the supervisor exists ends the start quietly (a clean Ctrl-C).
  if (proc.stopRequested) {
    pidfile.release()
    return 0
  }
  const startedAt = new Date().toISOString()
  const cmdline = readCmdline(process.pid) ?? undefined
  /** The topology the supervisor started with, for the banner. */
  // Typed by assertion: set in a callback, so TypeScript must not narrow it to null.
  let started = null as Topology | null
  /** The newest topology, for the state file. */
  let latest = null as Topology | null
  let stateWrites = Promise.resolve()
  const appDir = dirname(resolvePath(parseTarget(target).module))
  /** The supervisor of this start (a new one after `svc dev --reload` waited for a fix). */
  let supervisor: Supervisor
  /** `svc dev --reload` waiting for a save after a failed start: start again on the next one. */
  let startAgain: (() => void) | null = null
  let stopWatching: (() => Promise<void>) | null = null
  /** `svc dev`: the type checker beside the tree (supervisor/type-check/). */
  let typeCheck: TypeCheck | null = null
  const newSupervisor = (): Supervisor => new Supervisor({
    settings: provisional,
    logger,
    bind: (s) => bindPublicPort(s.gateway_host, s.gateway_port),
    standbyWorkers: Boolean(req.reload),
    reloadPages: Boolean(req.reload),
    sidecarSpec,
    workerEnv: (s, bound, uiUpstream) => ({ ...baseEnv(s, bound), ...cacheEnv, ...childEnv({ uiUpstream, devMode: req.mode === 'dev' }) }),
    onSettings: (s, bound) => {
      settingsFinal = true
      // The app's own options may name another pidfile (or none): held before anything serves.
      pidfile.take(s.no_pidfile ? null : s.pidfile)
      if (s.debug) process.stderr.write(debugLine(s, internalApiBase(s.gateway_host, bound.port, s.api_mount_path)))
    },
    onTopology: (topology) => {
      started ??= topology
      latest = topology
      writeState(topology)
      typeCheck?.showIn(topology.sidecar)
    },
    onExit: (code, message, startError) => {
      if (req.reload && started === null && startError !== undefined && waitsForFix(startError)) {
        if (message) fail(message)
        void waitForFix()
        return
      }
      void exit(code, message)
    },
  })
  /** The pidfile and state file for `topology`; chained, so a later topology is never overwritten by an earlier write. */
  const writeState = (topology: Topology): void => {
    const { treeId, bound, sidecar, workers } = topology
    const path = pidfile.path
    if (!path) return
    stateWrites = stateWrites
      .then(async () => {
        // Never the state of another svc's pidfile; a pidfile deleted by hand is claimed again.
        if (!pidfile.ensure()) {
          logger.warn(`${path} now names another running svc; this one no longer writes it or its state file (stop it with a signal to pid ${process.pid})`)
          return
        }
        await writeStateFile(stateFilePath(path), {
          version: 2,
          tree_id: treeId,
          supervisor_pid: process.pid,
          ui_upstream: sidecar.url,
          gateway_host: bound.host,
          gateway_port: bound.port,
          workers: workers.map((w) => ({ pid: w.pid, started_at: w.startedAt.toISOString() })),
          sidecar_pid: sidecar.pid,
          started_at: startedAt,
          target,
          ...(cmdline ? { cmdline } : {}),
        })
      })
      .catch((err: Error) => logger.warn({ err }, `cannot write ${path} or its state file`))
  }
  // A pidfile or state file deleted while the tree runs (by hand, `git clean -x`) is written
  // again within PIDFILE_CHECK_MS, so `svc shutdown` finds the tree without waiting for a restart.
  const restoreState = setInterval(() => {
    const path = pidfile.path
    if (latest === null || path === null) return
    if (!existsSync(path) || (!existsSync(stateFilePath(path)) && pidfile.owns())) {
      logger.warn(`${path} or its state file was deleted while svc runs; written again`)
      writeState(latest)
    }
  }, PIDFILE_CHECK_MS)
  restoreState.unref()
  const exit = async (code: number, message?: string): Promise<never> => {
    clearInterval(restoreState)
    await Promise.all([stopWatching?.(), typeCheck?.close()])
    await stateWrites
    // Only our own pidfile: another svc may have taken the path since.
    const path = pidfile.path
    if (path !== null && pidfile.owns()) {
      removeStateFileSync(stateFilePath(path))
      pidfile.release()
    }
    if (message && code !== 0) fail(message)
    root.flush()
    process.exit(code)
  }
  /** Like nodemon after a crash: the terminal says what broke; the next save starts the tree again. */
  const waitForFix = async (): Promise<void> => {
    proc.serve({ close: () => exit(0), destroy: () => exit(1) })
    if (proc.stopRequested) return
    startAgain = () => {
      startAgain = null
      void launch()
    }
    await watch()
    // Said once the watcher sees every save (as the --reload line is).
    process.stderr.write(`svc: waiting for a change in ${appDir} to start again (Ctrl-C to stop)\n`)
  }
  /** What the watcher ignores and follows, as JSON: the app's own options may move the pidfile or the secrets file. */
  let watchedFor = ''
  /**
   * The reload watcher: it reloads a running tree, or starts one that is waiting for a fix. One
   * started while waiting knew only the settings without the app; it is replaced when the app's differ.
   */
  const watch = async (): Promise<void> => {
    if (!req.reload) return
    const scope = req.reload
    const settings = started?.settings ?? provisional
    const paths = { own: ownPaths(settings), loaded: loadedFiles(settings) }
    if (JSON.stringify(paths) === watchedFor) return
    await stopWatching?.()
    watchedFor = JSON.stringify(paths)
    // Loaded only for --reload: chokidar is not needed otherwise.
    const { watchForReload } = await import('./reload-watcher.js')
    stopWatching = await watchForReload(appDir, paths.own, paths.loaded, logger, () => {
      if (startAgain) {
        startAgain()
        return 'starting'
      }
      void supervisor.reload(scope)
      return 'reloading'
    })
  }
  const launch = async (): Promise<void> => {
    supervisor = newSupervisor()
    proc.serve(supervisor)
    await supervisor.start()
    if (supervisor.state !== 'running') return
    // The pidfile and state file exist before the line a script waits for (then runs `svc shutdown`).
    await stateWrites
    const { settings, bound, sidecar } = started!
    if (req.mode === 'workbench') process.stderr.write(workbenchBanner(settings, bound.host, bound.port))
    process.stderr.write(listeningLine(settings, bound.host, bound.port, sidecar.url))
    if (req.reload) {
      await watch()
      process.stderr.write(
        req.reload === 'gateway'
          ? 'svc: --reload (scope gateway): gateway workers are replaced on change with zero downtime; the bundled page server reloads its pages with them.\n'
          : 'svc: --reload (scope full): the sidecar restarts on a new port and gateway workers are replaced on change.\n',
      )
    }
  }
  await launch()
  // Off the serving path: its own process, at a lower priority, started once the tree serves.
  const s = started?.settings ?? provisional
  if (req.mode === 'dev' && s.dev_type_check) {
    typeCheck = (await import('./type-check/type-checker.js')).startTypeCheck({ appDir, cwd: process.cwd(), logger: childLogger(root, 'svc.typecheck'), pretty: s.log_format === 'pretty' })
    typeCheck?.showIn(latest?.sidecar ?? null)
  }
  return new Promise<number>(() => {})
}

/** How often a running supervisor checks that its pidfile and state file still exist. */
const PIDFILE_CHECK_MS = 2_000

/** Start failures a save can mend (the app's code, options or pages); not a busy port or another app's pidfile. */
function waitsForFix(code: string): boolean {
  return !/^SVC_ERR_(PIDFILE_|PROCESS_(PORT_IN_USE|HOST_UNRESOLVABLE|START_CANCELLED)$)/.test(code)
}

