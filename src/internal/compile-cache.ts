import module from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

/** `node:module` compile-cache API (Node >= 22.1); absent on Node 20, whose types this project builds with. */
interface CompileCacheApi {
  enableCompileCache?: (dir?: string) => { status: number; directory?: string }
  getCompileCacheDir?: () => string | undefined
}

const api = module as unknown as CompileCacheApi

/** The folder Node would pick itself: `NODE_COMPILE_CACHE`, else `<os tmpdir>/node-compile-cache`. */
function cacheFolder(): string {
  const fromEnv = process.env.NODE_COMPILE_CACHE
  return fromEnv ? resolve(fromEnv) : join(tmpdir(), 'node-compile-cache')
}

/**
 * Turn on V8's on-disk compile cache for the modules this process loads from now on, so the next
 * start skips parsing and compiling them. `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Returns
 * the folder, or undefined where Node has no compile cache (20) or it is off.
 */
export function enableCompileCache(): string | undefined {
  if (!api.enableCompileCache) return undefined
  const folder = cacheFolder()
  return api.enableCompileCache(folder).directory ? folder : undefined
}

/**
 * The cache folder in use, for children (as `NODE_COMPILE_CACHE`) and for the reload watcher to
 * ignore. Node keeps each version's entries in a sub-folder of it, which is what
 * `getCompileCacheDir()` names: handing that on would nest a new sub-folder per child.
 */
export function compileCacheDir(): string | undefined {
  return api.getCompileCacheDir?.() ? cacheFolder() : undefined
}
