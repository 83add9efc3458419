import { LONE_SURROGATE, MAX_FILE_NAME_CHARS, MAX_MIME_CHARS, mimeEssence } from '../media-headers.js'
import { typeOfExtension } from '../media-store.js'
import type { UploadedFile } from '../st-types.js'
import type { Emitter } from './run-context.js'
import { bad } from './values.js'

/**
 * The rules every file a widget takes goes through: `fileUploader`'s files, the recordings of
 * `audioInput` and the chat input, the photos of `cameraInput` and the chat input's attachments
 * (issue #36). A file comes by reference to an upload (`POST {base}/_stcore/upload`, bounded by
 * `ui_max_upload_bytes`) or inline as base64 (tests), and is refused unless its size, name and
 * MIME type fit what the widget drew (and, for recordings and photos, its bytes are what it says).
 */

/** Extensions (`.csv`) and MIME types (`image/*`), lower-cased; null: any. */
export function acceptList(accept: string | readonly string[] | undefined): string[] | null {
  if (accept === undefined) return null
  return (typeof accept === 'string' ? [accept] : [...accept]).map((a) => a.trim().toLowerCase())
}

export function accepted(accept: readonly string[] | null, name: string, type: string): boolean {
  if (accept === null) return true
  const n = name.toLowerCase()
  const t = type.toLowerCase()
  return accept.some((a) => (a.startsWith('.') ? n.endsWith(a) : a.endsWith('/*') ? t.startsWith(a.slice(0, -1)) : t === a || n.endsWith('.' + a)))
}

/** The upload reference a file came in under, so the browser can name it again (removing another file). */
const kUploadRef = Symbol('svc.uploadRef')

export function uploadedFile(name: string, type: string, bytes: Uint8Array, ref: string | null = null): UploadedFile {
  // `text` is not enumerable: two files with the same name, type and bytes are the same value.
  const file = Object.defineProperty({ name, type, size: bytes.byteLength, bytes }, 'text', { value: () => new TextDecoder().decode(bytes) })
  if (ref !== null) Object.defineProperty(file, kUploadRef, { value: ref })
  return Object.freeze(file) as UploadedFile
}

export interface FileRules {
  accept: readonly string[] | null
  maxBytes: number
  /** Why these bytes are not the kind the widget takes (a WAV of another rate, not a JPEG), or null. */
  inspect?: (bytes: Uint8Array, type: string) => string | null
}

export interface FileReader {
  /** A file as the browser sends it: `{ name, type, size, ref }` or `{ name, type, dataBase64 }`. */
  readonly fromWire: (f: unknown) => UploadedFile
  /** A file as the page or a test gives it: `{ name, type, bytes }`. */
  readonly fromState: (f: unknown) => UploadedFile
}

/** `held()`: the files the widget holds now, which the browser may name again by reference. */
export function fileRules(em: Emitter, held: () => readonly UploadedFile[], rules: FileRules): FileReader {
  const check = (rawName: unknown, declared: unknown, bytes: Uint8Array | null, ref: string | null = null): UploadedFile => {
    if (typeof rawName !== 'string' || bytes === null) return bad('file without name or data')
    // Checked as the page will see them: `x.csv\0.exe` is `x.csv.exe`, never a .csv.
    const name = uploadName(rawName)
    const mime = uploadType(name, declared, rules.accept)
    if (bytes.byteLength > rules.maxBytes || !accepted(rules.accept, name, mime)) return bad(`file ${name} is too large or not accepted`)
    const problem = rules.inspect?.(bytes, mime) ?? null
    if (problem !== null) return bad(`file ${name}: ${problem}`)
    return uploadedFile(name, mime, bytes, ref)
  }
  return {
    fromWire: (f) => {
      const p = f as { name?: unknown; type?: unknown; dataBase64?: unknown; ref?: unknown } | null
      if (typeof p?.ref !== 'string') return check(p?.name, p?.type, typeof p?.dataBase64 === 'string' ? new Uint8Array(Buffer.from(p.dataBase64, 'base64')) : null)
      const kept = held().find((u) => (u as { [kUploadRef]?: string })[kUploadRef] === p.ref)
      if (kept) return kept
      const upload = em.ctx.host.uploads.take(p.ref)
      return upload ? check(upload.name, upload.type, upload.bytes, p.ref) : bad('unknown or expired upload reference')
    },
    fromState: (f) => {
      const p = f as { name?: unknown; type?: unknown; bytes?: unknown; [kUploadRef]?: string } | null
      return check(p?.name, p?.type, p?.bytes instanceof Uint8Array ? p.bytes : null, p?.[kUploadRef] ?? null)
    },
  }
}

/**
 * What an upload's name and type may be by the time a page sees them. Both come from the
 * visitor's browser (or a hand-made request), so neither is trusted: the name is a display name
 * only, never a path, and the type is the browser's guess, not a check of the bytes.
 */

const UNKNOWN_TYPE = 'application/octet-stream'
/** Control characters (C0, DEL, C1) and the bidirectional overrides that make `exe.csv` read as `vsc.exe`. */
// eslint-disable-next-line no-control-regex -- control characters are what this strips from a name
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g
const TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/

/**
 * The last path part of `raw`, without control characters or bidi overrides, trimmed, at most
 * 255 characters (the extension kept); `file` when nothing is left (`../`, `\0`, `..`).
 */
export function uploadName(raw: string): string {
  const clean = raw.replace(LONE_SURROGATE, '\uFFFD').replace(UNSAFE_CHARS, '')
  const base = clean.slice(Math.max(clean.lastIndexOf('/'), clean.lastIndexOf('\\')) + 1).trim()
  if (base === '' || base === '.' || base === '..') return 'file'
  if (base.length <= MAX_FILE_NAME_CHARS) return base
  const dot = base.lastIndexOf('.')
  const ext = dot > 0 && base.length - dot <= 16 ? base.slice(dot) : ''
  return [...base.slice(0, base.length - ext.length)].slice(0, MAX_FILE_NAME_CHARS - ext.length).join('') + ext
}

/**
 * The type a page sees. When `accept` lists only extensions, what the browser declared was never
 * checked, so it is not passed on: the type comes from the (checked) extension, or is
 * `application/octet-stream`. Otherwise the declared type, reduced to a lower-case
 * `type/subtype` (anything else is `application/octet-stream`).
 */
export function uploadType(name: string, declared: unknown, accept: readonly string[] | null): string {
  if (accept !== null && accept.length > 0 && accept.every((a) => a.startsWith('.'))) return typeOfExtension(name) ?? UNKNOWN_TYPE
  if (typeof declared !== 'string' || declared.length > MAX_MIME_CHARS) return UNKNOWN_TYPE
  const essence = mimeEssence(declared)
  return TYPE.test(essence) ? essence : UNKNOWN_TYPE
}
