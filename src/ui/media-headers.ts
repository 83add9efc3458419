import { SvcError } from '../errors.js'

/**
 * The response headers of `/_stcore/media/<hash>`, decided once when the bytes are stored, from
 * values a page author (or the visitor, through an upload) chose: the MIME type and the download
 * file name. Nothing here can produce a header Node refuses to write, and nothing served from
 * the app's origin is active content: only passive types render inline, everything else is a
 * download, and every answer is sandboxed.
 */

/** RFC 9110 `type/subtype` tokens, with optional `; name=value` parameters (token or quoted string). */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+"
const MIME = new RegExp(`^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|"(?:[\\t\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\t\\x20-\\x7e])*"))*$`)
export const MAX_MIME_CHARS = 255
/** Longer names are refused: most file systems stop at 255 bytes, and a header should stay small. */
export const MAX_FILE_NAME_CHARS = 255

/** A UTF-16 surrogate without its pair (no UTF-8 encoding exists for it). */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Sent with every media answer: a document opened from a media URL runs no script and loads nothing. */
export const MEDIA_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
const DOWNLOAD_TYPE = 'application/octet-stream'

/** A MIME type option checked at the call: `call` names the element for the message (`image()`). */
export function checkMime(call: string, option: string, value: unknown): string {
  if (typeof value !== 'string' || value.length > MAX_MIME_CHARS || !MIME.test(value)) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : String(value)
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: ${option} ${shown} is not a MIME type; pass "type/subtype" such as "image/png", "audio/ogg" or "text/csv"`)
  }
  return value
}

/** A download file name checked at the call: any text (encoded for the header), not empty, at most 255 characters. */
export function checkFileName(call: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_FILE_NAME_CHARS) {
    const shown = typeof value === 'string' ? `a name of ${value.length} characters` : String(value)
    throw new SvcError('SVC_ERR_UI_BAD_CALL', `${call}: fileName must be text of 1 to ${MAX_FILE_NAME_CHARS} characters, got ${shown}`)
  }
  return value
}

/** The lower-case `type/subtype` of a checked MIME type. */
export function mimeEssence(mime: string): string {
  return mime.split(';', 1)[0]!.trim().toLowerCase()
}

/** Whether `mime` is shown inline: images (not SVG), audio, video and PDF. Case-insensitive. */
export function isPassiveMime(mime: string): boolean {
  const essence = mimeEssence(mime)
  const slash = essence.indexOf('/')
  const type = essence.slice(0, slash)
  const subtype = essence.slice(slash + 1)
  if (type === 'audio' || type === 'video') return true
  // SVG (and any XML image) is a document that can carry script.
  if (type === 'image') return !subtype.includes('svg') && !subtype.includes('xml')
  return essence === 'application/pdf'
}

/**
 * RFC 6266 `attachment` with the name twice: an ASCII fallback in `filename` (anything else
 * becomes `_`) and the exact name in `filename*` (RFC 8187 UTF-8 percent-encoding), which every
 * current browser prefers. Lone surrogates become U+FFFD first, so encoding cannot throw.
 */
export function contentDisposition(fileName: string): string {
  const name = fileName.replace(LONE_SURROGATE, '\ufffd')
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_')
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`
}

/** The headers of one stored media entry, without length and caching (the server adds those). */
export function mediaHeaders(mime: string, fileName: string | null): Record<string, string> {
  // A type that did not pass checkMime (a bug) is never written into a header.
  const inline = MIME.test(mime) && isPassiveMime(mime)
  const headers: Record<string, string> = {
    'content-type': inline ? mimeEssence(mime) : DOWNLOAD_TYPE,
    'x-content-type-options': 'nosniff',
    'content-security-policy': MEDIA_CSP,
  }
  if (fileName !== null) headers['content-disposition'] = contentDisposition(fileName)
  else if (!inline) headers['content-disposition'] = 'attachment'
  return headers
}
