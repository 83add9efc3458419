import { readFile } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import { componentFileType, folderComponent } from '../components.js'

/**
 * `GET {base}/_stcore/component/<name>/<version>/<file>`: the files of a folder component
 * (`declareComponent(name, { path })`). Only files found in the folder when it was hashed are
 * served; the version in the path is that hash, so answers are immutable. A component's HTML is
 * sandboxed by its own CSP header too (a document opened outside its iframe gets an opaque
 * origin as well), and every file allows any origin: the sandboxed iframe's module scripts are
 * CORS requests from origin "null".
 */
export async function serveComponentFile(req: IncomingMessage, res: ServerResponse, rest: string, logger: Logger): Promise<void> {
  const notFound = (why: string): void => {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(`${why}\n`)
  }
  let parts: string[]
  try {
    parts = rest.split('/').map(decodeURIComponent)
  } catch {
    res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('bad path encoding\n')
    return
  }
  const [name = '', version = '', ...file] = parts
  const component = folderComponent(name)
  if (!component) return notFound(`no component named ${JSON.stringify(name)} is declared`)
  let current: string
  try {
    current = component.version
  } catch (err) {
    logger.warn({ component: name, reason: (err as Error).message }, 'ui component folder unavailable')
    return notFound(`component ${JSON.stringify(name)} is unavailable: its folder cannot be read`)
  }
  if (version !== current) return notFound(`component ${JSON.stringify(name)} has another version now; reload the page`)
  const path = component.file(file.join('/'))
  if (!path) return notFound(`component ${JSON.stringify(name)} has no file ${JSON.stringify(file.join('/'))}`)
  const body = await readFile(path)
  const type = componentFileType(path)
  const headers: Record<string, string | number> = {
    'content-type': type,
    'content-length': body.byteLength,
    'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
    'access-control-allow-origin': '*',
  }
  if (type.startsWith('text/html')) {
    headers['content-security-policy'] = `sandbox allow-scripts${component.sameOrigin ? ' allow-same-origin' : ''}; frame-ancestors 'self'`
  }
  res.writeHead(200, headers)
  res.end(req.method === 'HEAD' ? undefined : body)
}
