import { createHash } from 'node:crypto'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import { packageRoot } from '../../internal/package-root.js'
import { readClientManifest, MANIFEST_FILE, type ClientManifest } from './client-manifest.js'

/**
 * The files the browser loads besides the HTML: the client bundle (`dist/client/` of the svc
 * package, built by `scripts/build-client.mjs`) and the app's theme stylesheet. Both the page
 * server and the gateway workers serve them (the workers without a hop to the page server), from
 * the same table: a name is served only if the build's manifest lists it, so no request path can
 * reach any other file.
 */

export type Encoding = 'br' | 'gzip'

/** One stored body of a file: on disk (streamed per request) or in memory (the theme). */
export type Body = { readonly path: string; readonly size: number } | { readonly bytes: Buffer; readonly size: number }

export interface StaticFile {
  readonly type: string
  readonly cacheControl: string
  /** Strong validator of the plain body, unquoted; an encoded body's ETag adds `.br` / `.gz`. */
  readonly etag: string
  readonly identity: Body
  readonly br: Body | null
  readonly gzip: Body | null
  /** The encodings stored, best first (what Accept-Encoding is negotiated against). */
  readonly offered: readonly Encoding[]
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
}

/** Where the files are served, under the base path. */
export const STATIC_PREFIX = '/_stcore/static/'

/** Content-hashed names: a new build or theme means a new name, so a browser may keep them for good. */
export const IMMUTABLE = 'public, max-age=31536000, immutable'
/** Plain names (`app.js`, `/_stcore/theme.css`): kept, but revalidated with their ETag on every use. */
export const REVALIDATE = 'no-cache'

export function clientDir(): string {
  return join(packageRoot(), 'dist', 'client')
}

function typeOf(name: string): string {
  return TYPES[name.slice(name.lastIndexOf('.'))] ?? 'application/octet-stream'
}

/** How often a miss may re-read the manifest (a rebuild under `build-client.mjs --watch`). */
const RECHECK_MS = 1000

/**
 * The built client as a table of servable files: every file of the manifest under its hashed name
 * (immutable), and each entry under its plain name too (`app.js`: revalidated, for pages and
 * proxies that link it by that name). Built from the manifest alone: no file is read or hashed at
 * start (the hash in a name is the content's, so the name is the ETag).
 */
export class ClientAssets {
  readonly dir: string
  #manifest: ClientManifest
  #files: Map<string, StaticFile>
  #mtimeMs: number
  #checkedAt = 0

  constructor(dir: string) {
    this.dir = dir
    this.#manifest = readClientManifest(dir)
    this.#files = tableOf(dir, this.#manifest)
    this.#mtimeMs = manifestMtime(dir)
  }

  /** The file served as `name` (a path under the static prefix, decoded), or undefined. */
  get(name: string): StaticFile | undefined {
    return this.#files.get(name)
  }

  /** The hashed file of an entry's plain name (`app.js` → `app-3KQ….js`). */
  entry(name: string): string | undefined {
    return this.#manifest.entries[name]
  }

  /** CSS files of lazy chunks, by the chunk's source path under src/ui/client without extension. */
  get chunkStyles(): Readonly<Record<string, string>> {
    return this.#manifest.chunkStyles
  }

  /**
   * Re-read the manifest if it changed since it was read (at most once a second): a client rebuilt
   * while svc runs is picked up by the next page load. True when the table changed.
   */
  refresh(now: number = Date.now()): boolean {
    if (now - this.#checkedAt < RECHECK_MS) return false
    this.#checkedAt = now
    const mtime = manifestMtime(this.dir)
    if (mtime === this.#mtimeMs || mtime === 0) return false
    try {
      const manifest = readClientManifest(this.dir)
      this.#manifest = manifest
      this.#files = tableOf(this.dir, manifest)
      this.#mtimeMs = mtime
      return true
    } catch {
      // Half-written by a build in progress: the next check reads it again.
      return false
    }
  }
}

function manifestMtime(dir: string): number {
  try {
    return statSync(join(dir, MANIFEST_FILE)).mtimeMs
  } catch {
    return 0
  }
}

function tableOf(dir: string, manifest: ClientManifest): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>()
  for (const [name, sizes] of Object.entries(manifest.files)) {
    const path = join(dir, name)
    const br = sizes.br === null ? null : { path: `${path}.br`, size: sizes.br }
    const gzip = sizes.gzip === null ? null : { path: `${path}.gz`, size: sizes.gzip }
    files.set(name, {
      type: typeOf(name),
      cacheControl: IMMUTABLE,
      etag: name,
      identity: { path, size: sizes.bytes },
      br,
      gzip,
      offered: offeredOf(br, gzip),
    })
  }
  for (const [plain, hashed] of Object.entries(manifest.entries)) {
    const file = files.get(hashed)
    if (file !== undefined && !files.has(plain)) files.set(plain, { ...file, cacheControl: REVALIDATE })
  }
  return files
}

function offeredOf(br: Body | null, gzip: Body | null): Encoding[] {
  const offered: Encoding[] = []
  if (br !== null) offered.push('br')
  if (gzip !== null) offered.push('gzip')
  return offered
}

/** A stylesheet made at start (the app's theme): compressed once, here, and named by its content. */
export interface GeneratedStyle {
  /** `theme-vars-<hash>.css`, served under the static prefix as immutable. */
  readonly name: string
  readonly file: StaticFile
  /** Empty CSS: the shell links nothing. */
  readonly empty: boolean
}

export function generatedStyle(prefix: string, css: string): GeneratedStyle {
  const bytes = Buffer.from(css)
  const hash = createHash('sha256').update(bytes).digest('base64url').slice(0, 12)
  const name = `${prefix}-${hash}.css`
  const br = brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } })
  const gz = gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION })
  const brBody = br.byteLength < bytes.byteLength ? { bytes: br, size: br.byteLength } : null
  const gzBody = gz.byteLength < bytes.byteLength ? { bytes: gz, size: gz.byteLength } : null
  return {
    name,
    empty: css.trim() === '',
    file: {
      type: TYPES['.css']!,
      cacheControl: IMMUTABLE,
      etag: name,
      identity: { bytes, size: bytes.byteLength },
      br: brBody,
      gzip: gzBody,
      offered: offeredOf(brBody, gzBody),
    },
  }
}

/** The app's `theme` setting as a stylesheet (a file, not an inline style, so the page CSP needs no 'unsafe-inline'). */
export const THEME_STYLE_PREFIX = 'theme-vars'
