import { resolve as resolvePath, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isSvcError } from '../src/errors.js'
import { configFileLayer, envLayer, flagsLayer, resolveSettings } from '../src/settings/resolve.js'
import type { SettingKey } from '../src/settings/schema.js'
import { createRootLogger, childLogger } from '../src/logging/logger.js'
import { loadTarget } from '../src/target/load-target.js'
import { writePidfile, removePidfileSync, readPidfileSync } from '../state/pidfile.js'
import { stateFilePath, writeStateFile, removeStateFileSync } from '../state/state-file.js'
import { readCmdline } from '../state/process-check.js'
import { bindPublicPort, freeLoopbackPort, internalApiBase } from './bind.js'
import { Supervisor, type ReloadScope } from './supervisor.js'
import type { SidecarSpec } from './sidecar.js'
import { settingsToEnv } from './settings-env.js'
import { debugLine, listeningLine, workbenchBanner } from './banner.js'
import { watchForReload } from './reload-watcher.js'

/** What `svc run|dev|workbench` asks of the supervisor. */
export interface ServeRequest {
  mode: 'run' | 'dev' | 'workbench'
  flags: Partial<Record<SettingKey, { flag: string; value: unknown }>>
  reload: ReloadScope | null
}

/** The bundled page server (src/ui/server/main.ts), next to this file in dist/. */
export const BUNDLED_SIDECAR = fileURLToPath(new URL('../src/ui/server/main.js', import.meta.url))

const EXIT_USAGE = 2
const EXIT_FAILURE = 1

function fail(message: string): void {
  process.stderr.write(`svc: error: ${message}\n`)
}

/**
 * The supervisor's main: validate settings (flags named in errors), load the app once, bind the
 * public port, start the actor, wire signals. Resolves with the exit code only for errors found
 * before any child started; afterwards the actor ends the process.
 */
