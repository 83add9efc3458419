import { pathToFileURL } from 'node:url'
import { isSvcApp } from '../../internal/svc-brand.js'
import { pageSideOf, type PageApp, type SvcApp } from '../page-app.js'
import type { DevLoadError } from '../wire/protocol.js'
import { devLoadError, exportLostError } from './dev-load-error.js'

/**
 * Import the app module again through a fresh tsx namespace (the module and its local imports
 * are evaluated again), for `ui_page_threads: 0`, where the app runs in the page server's own
 * thread: the app, or why it did not load. Each import adds a module graph this isolate never
 * frees; with page threads, threads are replaced instead (page-thread-pool.ts).
 */
export async function loadAppModule(file: string, exportName: string): Promise<{ app: PageApp } | { error: DevLoadError }> {
  const { tsImport } = await import('tsx/esm/api')
  let mod: Record<string, unknown>
  try {
    mod = (await tsImport(pathToFileURL(file).href, { parentURL: import.meta.url })) as Record<string, unknown>
  } catch (err) {
    return { error: devLoadError(file, err) }
  }
  const app = mod[exportName]
  return isSvcApp(app) ? { app: pageSideOf(app as SvcApp) } : { error: exportLostError(file, exportName) }
}
