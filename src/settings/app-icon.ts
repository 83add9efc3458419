import { existsSync, readFileSync, statSync } from 'node:fs'
import { extname, resolve } from 'node:path'

/**
 * The app icon (setting `icon`, `new Svc({ icon })`): served at `/favicon.ico` and linked from
 * the HTML shell. '' is svc's own icon; an emoji or a few letters are drawn in an SVG; an http(s)
 * URL is linked (and `/favicon.ico` redirects to it); anything with an image file extension or a
 * path separator is a file, read once when the page server starts.
 */
export type AppIcon = { kind: 'body'; body: Buffer; type: string } | { kind: 'redirect'; url: string }

const FILE_TYPES: Record<string, string> = {
  '.ico': 'image/x-icon',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
}
/** Larger files are not favicons (and would be read into memory). */
const MAX_FILE_BYTES = 1024 * 1024
/** An emoji (with its modifiers) or up to four letters. */
const MAX_TEXT_GRAPHEMES = 4

const SVC_ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#4f46e5"/>' +
  '<path d="M7 21.5l6-6 4 4 8-9" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/></svg>'

type Shape = 'default' | 'url' | 'file' | 'text'

function shapeOf(value: string): Shape {
  if (value === '') return 'default'
  if (/^https?:\/\//i.test(value)) return 'url'
  if (/[/\\]/.test(value) || /\.[a-z0-9]{2,5}$/i.test(value)) return 'file'
  return 'text'
}

/** Loaded by the settings schema in every process: no Markdown parser for one escape. */
function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)
}

function graphemes(text: string): number {
  return [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].length
}

/** Why `value` cannot be the app icon, or null when it can (files: relative to `cwd`). */
export function appIconProblem(value: string, cwd: string = process.cwd()): string | null {
  const hint = 'give an emoji ("🚀"), an http(s) URL, or the path of a .ico, .png, .svg, .jpg, .gif or .webp file'
  switch (shapeOf(value)) {
    case 'default':
      return null
    case 'url':
      return /^https?:\/\/[^\s/]\S*$/i.test(value) ? null : `"${value}" is not a valid http(s) URL; ${hint}`
    case 'text':
      return graphemes(value) <= MAX_TEXT_GRAPHEMES ? null : `"${value.slice(0, 40)}" is too long for an icon (an emoji or up to ${MAX_TEXT_GRAPHEMES} letters); ${hint}`
    case 'file': {
      const file = resolve(cwd, value)
      const ext = extname(file).toLowerCase()
      if (!Object.hasOwn(FILE_TYPES, ext)) return `${file} is not an image file svc serves as an icon; ${hint}`
      if (!existsSync(file)) return `no file ${file} (from "${value}", relative to ${cwd}); ${hint}`
      const size = statSync(file).size
      return size <= MAX_FILE_BYTES ? null : `${file} is ${size} bytes; an icon must be at most ${MAX_FILE_BYTES} bytes`
    }
  }
}

/** The icon to serve for a valid setting (checked by the settings schema with `appIconProblem`). */
export function loadAppIcon(value: string, cwd: string = process.cwd()): AppIcon {
  switch (shapeOf(value)) {
    case 'default':
      return { kind: 'body', body: Buffer.from(SVC_ICON), type: 'image/svg+xml' }
    case 'url':
      return { kind: 'redirect', url: value }
    case 'text':
      return {
        kind: 'body',
        type: 'image/svg+xml',
        body: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><text x="50" y="54" font-size="84" text-anchor="middle" dominant-baseline="middle">${escapeXml(value)}</text></svg>`),
      }
    case 'file': {
      const file = resolve(cwd, value)
      return { kind: 'body', body: readFileSync(file), type: FILE_TYPES[extname(file).toLowerCase()]! }
    }
  }
}