export async function serve(req: ServeRequest): Promise<number> {
  try {
    resolveSettings([configFileLayer(), envLayer(), flagsLayer(req.flags)])
  } catch (err) {
    if (isSvcError(err)) {
      fail(err.message)
      return EXIT_USAGE
    }
    throw err
  }
  // Children and the app itself see flags as SVC_* env (CLI > env > config > options).
  const flagValues: Partial<Record<SettingKey, unknown>> = {}
  for (const [k, f] of Object.entries(req.flags)) if (f) flagValues[k as SettingKey] = f.value
  Object.assign(process.env, settingsToEnv(flagValues))

  let app
  try {
    const target = process.env.SVC_APP ?? resolveSettings([configFileLayer(), envLayer()]).target
    ;({ app } = await loadTarget(target))
  } catch (err) {
    if (isSvcError(err)) {
      fail(err.message)
      return EXIT_USAGE
    }
    throw err
  }
  const settings = app.settings
  const root = createRootLogger(settings)
  const logger = childLogger(root, 'svc.supervisor')

  let bound
  try {
    bound = await bindPublicPort(settings.gateway_host, settings.gateway_port)
  } catch (err) {
    fail((err as Error).message)
    return EXIT_FAILURE
  }
  const apiBase = internalApiBase(settings.gateway_host, bound.port, settings.api_mount_path)
  if (settings.debug) process.stderr.write(debugLine(settings, apiBase))

  const pidfile = settings.no_pidfile ? null : resolvePath(settings.pidfile)
  const baseEnv: NodeJS.ProcessEnv = {
    ...process.env,
    SVC_APP: settings.target,
    SVC_INTERNAL_API_BASE: apiBase,
    SVC_GATEWAY_PORT: String(bound.port),
  }
  const sidecarSpec = async (): Promise<SidecarSpec> => {
    const port = await freeLoopbackPort()
    const upstream = `http://127.0.0.1:${port}`
    const env: NodeJS.ProcessEnv = { ...baseEnv, SVC_UI_UPSTREAM: upstream, SVC_UI_PORT: String(port), SVC_UI_HOST: '127.0.0.1', SVC_ROOT_PATH: settings.root_path }
    if (settings.ui_command) {
      const fill = (s: string): string =>
        s.replaceAll('{port}', String(port)).replaceAll('{host}', '127.0.0.1').replaceAll('{base_path}', settings.root_path)
      return { kind: 'command', script: '', argv: settings.ui_command.map(fill), env, port, healthUrl: upstream + fill(settings.ui_health_path ?? '/') }
    }
    if (req.reload) env.SVC_DEV_RELOAD = '1'
    return { kind: 'bundled', script: BUNDLED_SIDECAR, argv: [], env, port, healthUrl: `${upstream}${settings.root_path}/_stcore/health` }
  }

  const startedAt = new Date().toISOString()
  const cmdline = readCmdline(process.pid) ?? undefined
  let announced = false
  let stateWrites = Promise.resolve()
  const supervisor = new Supervisor({
    settings,
    logger,
    listenHandle: bound.handle,
    sidecarSpec,
    workerEnv: (uiUpstream) => ({ ...baseEnv, SVC_UI_UPSTREAM: uiUpstream }),
    onTopology: ({ sidecar, workers }) => {
      if (!announced) {
        announced = true
        if (req.mode === 'workbench') process.stderr.write(workbenchBanner(settings, bound.host, bound.port))
        process.stderr.write(listeningLine(settings, bound.host, bound.port, sidecar.url))
      }
      if (!pidfile) return
      // Chained, so a later topology can never be overwritten by an earlier write.
      stateWrites = stateWrites.then(async () => {
        await writePidfile(pidfile)
        await writeStateFile(stateFilePath(pidfile), {
          version: 1,
          supervisor_pid: process.pid,
          ui_upstream: sidecar.url,
          gateway_host: bound.host,
          gateway_port: bound.port,
          workers: workers.map((w) => ({ pid: w.pid, started_at: w.startedAt.toISOString() })),
          sidecar_pid: sidecar.pid,
          started_at: startedAt,
          target: settings.target,
          ...(cmdline ? { cmdline } : {}),
        })
      }).catch((err: Error) => logger.warn({ err }, `cannot write ${pidfile} or its state file`))
    },
    onExit: (code, message) => {
      // Only our own pidfile: another svc may have taken the path since.
      if (pidfile && ownsPidfile(pidfile)) {
        removePidfileSync(pidfile)
        removeStateFileSync(stateFilePath(pidfile))
      }
      if (message && code !== 0) process.stderr.write(`svc: ${message}\n`)
      root.flush()
      process.exit(code)
    },
  })

  let interrupts = 0
  process.on('SIGINT', () => {
    interrupts++
    if (interrupts === 1) {
      process.stderr.write('svc: stopping (Ctrl-C again to force)\n')
      void supervisor.shutdown()
    } else {
      void supervisor.forceStop()
    }
  })
  process.on('SIGTERM', () => void supervisor.shutdown())
  process.on('SIGHUP', () => void supervisor.shutdown())

  await supervisor.start()
  if (req.reload && supervisor.state === 'running') {
    const scope = req.reload
    await watchForReload(dirname(resolvePath(targetFile(settings.target))), logger, () => void supervisor.reload(scope))
    process.stderr.write(
      scope === 'gateway'
        ? 'svc: --reload (scope gateway): gateway workers are replaced on change with zero downtime; the bundled sidecar reloads pages itself.\n'
        : 'svc: --reload (scope full): the sidecar restarts on a new port and gateway workers are replaced on change.\n',
    )
  }
  return new Promise<number>(() => {})
}

function targetFile(target: string): string {
  const i = target.lastIndexOf(':')
  return i > 1 ? target.slice(0, i) : target
}

function ownsPidfile(path: string): boolean {
  const read = readPidfileSync(path)
  return read.kind === 'ok' && read.pid === process.pid
}
