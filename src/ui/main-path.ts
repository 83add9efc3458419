import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { packageRoot } from '../internal/package-root.js'

/** Absolute path of the bundled sidecar entry (`dist/src/ui/server/main.js`). */
export function uiMainPath(): string {
  const here = dirname(fileURLToPath(import.meta.url))
  // Built: this file is dist/src/ui/main-path.js, next to server/main.js. From source (tsx), point at the build.
  return here.endsWith(join('dist', 'src', 'ui')) ? join(here, 'server', 'main.js') : join(packageRoot(), 'dist', 'src', 'ui', 'server', 'main.js')
}
