import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SvcError } from '../errors.js'

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
