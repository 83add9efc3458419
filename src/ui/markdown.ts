/**
 * A small Markdown renderer for the common subset pages use: headings, paragraphs, emphasis,
 * strikethrough, inline code, fenced code, links, autolinks, lists (nested), blockquotes, rules
 * and GFM tables. It runs on the server so the browser only ever receives sanitized HTML: raw
 * HTML in the source is escaped unless the page passes `unsafeAllowHtml`, and link targets with
 * a scheme other than http(s)/mailto become `#`.
 */

export interface MarkdownOptions {
  /** Pass raw HTML through unescaped. Only for trusted text. */
  unsafeAllowHtml?: boolean
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)
}

function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e] ?? '')
}

/** http(s), mailto, and scheme-less (relative, fragment, query) URLs; anything else is unsafe. */
export function isSafeUrl(url: string): boolean {
  const u = url.trim().replace(/[\u0000-\u001f\s]/g, '')
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(u)
  if (!scheme) return true
  return ['http', 'https', 'mailto'].includes(scheme[1]!.toLowerCase())
}

const PH = '\u0000'

function renderInline(src: string, allowHtml: boolean): string {
  const held: string[] = []
  const hold = (html: string): string => `${PH}${held.push(html) - 1}${PH}`
  let s = src.replace(/`([^`\n]+)`/g, (_m, code: string) => hold(`<code>${escapeHtml(code)}</code>`))
  if (!allowHtml) s = escapeHtml(s)
  s = s.replace(/\[([^\]\n]+)\]\(([^)\s]+)(?:\s+(?:&quot;|")([^"&]*)(?:&quot;|"))?\)/g, (_m, text: string, url: string, title?: string) => {
    const raw = allowHtml ? url : unescapeHtml(url)
    const href = isSafeUrl(raw) ? escapeHtml(raw) : '#'
    const t = title ? ` title="${escapeHtml(allowHtml ? title : unescapeHtml(title))}"` : ''
    const external = /^https?:/i.test(raw) ? ' target="_blank" rel="noopener noreferrer"' : ''
    return hold(`<a href="${href}"${t}${external}>${emphasis(text)}</a>`)
  })
  s = s.replace(/(?:&lt;|<)(https?:\/\/[^\s<>&]+)(?:&gt;|>)/g, (_m, url: string) =>
    hold(`<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">${escapeHtml(url)}</a>`),
  )
  s = emphasis(s)
  s = s.replace(/ {2,}\n|\\\n/g, '<br>\n')
  while (s.includes(PH)) s = s.replace(new RegExp(`${PH}(\\d+)${PH}`, 'g'), (_m, i: string) => held[Number(i)] ?? '')
  return s
}

function emphasis(s: string): string {
  return s
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^\w])__(?=\S)([\s\S]*?\S)__(?!\w)/g, '$1<strong>$2</strong>')
    .replace(/\*(?=[^\s*])([^*]*?[^\s*])\*|\*([^\s*])\*/g, (_m, a?: string, b?: string) => `<em>${a ?? b}</em>`)
    .replace(/(^|[^\w])_(?=[^\s_])([^_]*?[^\s_]|[^\s_])_(?!\w)/g, '$1<em>$2</em>')
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '<del>$1</del>')
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)\s*$/
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/
const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/
const QUOTE = /^\s{0,3}>\s?(.*)$/
const TABLE_SEP = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/

function splitRow(line: string): string[] {
  const t = line.trim().replace(/^\||\|$/g, '')
  return t.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'))
}

function startsBlock(line: string, next: string | undefined): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || LIST_ITEM.test(line) ||
    (line.includes('|') && next !== undefined && TABLE_SEP.test(next))
}

