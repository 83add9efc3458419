import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import type { ResolvedSettings } from '../src/settings/schema.js'
import { themeCss } from '../src/settings/theme.js'
import { sendStatic } from '../src/ui/server/send-static.js'
import { ClientAssets, clientDir, generatedStyle, STATIC_PREFIX, THEME_STYLE_PREFIX } from '../src/ui/server/static-files.js'

/**
 * Serves `{root_path}/_stcore/static/<file>` in the gateway worker itself when the sidecar is the
 * bundled page server: those files are fixed at build time (and the theme stylesheet follows from
 * the app's settings, which the worker has loaded too), so they need no proxy hop. The same table,
 * headers and encodings as the page server's own (src/ui/server/static-files.ts): only names the
 * build's manifest lists are served, so no path reaches another file. A name it does not know
 * (a newer build, a theme changed by a reload) goes on to the page server. True when answered.
 */
export type StaticRoute = (req: IncomingMessage, res: ServerResponse, uiPath: string, requestId: string) => boolean

export function createStaticRoute(settings: Pick<ResolvedSettings, 'ui_command' | 'root_path' | 'theme'>, logger: Logger): StaticRoute | null {
  // A ui_command sidecar serves its own files, whatever they are.
  if (settings.ui_command !== null) return null
  let assets: ClientAssets
  try {
    assets = new ClientAssets(clientDir())
  } catch (err) {
    // The page server reports a missing client at its start; the worker then just proxies.
    logger.debug({ err }, 'gateway static files off: no built client')
    return null
  }
  const prefix = settings.root_path + STATIC_PREFIX
  const theme = generatedStyle(THEME_STYLE_PREFIX, themeCss(settings.theme))
  return (req, res, uiPath, requestId) => {
    if (!uiPath.startsWith(prefix)) return false
    let name: string
    try {
      name = decodeURIComponent(uiPath.slice(prefix.length))
    } catch {
      return false
    }
    const file = assets.get(name) ?? (name === theme.name ? theme.file : undefined)
    if (file === undefined) return false
    res.setHeader('x-request-id', requestId)
    sendStatic(req, res, file)
    return true
  }
}
