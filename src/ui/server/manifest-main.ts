import { isSvcError } from '../../errors.js'
import { markPagesOnly } from '../../internal/process-role.js'
import { loadTarget } from '../../target/load-target.js'
import { declaredComponents } from '../components.js'
import { PageDirectory } from '../runtime/page-directory.js'
import type { ManifestReport } from './manifest.js'
import type { PageServerApp } from '../page-app.js'

// A short-lived child of the page server: load the app once, report what the page server's main
// thread needs to know of it (manifest.ts) and exit. A process, not a thread, so that everything
// the app load allocated goes back to the system with it.
process.title = 'svc page manifest'
const send = (report: ManifestReport): Promise<void> => new Promise((resolve) => process.send!(report, () => resolve()))
process.on('disconnect', () => process.exit(0))
const { target, cwd, appFile } = JSON.parse(process.argv[2] ?? '{}') as { target: string; cwd: string; appFile: string | null }
try {
  markPagesOnly()
  const { app, file, exportName }: { app: PageServerApp; file: string; exportName: string } = await loadTarget(target, cwd)
  await send({ t: 'ready', manifest: { settings: app.settings, pages: new PageDirectory(app.pages).keys(), file, exportName, components: declaredComponents() } })
  process.exit(0)
} catch (err) {
  // A reload (the file is known) reports the failure as the browser's dev overlay shows it.
  // loadTarget wraps what the import threw in its one-line SvcError; the overlay reads the original.
  const cause = isSvcError(err) && err.code === 'SVC_ERR_TARGET_IMPORT_FAILED' ? (err.cause ?? err) : err
  const devError = appFile === null ? null : (await import('./dev-load-error.js')).devLoadError(appFile, cause, cwd)
  await send({ t: 'fatal', code: isSvcError(err) ? err.code : null, message: (err as Error)?.message ?? String(err), devError })
  process.exit(1)
}
