import { LONE_SURROGATE, MAX_FILE_NAME_CHARS, MAX_MIME_CHARS, mimeEssence } from '../media-headers.js'
import { typeOfExtension } from '../media-store.js'

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
