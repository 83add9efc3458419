import { resolve as resolvePath } from 'node:path'
import { configFileLayer, envLayer, flagsLayer, resolveSettings } from '../../settings/resolve.js'
import type { ResolvedSettings } from '../../settings/schema.js'
import { resolvePidfilePath } from '../shutdown/pidfile-path.js'
import { CHECKS } from './check-order.js'
import { importTarget, loadTargetForDoctor, type TargetLoader } from './import-target.js'
import { summarize, type DoctorReport } from './report.js'
import { fail, type CheckRow, type DoctorContext } from './types.js'
import { nodeVersion } from './runtime-checks.js'
import { runningTree, runningTreeRow } from './running-tree.js'

export interface DoctorOptions {
  /** Positional TARGET; else the `target` setting (SVC_APP, svc.config.json), else `app:app`. */
  target?: string | undefined
  pidfile?: string | undefined
  /** `--port` and `--workers`, as on `svc run`: the rows judge a start with them. */
  port?: string | undefined
  workers?: string | undefined
  strict?: boolean
  warningsOnly?: boolean
  env?: NodeJS.ProcessEnv
  cwd?: string
  loadTarget?: TargetLoader
  importModule?: (specifier: string) => Promise<unknown>
}

type Flags = Parameters<typeof flagsLayer>[0]

function baseSettings(env: NodeJS.ProcessEnv, cwd: string, flags: Flags): { settings: ResolvedSettings | null; row: CheckRow | null } {
  try {
    return { settings: resolveSettings([configFileLayer(cwd), envLayer(env), flagsLayer(flags)]), row: null }
  } catch (err) {
    return { settings: null, row: fail('settings', (err as Error).message.replace(/\n\s*/g, ' ')) }
  }
}

/** The import failed for the settings error the settings row already shows (the app reads the same svc.config.json and env). */
function sameFailure(settings: CheckRow | null, imported: CheckRow): boolean {
  return settings !== null && imported.status === 'FAIL' && imported.detail === settings.detail
}

/** Run every check in order and build the report; never throws for a user or environment problem. */
export async function runDoctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  const env = options.env ?? process.env
  const cwd = options.cwd ?? process.cwd()
  const warningsOnly = options.warningsOnly ?? false
  const checks: CheckRow[] = []
  const add = (rows: CheckRow | CheckRow[] | null): void => {
    if (rows !== null) checks.push(...(Array.isArray(rows) ? rows : [rows]))
  }

  const flags: Flags = {
    ...(options.target === undefined ? {} : { target: { flag: 'TARGET', value: options.target } }),
    ...(options.port === undefined ? {} : { gateway_port: { flag: '--port', value: options.port } }),
    ...(options.workers === undefined ? {} : { workers: { flag: '--workers', value: options.workers } }),
  }
  const base = baseSettings(env, cwd, flags)
  const target = options.target ?? base.settings?.target ?? env.SVC_APP ?? 'app:app'
  const imported = await importTarget(target, cwd, options.loadTarget ?? loadTargetForDoctor)
  const appSettings = imported.settings ?? base.settings
  const pidfile =
    options.pidfile !== undefined || appSettings === null ? resolvePidfilePath(options.pidfile, env, cwd) : resolvePath(cwd, appSettings.pidfile)
  // A running tree is judged as it runs (its port, its workers); flags still win, as on `svc run`.
  const tree = await runningTree(pidfile)
  const flagged = [...(options.port === undefined ? [] : ['--port']), ...(options.workers === undefined ? [] : ['--workers'])]
  // Settings that do not resolve (a bad flag the app never sees included) judge nothing: the rows
  // that need them are skipped rather than run on the app's or the defaults.
  const settings: ResolvedSettings | null =
    appSettings && base.settings
      ? Object.freeze({
          ...appSettings,
          gateway_host: tree?.host ?? appSettings.gateway_host,
          gateway_port: options.port !== undefined ? base.settings.gateway_port : (tree?.port ?? appSettings.gateway_port),
          workers: options.workers !== undefined ? base.settings.workers : (tree?.workers ?? appSettings.workers),
        })
      : null
  const ctx: DoctorContext = {
    env,
    cwd,
    strict: options.strict ?? false,
    target,
    settings,
    pidfile,
    running: tree,
    secrets: imported.secrets,
    importModule: options.importModule ?? ((specifier) => import(specifier)),
  }

  add(await nodeVersion(ctx))
  add(base.row)
  add(sameFailure(base.row, imported.row) ? fail('import_target', 'the app cannot load with the settings reported above; fix those first') : imported.row)
  add(runningTreeRow(tree, pidfile, flagged, settings !== null))
  for (const check of CHECKS) add(await check(ctx))
  return { status: summarize(checks, warningsOnly), target, warnings_only: warningsOnly, checks }
}
