import module from 'node:module'

/** `node:module` compile-cache API (Node >= 22.1); absent on Node 20, whose types this project builds with. */
interface CompileCacheApi {
  enableCompileCache?: () => { status: number; directory?: string }
  getCompileCacheDir?: () => string | undefined
}

const api = module as unknown as CompileCacheApi

/**
 * Turn on V8's on-disk compile cache for the modules this process loads from now on, so the next
 * start skips parsing and compiling them. Node picks the folder: `NODE_COMPILE_CACHE` if set,
 * else `<os tmpdir>/node-compile-cache`; `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Returns the
 * folder, or undefined where Node has no compile cache (20) or it is off.
 */
export function enableCompileCache(): string | undefined {
  if (!api.enableCompileCache) return undefined
  return api.enableCompileCache().directory ?? undefined
}

/** The folder in use (for children to share, and for the reload watcher to ignore). */
export function compileCacheDir(): string | undefined {
  return api.getCompileCacheDir?.() ?? undefined
}
