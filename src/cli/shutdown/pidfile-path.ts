import { resolve as resolvePath } from 'node:path'
import { FIELDS } from '../../settings/schema.js'
import { configFileLayer } from '../../settings/resolve.js'

/**
 * The pidfile path commands that do not start svc (`shutdown`, `doctor`) use, with the same
 * precedence as the supervisor: flag > `SVC_PIDFILE` > `svc.config.json` `pidfile` > `./.svc.pid`.
 * A broken config file is skipped here: stopping a server must not depend on it.
 */
export function resolvePidfilePath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  let chosen = flag ?? env.SVC_PIDFILE
  if (chosen === undefined || chosen === '') {
    let fromConfig: unknown
    try {
      fromConfig = configFileLayer(cwd).values.pidfile
    } catch {
      fromConfig = undefined
    }
    chosen = typeof fromConfig === 'string' && fromConfig !== '' ? fromConfig : FIELDS.pidfile.default
  }
  return resolvePath(cwd, chosen)
}
