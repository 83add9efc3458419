import module from 'node:module'
import { once } from 'node:events'
import { MessageChannel, type MessagePort } from 'node:worker_threads'
import { pathToFileURL } from 'node:url'
import { register } from 'tsx/esm/api'
import { resolveSync } from './app-format-hooks.js'
import { SvcError } from '../errors.js'
import type { Svc } from '../app.js'
import { isSvcApp } from '../internal/svc-brand.js'
import { describeImportFailure } from './import-failure.js'
import { stopTransformService } from './transform-service.js'
import { TRANSFORM_STOP_MS } from '../internal/deadlines.js'
import { parseTarget, resolveTargetFile } from './target-path.js'

export { parseTarget, resolveTargetFile, TARGET_EXTENSIONS } from './target-path.js'
export type { ParsedTarget } from './target-path.js'

const DEFAULT_EXPORTS = ['app', 'default'] as const
/** The name apps import svc by. */
const SVC_PACKAGE: string = 'svc'

let loaderReady: Promise<void> | null = null

/**
 * tsx for TypeScript, then our format hook (it runs first, LIFO): in-thread where Node has
 * `module.registerHooks` (as tsx does there), else off-thread through `module.register`.
 * Global (un-namespaced) registration keeps one module instance of svc for app and runtime.
 */
export function registerAppLoader(): Promise<void> {
  loaderReady ??= (async () => {
    // svc's runtime first, without hooks: the app's `import 'svc'` then finds it loaded, and only
    // the app's own files pass through tsx (on Node 20 each load through it is a round trip to
    // its hooks thread). By the package's name, as the app imports it (resolved through its
    // `exports`, a self-reference here): the very module the app gets, and no arrow from the
    // loader back up to the entry that re-exports what loads apps. A variable, so tsc does not
    // ask for the entry's types while it builds them.
    await import(SVC_PACKAGE)
    register()
    const { registerHooks } = module as unknown as { registerHooks?: (hooks: { resolve: typeof resolveSync }) => void }
    if (typeof registerHooks === 'function') registerHooks({ resolve: resolveSync })
    else {
      const { port1, port2 } = new MessageChannel()
      module.register(new URL('./app-format-hooks.js', import.meta.url), { data: { port: port2 }, transferList: [port2] })
      port1.unref()
      hooksPort = port1
    }
  })()
  return loaderReady
}

/** Where the hooks run off-thread (Node 20): the hooks thread, told over this port to stop esbuild. */
let hooksPort: MessagePort | null = null

/**
 * Stop esbuild's service process wherever this thread's app loader runs it (in this thread, and
 * in the hooks thread on Node 20), so a page thread that ends leaves no zombie (transform-service.ts).
 */
export async function stopAppTransforms(): Promise<void> {
  stopTransformService()
  if (hooksPort === null) return
  hooksPort.postMessage('stop')
  // An answer that does not come leaves the service running: a zombie later, never a stuck thread.
  await once(hooksPort, 'message', { signal: AbortSignal.timeout(TRANSFORM_STOP_MS) }).catch(() => undefined)
}

/** Load `module:export` and check that it is an `Svc`. TypeScript files load through tsx. */
export async function loadTarget(target: string, cwd: string = process.cwd()): Promise<{ app: Svc; file: string; exportName: string }> {
  const parsed = parseTarget(target)
  const file = resolveTargetFile(parsed.module, cwd)
  await registerAppLoader()
  let mod: Record<string, unknown>
  try {
    mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>
  } catch (err) {
    if (err instanceof SvcError) throw err
    // Node 20 also leaves a failed require(esm) as an unhandled rejection of its loader: it is
    // reported here, once, not a second time as a crash with a stack.
    if ((err as NodeJS.ErrnoException).code?.startsWith('ERR_REQUIRE_')) {
      process.on('unhandledRejection', (reason) => {
        if (reason !== err) throw reason
      })
    }
    throw new SvcError('SVC_ERR_TARGET_IMPORT_FAILED', describeImportFailure(file, err, cwd), { cause: err })
  }
  const names = parsed.exportName ? [parsed.exportName] : DEFAULT_EXPORTS
  const exportName = names.find((n) => n in mod && mod[n] !== undefined)
  if (exportName === undefined) {
    const found = Object.keys(mod).filter((k) => k !== '__esModule')
    throw new SvcError(
      'SVC_ERR_TARGET_EXPORT_MISSING',
      `${file} has no export ${names.map((n) => `"${n}"`).join(' or ')} (found: ${found.join(', ') || 'none'}); write the target as "${parsed.module}:<export>"`,
    )
  }
  const value = mod[exportName]
  // The brand, not the Svc class: whether the app module is imported before or after the process
  // says it runs pages only (src/internal/process-role.ts) is the caller's choice, so nothing here loads src/app.ts.
  if (!isSvcApp(value)) {
    const kind = value === null ? 'null' : typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value
    throw new SvcError(
      'SVC_ERR_TARGET_NOT_SVC',
      `${file} export "${exportName}" is a ${kind}, not an Svc app; export one with "export const ${exportName} = new Svc({ ... })"`,
    )
  }
  return { app: value as Svc, file, exportName }
}
