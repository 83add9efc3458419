import type { AnySvc } from '../app.js'
import { loadTarget } from '../target/load-target.js'

/**
 * The app of `target` (`app.ts:app`, relative to `cwd`), loaded exactly as `svc run` loads it:
 * TypeScript, any package type, one svc module instance. For tests run by plain `node` (or
 * `node --test`) that have no TypeScript loader of their own.
 */
export async function loadApp(target: string, cwd: string = process.cwd()): Promise<AnySvc> {
  return (await loadTarget(target, cwd)).app
}
