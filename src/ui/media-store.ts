import { createHash } from 'node:crypto'
import { mediaHeaders, mimeEssence } from './media-headers.js'

/**
 * Bytes pages show or offer for download (images, downloadButton data), served at
 * `{base}/_stcore/media/<sha256>.<ext>`. Content-addressed, so the same bytes in every rerun are
 * one entry and one browser cache entry; the hash also makes URLs unguessable without the
 * content. Bounded: least recently used entries go once the total passes `maxBytes`. The
 * response headers of an entry are built when it is stored (media-headers.ts), so serving it
 * cannot fail on them.
 */

export const MEDIA_PREFIX = '/_stcore/media/'
export const DEFAULT_MEDIA_MAX_BYTES = 256 * 1024 * 1024 // 256 MiB across all sessions

const EXT: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'text/csv': 'csv',
  'text/plain': 'txt',
  'application/json': 'json',
  'application/pdf': 'pdf',
  'audio/wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/webm': 'weba',
  'audio/flac': 'flac',
  'video/mp4': 'mp4',
  'video/webm': 'webm',
  'video/ogg': 'ogv',
}

const TYPE_OF_EXTENSION: Readonly<Record<string, string>> = Object.fromEntries([...Object.entries(EXT).map(([type, ext]): [string, string] => [ext, type]), ['jpeg', 'image/jpeg']])

/** The MIME type of a file name's extension (`report.CSV` → `text/csv`), for the types above; undefined otherwise. */
export function typeOfExtension(name: string): string | undefined {
  const dot = name.lastIndexOf('.')
  return dot < 0 ? undefined : TYPE_OF_EXTENSION[name.slice(dot + 1).toLowerCase()]
}

export interface MediaEntry {
  readonly bytes: Uint8Array
  /** Content type, disposition and the security headers it is served with (from its MIME type and file name). */
  readonly headers: Readonly<Record<string, string>>
}

/** A best guess from magic numbers, for images passed as bare bytes. */
export function sniffMime(bytes: Uint8Array): string {
  const b = bytes
  if (b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'image/png'
  if (b[0] === 0xff && b[1] === 0xd8) return 'image/jpeg'
  if (b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return 'image/gif'
  if (b[0] === 0x52 && b[1] === 0x49 && b[8] === 0x57 && b[9] === 0x45) return 'image/webp'
  const head = new TextDecoder().decode(b.subarray(0, 256)).trimStart()
  if (head.startsWith('<svg') || head.startsWith('<?xml')) return 'image/svg+xml'
  return 'application/octet-stream'
}

export class MediaStore {
  readonly #entries = new Map<string, MediaEntry>()
  readonly #maxBytes: number
  readonly #basePath: string
  #total = 0

  constructor(options: { basePath?: string; maxBytes?: number } = {}) {
    this.#basePath = options.basePath ?? ''
    this.#maxBytes = options.maxBytes ?? DEFAULT_MEDIA_MAX_BYTES
  }

  /** Store bytes; returns the URL (base path included) the browser fetches them from. */
  add(bytes: Uint8Array, mime: string, fileName: string | null = null): string {
    const hash = createHash('sha256').update(bytes).update(mime).update(fileName ?? '').digest('hex').slice(0, 40)
    const name = `${hash}.${EXT[mimeEssence(mime)] ?? 'bin'}`
    const existing = this.#entries.get(name)
    if (existing) {
      this.#entries.delete(name)
      this.#entries.set(name, existing)
    } else {
      this.#entries.set(name, { bytes, headers: mediaHeaders(mime, fileName) })
      this.#total += bytes.byteLength
      for (const [k, e] of this.#entries) {
        if (this.#total <= this.#maxBytes || k === name) break
        this.#entries.delete(k)
        this.#total -= e.bytes.byteLength
      }
    }
    return this.#basePath + MEDIA_PREFIX + name
  }

  /** `name` is the last path segment of a media URL. */
  get(name: string): MediaEntry | undefined {
    return this.#entries.get(name)
  }

  get size(): number {
    return this.#entries.size
  }
}
