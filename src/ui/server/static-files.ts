import { existsSync, readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join, resolve as resolvePath, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SvcError } from '../../errors.js'

/** The browser bundle: `dist/client/` of the svc package (built by `scripts/build-client.mjs`). */

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
}

/** The svc package root, found from this module whether it runs from `dist/` or from source. */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from)
  for (;;) {
    const pkg = join(dir, 'package.json')
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'svc') return dir
      } catch {
        // not ours; keep walking up
      }
    }
    const up = dirname(dir)
    if (up === dir) throw new SvcError('SVC_ERR_UI_SIDECAR_START', `cannot find the svc package root above ${from}`)
    dir = up
  }
}

export function clientDir(): string {
  return join(packageRoot(), 'dist', 'client')
}

export interface StaticFile {
  body: Buffer
  type: string
  cacheControl: string
}

/** Files under `chunks/` have content-hashed names (a new build means a new name): cache them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable'

/** Read `name` from the client dir; undefined when missing or outside it. */
export async function readStatic(dir: string, name: string): Promise<StaticFile | undefined> {
  const file = resolvePath(dir, name)
  if (!file.startsWith(dir + sep)) return undefined
  const ext = file.slice(file.lastIndexOf('.'))
  try {
    const cacheControl = file.startsWith(join(dir, 'chunks') + sep) ? IMMUTABLE : 'no-cache'
    return { body: await readFile(file), type: TYPES[ext] ?? 'application/octet-stream', cacheControl }
  } catch {
    return undefined
  }
}
