import { fork } from 'node:child_process'
import { SvcError, type SvcErrorCode } from '../../errors.js'
import { z } from '../../internal/zod.js'
import type { ResolvedSettings } from '../../settings/schema.js'
import type { PageManifest } from './page-thread-messages.js'

/** What `manifest-main.ts` reports over IPC. */
export type ManifestReport = { t: 'ready'; manifest: PageManifest } | { t: 'fatal'; code: string | null; message: string }

const ManifestReportSchema = z.discriminatedUnion('t', [
  z.object({
    t: z.literal('ready'),
    manifest: z.object({
      // Resolved and validated by the app's own `new Svc()` in the child.
      settings: z.custom<ResolvedSettings>((v) => typeof v === 'object' && v !== null),
      pages: z.array(z.object({ path: z.string(), slug: z.string(), title: z.string() })),
      file: z.string(),
      exportName: z.string(),
    }),
  }),
  z.object({ t: z.literal('fatal'), code: z.string().nullable(), message: z.string() }),
])

/**
 * Load the app in a short-lived child process and return its manifest: the page server's main
 * thread never imports the app (page threads do), and a child gives all the memory of the load
 * back when it exits, where a thread would leave its allocations in this process. Rejects with
 * the load error (`SvcError`, the code the child saw).
 */
export function loadManifest(data: { target: string; cwd: string }): Promise<PageManifest> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL('./manifest-main.js', import.meta.url), [JSON.stringify(data)], {
      cwd: data.cwd,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    let report: ManifestReport | null = null
    child.on('message', (raw) => {
      const parsed = ManifestReportSchema.safeParse(raw)
      report = parsed.success ? (parsed.data as ManifestReport) : { t: 'fatal', code: null, message: 'the app manifest child sent a malformed report (a bug)' }
    })
    child.on('error', (err) => reject(new SvcError('SVC_ERR_UI_SIDECAR_START', `cannot start the app manifest child: ${err.message}`, { cause: err })))
    child.on('exit', (code, signal) => {
      const r = report as ManifestReport | null
      if (r?.t === 'ready') resolve(r.manifest)
      else if (r?.t === 'fatal') reject(new SvcError((r.code as SvcErrorCode | null) ?? 'SVC_ERR_UI_SIDECAR_START', r.message))
      else reject(new SvcError('SVC_ERR_UI_SIDECAR_START', `the app manifest child exited (${signal ?? `code ${code}`}) without a report`))
    })
  })
}
