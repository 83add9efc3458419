import { fork } from 'node:child_process'
import { SvcError, type SvcErrorCode } from '../../errors.js'
import { z } from '../../internal/zod.js'
import type { ResolvedSettings } from '../../settings/schema.js'
import type { DevLoadError } from '../protocol.js'
import type { PageManifest } from './page-thread-messages.js'

/** What `manifest-main.ts` reports over IPC. */
export type ManifestReport = { t: 'ready'; manifest: PageManifest } | { t: 'fatal'; code: string | null; message: string; devError: DevLoadError | null }

const ManifestReportSchema = z.discriminatedUnion('t', [
  z.object({
    t: z.literal('ready'),
    manifest: z.object({
      // Resolved and validated by the app's own `new Svc()` in the child.
      settings: z.custom<ResolvedSettings>((v) => typeof v === 'object' && v !== null),
      pages: z.array(z.object({ path: z.string(), slug: z.string(), title: z.string() })),
      file: z.string(),
      exportName: z.string(),
      components: z.object({
        folders: z.array(z.object({ name: z.string(), folder: z.string(), entry: z.string(), sameOrigin: z.boolean() })),
        frameOrigins: z.array(z.string()),
      }),
    }),
  }),
  z.object({
    t: z.literal('fatal'),
    code: z.string().nullable(),
    message: z.string(),
    // Built by dev-load-error.ts in the child.
    devError: z.custom<DevLoadError>((v) => typeof v === 'object' && v !== null).nullable(),
  }),
])

/**
 * Load the app in a short-lived child process and return its manifest: the page server's main
 * thread never imports the app (page threads do), and a child gives all the memory of the load
 * back when it exits, where a thread would leave its allocations in this process. Rejects with
 * the load error (`SvcError`, the code the child saw).
 */
export async function loadManifest(data: { target: string; cwd: string }): Promise<PageManifest> {
  const report = await manifestReport({ ...data, appFile: null })
  if (report.t === 'ready') return report.manifest
  throw new SvcError((report.code as SvcErrorCode | null) ?? 'SVC_ERR_UI_SIDECAR_START', report.message)
}

/** The same for a dev reload with no page thread running: the manifest, or why the app did not load. */
export async function reloadManifest(data: { target: string; cwd: string; appFile: string }): Promise<{ manifest: PageManifest } | { failed: DevLoadError }> {
  const report = await manifestReport(data)
  if (report.t === 'ready') return { manifest: report.manifest }
  return { failed: report.devError ?? unexplainedLoadError(new Error(report.message)) }
}

/** A load failure that came without its place (a thread or child that could not say): its message. */
export function unexplainedLoadError(err: Error): DevLoadError {
  const fix = 'fix the app and save again'
  return { summary: `${err.message}; ${fix}`, cause: err.message, fix, file: null, line: null, column: null, frame: [] }
}

function manifestReport(data: { target: string; cwd: string; appFile: string | null }): Promise<ManifestReport> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./manifest-main.js', import.meta.url), [JSON.stringify(data)], {
      cwd: data.cwd,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    let report: ManifestReport | null = null
    child.on('message', (raw) => {
      const parsed = ManifestReportSchema.safeParse(raw)
      report = parsed.success ? (parsed.data as ManifestReport) : { t: 'fatal', code: null, message: 'the app manifest child sent a malformed report (a bug)', devError: null }
    })
    child.on('error', (err) => reject(new SvcError('SVC_ERR_UI_SIDECAR_START', `cannot start the app manifest child: ${err.message}`, { cause: err })))
    child.on('exit', (code, signal) => {
      resolve(report ?? { t: 'fatal', code: null, message: `the app manifest child exited (${signal ?? `code ${code}`}) without a report`, devError: null })
    })
  })
}
