import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from '../../internal/zod.js'
import { SvcError } from '../../errors.js'

/**
 * `dist/client/manifest.json`, written by `scripts/build-client.mjs`: the plain names of the
 * entries (`app.js`, `app.css`, `theme.js`) mapped to their content-hashed files, the CSS of lazy
 * chunks that import CSS, and every output file with its sizes (raw, and precompressed where a
 * `.br` / `.gz` beside it is smaller; null where it is not).
 */
const fileName = z.string().regex(/^(?:[\w.-]+\/)*[\w.-]+$/, 'a relative file name without dot segments').refine((f) => !f.split('/').includes('..'))

export const ClientManifestSchema = z.object({
  version: z.literal(1),
  entries: z.record(z.string(), fileName),
  chunkStyles: z.record(z.string(), fileName),
  files: z.record(
    fileName,
    z.object({
      bytes: z.number().int().min(0),
      br: z.number().int().min(0).nullable(),
      gzip: z.number().int().min(0).nullable(),
    }),
  ),
})
export type ClientManifest = z.infer<typeof ClientManifestSchema>

export const MANIFEST_FILE = 'manifest.json'

/** Read and check the manifest of a built client dir; a missing or bad one is SVC_ERR_UI_SIDECAR_START naming the fix. */
export function readClientManifest(dir: string): ClientManifest {
  const path = join(dir, MANIFEST_FILE)
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT'
    throw new SvcError(
      'SVC_ERR_UI_SIDECAR_START',
      `the browser client is not built: ${path} ${missing ? 'is missing' : `cannot be read (${(err as Error).message})`}; run "npm run build" in the svc package`,
      { cause: err },
    )
  }
  const parsed = ClientManifestSchema.safeParse(raw)
  if (!parsed.success) {
    throw new SvcError('SVC_ERR_UI_SIDECAR_START', `${path} is not a client manifest of this svc version (${parsed.error.issues[0]?.message}); run "npm run build" in the svc package`)
  }
  return parsed.data
}
