import { loadTarget } from '../../target/load-target.js'
import type { ResolvedSettings } from '../../settings/schema.js'
import { kSecretsReport, type SecretsReport } from '../../secrets/secrets.js'
import { fail, pass, type CheckRow } from './types.js'

export interface LoadedTarget {
  settings: ResolvedSettings
  file: string
  exportName: string
  secrets?: SecretsReport
}

export type TargetLoader = (target: string, cwd: string) => Promise<LoadedTarget>

export const loadTargetForDoctor: TargetLoader = async (target, cwd) => {
  const { app, file, exportName } = await loadTarget(target, cwd)
  return { settings: app.settings, file, exportName, secrets: app[kSecretsReport] }
}

/** Import the app the way `svc run` would; the row, plus the app's settings when it loaded. */
export async function importTarget(
  target: string,
  cwd: string,
  load: TargetLoader,
): Promise<{ row: CheckRow; settings: ResolvedSettings | null; secrets: SecretsReport | null }> {
  try {
    const loaded = await load(target, cwd)
    return { row: pass('import_target', `${target} (${loaded.file}, export "${loaded.exportName}")`), settings: loaded.settings, secrets: loaded.secrets ?? null }
  } catch (err) {
    // First line only: the stack of a failed import is noise in a checklist. A settings error
    // is the exception: its first line is only "invalid settings:", the bad values follow.
    const text = (err as Error).message
    const message = (err as { code?: unknown }).code === 'SVC_ERR_CONFIG_INVALID' ? text.replace(/\n\s*/g, ' ') : (text.split('\n')[0] ?? String(err))
    // Invalid secrets fail the import, but their report still says which ones (the secret rows).
    const secrets = (err as Record<symbol, SecretsReport | undefined> | null)?.[kSecretsReport] ?? null
    return { row: fail('import_target', message), settings: null, secrets }
  }
}
