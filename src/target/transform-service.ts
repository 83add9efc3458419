import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/**
 * esbuild (under tsx and the format hook) transforms the app's TypeScript through a long-lived
 * service process, started by the thread that first transforms. Only that thread can reap it: a
 * page thread that ends with its service still running (a reload or a shrink replaces threads)
 * leaves a zombie `esbuild` in the page server, one per thread. A page thread therefore stops the
 * service once its app is loaded, and so does a gateway worker (an idle service is a 12 MB process
 * for the worker's whole life); a later transform (a dynamic import) starts it again.
 */
export function stopTransformService(): void {
  // tsx's esbuild and ours: one module unless npm installed two copies. esbuild is CommonJS, so
  // require() returns the instance tsx's `import` got in this thread.
  const paths = new Set([require.resolve('esbuild'), createRequire(require.resolve('tsx/esm/api')).resolve('esbuild')])
  for (const path of paths) void (require(path) as typeof import('esbuild')).stop()
}
