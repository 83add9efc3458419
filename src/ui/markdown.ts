/**
 * Markdown → HTML on the server with markdown-it (CommonMark plus GFM tables and strikethrough),
 * so the browser only ever receives sanitized HTML. Raw HTML in the source is escaped unless the
 * page passes `unsafeAllowHtml`; every link and image URL must pass markdown-it's own
 * `validateLink` and our scheme allow-list (`isSafeUrl`), otherwise it stays plain text.
 */
import { createRequire } from 'node:module'
import type { MarkdownIt } from 'markdown-it'

export interface MarkdownOptions {
  /** Pass raw HTML through unescaped. Only for trusted text. */
  unsafeAllowHtml?: boolean
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)
}

const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto'])

/**
 * http(s), mailto, and scheme-less (relative, fragment, query) URLs; anything else is unsafe.
 * Checked on the URL as a browser would read it: percent-escapes decoded and the whitespace and
 * control characters that URL parsers drop removed, so `java%09script:` cannot slip through.
 */
export function isSafeUrl(url: string): boolean {
  let u = url
  try { u = decodeURIComponent(url) } catch { /* a stray `%` is not an escape: check the text as is */ }
  // eslint-disable-next-line no-control-regex -- control characters are what this strips from a URL
  u = u.replace(/[\u0000-\u0020\u007f-\u00a0\u1680\u180e\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff]/g, '')
  const scheme = /^([^/?#]*?):/.exec(u)
  if (!scheme) return true
  return ALLOWED_SCHEMES.has(scheme[1]!.toLowerCase())
}

function createRenderer(html: boolean): MarkdownIt {
  // Loaded on the first render: the gateway and an idle page server never render Markdown.
  const markdownIt = createRequire(import.meta.url)('markdown-it') as typeof import('markdown-it').default
  const md = markdownIt({ html, linkify: true, typographer: false })
  // Only scheme-qualified URLs (`https://…`), never bare names like `app.ts`, which is a real TLD.
  md.linkify.set({ fuzzyLink: false })
  const validate = md.validateLink.bind(md)
  md.validateLink = (url: string): boolean => validate(url) && isSafeUrl(url)
  const linkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options))
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!
    if (/^(?:https?:)?\/\//i.test(String(token.attrGet('href') ?? ''))) {
      // A new tab must not get a handle on this page (reverse tabnabbing) nor our URL as referrer.
      token.attrSet('target', '_blank')
      token.attrSet('rel', 'noopener noreferrer')
    }
    return linkOpen(tokens, idx, options, env, self)
  }
  // Table column alignment as a class (`svc-align-right`), not a style attribute: the page CSP
  // refuses inline styles.
  md.core.ruler.push('svc_align_class', (state) => {
    for (const token of state.tokens) {
      if (token.type !== 'th_open' && token.type !== 'td_open') continue
      const align = /^text-align:(left|center|right)$/.exec(String(token.attrGet('style') ?? ''))?.[1]
      if (align === undefined) continue
      token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style')
      token.attrJoin('class', `svc-align-${align}`)
    }
  })
  return md
}

let safe: MarkdownIt | null = null
let trusted: MarkdownIt | null = null

/** Markdown → sanitized HTML (see the module comment). */
export function renderMarkdown(source: string, options: MarkdownOptions = {}): string {
  const md = options.unsafeAllowHtml === true ? (trusted ??= createRenderer(true)) : (safe ??= createRenderer(false))
  return md.render(String(source)).trimEnd()
}
