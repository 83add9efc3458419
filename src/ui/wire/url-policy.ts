/**
 * Which URLs a page may put in a link, an image, audio, video or a PDF frame. Shared by the
 * server (checked at the `st` call) and the browser client (checked again before the DOM sees
 * it), both with the WHATWG URL parser, so they read a string exactly as the browser will:
 * tabs and newlines inside it are dropped and leading control characters trimmed
 * (`java\tscript:` is `javascript:`), and `\` counts as `/` (`/\evil.example` is another site).
 * No DOM or Node API here: this module is bundled into the client.
 */

export type UrlKind = 'link' | 'image' | 'audio' | 'video' | 'pdf'

const WEB = ['http:', 'https:']
const SCHEMES: Readonly<Record<UrlKind, readonly string[]>> = {
  link: [...WEB, 'mailto:', 'tel:'],
  image: [...WEB, 'data:'],
  audio: [...WEB, 'data:'],
  video: [...WEB, 'data:'],
  pdf: [...WEB, 'data:'],
}
/** `data:` URLs carry their own type: only the element's own kind of content. */
const DATA: Readonly<Record<UrlKind, RegExp | null>> = {
  link: null,
  image: /^data:image\/(?:png|jpeg|gif|webp|avif|bmp|svg\+xml)[;,]/i,
  audio: /^data:audio\/[a-z0-9.+-]+[;,]/i,
  video: /^data:video\/[a-z0-9.+-]+[;,]/i,
  pdf: /^data:application\/pdf[;,]/i,
}
const DATA_SHOWN: Readonly<Record<UrlKind, string>> = {
  link: '',
  image: ', data:image/…',
  audio: ', data:audio/…',
  video: ', data:video/…',
  pdf: ', data:application/pdf…',
}

/** The origin relative references are resolved against on the server; never contacted. */
export const SERVER_BASE = 'https://app.svc.invalid/'

export type CheckedUrl =
  /**
   * `href`: for a URL with a scheme, the parser's serialisation; for a reference relative to
   * the page, the string as the parser reads it (tabs and newlines out, ends trimmed), which the
   * browser resolves against its own location. `path`: the path of a same-origin reference that
   * starts with `/` (a page of this app may be meant), else null.
   */
  | { ok: true; href: string; sameOrigin: boolean; path: string | null }
  | { ok: false; reason: string }

/** Check `value` for an element of `kind`; `base` is the page's URL (browser) or `SERVER_BASE`. */
export function checkUrl(value: string, kind: UrlKind, base: string = SERVER_BASE): CheckedUrl {
  // eslint-disable-next-line no-control-regex -- control characters are what this trims from a URL
  const cleaned = value.replace(/[\t\n\r]/g, '').replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, '')
  const absolute = parse(cleaned)
  if (absolute === null) {
    const resolved = parse(cleaned, base)
    const origin = parse(base)?.origin
    if (resolved === null) return { ok: false, reason: 'it is not a URL' }
    if (resolved.origin !== origin) {
      return { ok: false, reason: `browsers read it as another site (${resolved.host}); write the full URL with https:// if you mean that site, or a path like /reports for this app` }
    }
    return { ok: true, href: cleaned, sameOrigin: true, path: cleaned.startsWith('/') ? resolved.pathname : null }
  }
  const allowed = SCHEMES[kind]
  if (!allowed.includes(absolute.protocol)) {
    return { ok: false, reason: `the scheme ${absolute.protocol} is not allowed here; use ${allowed.filter((s) => s !== 'data:').join(', ')}${DATA_SHOWN[kind]} or a path of this app` }
  }
  if (absolute.protocol === 'data:' && !DATA[kind]!.test(absolute.href)) {
    return { ok: false, reason: `a data: URL here must be${DATA_SHOWN[kind].slice(1)}` }
  }
  return { ok: true, href: absolute.href, sameOrigin: false, path: null }
}

function parse(value: string, base?: string): URL | null {
  try {
    return new URL(value, base)
  } catch {
    return null
  }
}
