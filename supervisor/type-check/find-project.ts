import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/** What `svc dev` type-checks with: the project's own TypeScript and tsconfig.json. */
export interface TypeCheckProject {
  /** The `typescript` module the project would load (its main file). */
  typescript: string
  tsconfig: string
}

/**
 * The project's own TypeScript and tsconfig.json, looked up from the app's folder as Node and
 * `tsc` find them (node_modules and tsconfig.json in that folder or above). Only file lookups:
 * nothing is loaded here, in the supervisor. `{ missing }` says what is not there.
 */
export function findTypeCheckProject(appDir: string): TypeCheckProject | { missing: string } {
  let typescript: string
  try {
    typescript = createRequire(join(appDir, 'app.js')).resolve('typescript')
  } catch {
    return { missing: `no typescript installed for ${appDir} (npm install --save-dev typescript)` }
  }
  const tsconfig = findUp(appDir, 'tsconfig.json')
  if (tsconfig === null) return { missing: `no tsconfig.json in ${appDir} or a folder above it` }
  return { typescript, tsconfig }
}

function findUp(dir: string, name: string): string | null {
  for (let d = dir; ; d = dirname(d)) {
    const candidate = join(d, name)
    if (existsSync(candidate)) return candidate
    if (dirname(d) === d) return null
  }
}