function renderBlocks(lines: string[], allowHtml: boolean): string {
  const out: string[] = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    if (line.trim() === '') { i++; continue }
    const fence = FENCE.exec(line)
    if (fence) {
      const body: string[] = []
      i++
      while (i < lines.length && !lines[i]!.trim().startsWith(fence[1]!)) body.push(lines[i++]!)
      i++
      const cls = fence[2] ? ` class="language-${escapeHtml(fence[2])}"` : ''
      out.push(`<pre><code${cls}>${escapeHtml(body.join('\n'))}</code></pre>`)
      continue
    }
    const heading = HEADING.exec(line)
    if (heading) {
      const n = heading[1]!.length
      out.push(`<h${n}>${renderInline(heading[2]!, allowHtml)}</h${n}>`)
      i++
      continue
    }
    if (RULE.test(line)) { out.push('<hr>'); i++; continue }
    if (QUOTE.test(line)) {
      const body: string[] = []
      while (i < lines.length && QUOTE.test(lines[i]!)) body.push(QUOTE.exec(lines[i++]!)![1]!)
      out.push(`<blockquote>${renderBlocks(body, allowHtml)}</blockquote>`)
      continue
    }
    const item = LIST_ITEM.exec(line)
    if (item) {
      const ordered = /\d/.test(item[2]!)
      const indent = item[1]!.length
      const items: string[][] = []
      const sameList = (m: RegExpExecArray | null): boolean => m !== null && m[1]!.length === indent && /\d/.test(m[2]!) === ordered
      const indentOf = (l: string): number => l.length - l.trimStart().length
      while (i < lines.length) {
        const l = lines[i]!
        const m = LIST_ITEM.exec(l)
        if (sameList(m)) { items.push([m![3]!]); i++; continue }
        const last = items[items.length - 1]!
        if (l.trim() === '') {
          const next = lines[i + 1]
          if (next === undefined || (indentOf(next) <= indent && !sameList(LIST_ITEM.exec(next)))) break
          if (indentOf(next) > indent) last.push('')
          i++
          continue
        }
        if (indentOf(l) > indent) { last.push(l.slice(Math.min(indent + 2, indentOf(l)))); i++; continue }
        if (lines[i - 1]!.trim() !== '' && !startsBlock(l, lines[i + 1])) { last.push(l.trim()); i++; continue }
        break
      }
      const start = ordered ? Number.parseInt(item[2]!, 10) : 1
      const tag = ordered ? 'ol' : 'ul'
      const attr = ordered && start !== 1 ? ` start="${start}"` : ''
      const lis = items.map((body) => `<li>${renderBlocks(body, allowHtml).replace(/^<p>([\s\S]*?)<\/p>/, '$1')}</li>`)
      out.push(`<${tag}${attr}>${lis.join('')}</${tag}>`)
      continue
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]!)) {
      const head = splitRow(line)
      const aligns = splitRow(lines[i + 1]!).map((c) => (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : c.startsWith(':') ? 'left' : null))
      i += 2
      const rows: string[][] = []
      while (i < lines.length && lines[i]!.includes('|') && lines[i]!.trim() !== '') rows.push(splitRow(lines[i++]!))
      const cell = (tag: string, text: string, k: number): string => {
        const a = aligns[k] ? ` style="text-align:${aligns[k]}"` : ''
        return `<${tag}${a}>${renderInline(text, allowHtml)}</${tag}>`
      }
      const thead = `<thead><tr>${head.map((c, k) => cell('th', c, k)).join('')}</tr></thead>`
      const tbody = rows.length ? `<tbody>${rows.map((r) => `<tr>${head.map((_h, k) => cell('td', r[k] ?? '', k)).join('')}</tr>`).join('')}</tbody>` : ''
      out.push(`<table>${thead}${tbody}</table>`)
      continue
    }
    if (allowHtml && /^\s*<[A-Za-z!/]/.test(line)) {
      const body: string[] = []
      while (i < lines.length && lines[i]!.trim() !== '') body.push(lines[i++]!)
      out.push(body.join('\n'))
      continue
    }
    const para: string[] = [line]
    i++
    while (i < lines.length && lines[i]!.trim() !== '' && !startsBlock(lines[i]!, lines[i + 1])) para.push(lines[i++]!)
    out.push(`<p>${renderInline(para.map((l) => l.replace(/^\s+/, '')).join('\n'), allowHtml)}</p>`)
  }
  return out.join('\n')
}

/** Markdown → sanitized HTML (see the module comment for the subset). */
export function renderMarkdown(source: string, options: MarkdownOptions = {}): string {
  const text = String(source).replace(/\u0000/g, '')
  return renderBlocks(text.split(/\r?\n/), options.unsafeAllowHtml === true)
}
