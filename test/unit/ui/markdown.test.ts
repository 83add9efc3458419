import { describe, expect, it } from 'vitest'
import { renderMarkdown } from '../../../src/ui/index.js'
import { XSS_CORPUS } from '../../helpers/xss-corpus.js'

/**
 * An oracle written apart from the renderer: it reads the produced HTML the way a browser would
 * (entities decoded, tabs/newlines dropped from URLs) and lists everything that could run script.
 * Raw `<` in the output can only come from the renderer (source text `<` is escaped to `&lt;`),
 * so every `<name ...>` is a real tag.
 */
const TAGS = new Set(['p', 'a', 'img', 'strong', 'em', 'del', 's', 'code', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'ul', 'ol', 'li', 'blockquote', 'hr', 'br', 'table', 'thead', 'tbody', 'tr', 'th', 'td'])
const ATTRS = new Set(['href', 'src', 'alt', 'title', 'class', 'start', 'target', 'rel'])

function decodeAttr(value: string): string | null {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" }
  let unknown = false
  const out = value.replace(/&(#x[0-9a-f]+|#\d+|[a-z0-9#]+);?/gi, (m, e: string) => {
    if (named[e] !== undefined) return named[e]!
    if (/^#x/i.test(e)) return String.fromCodePoint(Number.parseInt(e.slice(2), 16))
    if (/^#\d/.test(e)) return String.fromCodePoint(Number(e.slice(1)))
    unknown = true
    return m
  })
  return unknown ? null : out
}

function urlIsInert(raw: string): boolean {
  // eslint-disable-next-line no-control-regex -- the test strips control characters as a browser does
  const url = raw.replace(/[\u0000-\u0020]/g, '')
  if (/^(https?:\/\/|mailto:|\/|#|\?|\.)/i.test(url)) return true
  return !/^[^/?#]*:/.test(url) && !/^[^/?#]*%3a/i.test(url)
}

function executableVectors(html: string): string[] {
  const found: string[] = []
  for (const tag of html.matchAll(/<\/?([a-zA-Z][\w-]*)([^>]*)>/g)) {
    const name = tag[1]!.toLowerCase()
    if (!TAGS.has(name)) found.push(`tag <${name}>`)
    for (const attr of tag[2]!.matchAll(/([^\s"'=/]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g)) {
      const attrName = attr[1]!.toLowerCase()
      const value = decodeAttr((attr[2] ?? '').replace(/^["']|["']$/g, ''))
      if (!ATTRS.has(attrName)) found.push(`attribute ${attrName} on <${name}>`)
      else if (value === null) found.push(`unknown entity in ${attrName} on <${name}>`)
      else if ((attrName === 'href' || attrName === 'src') && !urlIsInert(value)) found.push(`${attrName}=${value}`)
    }
  }
  return found
}

describe('markdown: XSS corpus (raw HTML off)', () => {
  it.each(XSS_CORPUS.map((source) => [source]))('%j renders without an executable vector', (source) => {
    const html = renderMarkdown(source)
    expect(executableVectors(html), html).toEqual([])
  })

  it('the oracle itself spots vectors (a test of the test)', () => {
    expect(executableVectors('<a href="java&#09;script:alert(1)">x</a>')).toEqual(['href=java\tscript:alert(1)'])
    expect(executableVectors('<img src="x" onerror="alert(1)">')).toEqual(['attribute onerror on <img>'])
    expect(executableVectors('<script>')).toEqual(['tag <script>'])
    expect(executableVectors('<a href="JAVASCRIPT:x">')).toEqual(['href=JAVASCRIPT:x'])
  })

  it('an unsafe link or image stays visible as plain text', () => {
    expect(renderMarkdown('[x](javascript:alert(1))')).toBe('<p>[x](javascript:alert(1))</p>')
    expect(renderMarkdown('![i](data:image/png;base64,AAAA)')).toBe('<p>![i](data:image/png;base64,AAAA)</p>')
    expect(renderMarkdown('<img src=x onerror=alert(1)>')).toBe('<p>&lt;img src=x onerror=alert(1)&gt;</p>')
  })
})

describe('markdown: unsafeAllowHtml', () => {
  it('passes raw HTML through but still validates Markdown links', () => {
    expect(renderMarkdown('<b class="x">trusted</b>', { unsafeAllowHtml: true })).toBe('<p><b class="x">trusted</b></p>')
    expect(renderMarkdown('<div>\n\nblock\n\n</div>', { unsafeAllowHtml: true })).toBe('<div>\n<p>block</p>\n</div>')
    expect(renderMarkdown('[x](javascript:alert(1))', { unsafeAllowHtml: true })).not.toContain('href')
  })
})

describe('markdown: ordinary input', () => {
  it('keeps a URL with parentheses whole', () => {
    expect(renderMarkdown('[Foo](https://en.wikipedia.org/wiki/Foo_(bar)) and more'))
      .toBe('<p><a href="https://en.wikipedia.org/wiki/Foo_(bar)" target="_blank" rel="noopener noreferrer">Foo</a> and more</p>')
  })

  it('opens external links in a new tab without opener or referrer; relative links stay in place', () => {
    expect(renderMarkdown('[a](https://a.b/c_d_e "T")')).toBe('<p><a href="https://a.b/c_d_e" title="T" target="_blank" rel="noopener noreferrer">a</a></p>')
    expect(renderMarkdown('[o](/orders?tab=1#top)')).toBe('<p><a href="/orders?tab=1#top">o</a></p>')
    expect(renderMarkdown('[m](mailto:a@b.c)')).toBe('<p><a href="mailto:a@b.c">m</a></p>')
    expect(renderMarkdown('<https://a.b>')).toBe('<p><a href="https://a.b" target="_blank" rel="noopener noreferrer">https://a.b</a></p>')
  })

  it('links bare http(s) URLs but not file names', () => {
    expect(renderMarkdown('see https://a.b/x, and app.ts'))
      .toBe('<p>see <a href="https://a.b/x" target="_blank" rel="noopener noreferrer">https://a.b/x</a>, and app.ts</p>')
  })

  it('reference-style links', () => {
    expect(renderMarkdown('[docs][d]\n\n[d]: https://a.b/docs'))
      .toBe('<p><a href="https://a.b/docs" target="_blank" rel="noopener noreferrer">docs</a></p>')
  })

  it('nested emphasis, strikethrough, inline code', () => {
    expect(renderMarkdown('**bold _and italic_ text** ~~gone~~ `<b>` snake_case_name'))
      .toBe('<p><strong>bold <em>and italic</em> text</strong> <s>gone</s> <code>&lt;b&gt;</code> snake_case_name</p>')
  })

  it('headings, rules, quotes and hard breaks', () => {
    expect(renderMarkdown('# T\n\n---\n\n> quoted\n> more\n\nline  \nnext'))
      .toBe('<h1>T</h1>\n<hr>\n<blockquote>\n<p>quoted\nmore</p>\n</blockquote>\n<p>line<br>\nnext</p>')
  })

  it('lists: bullets, ordered with a start, nested', () => {
    expect(renderMarkdown('- a\n- b\n  - b1\n\n3. c\n4. d'))
      .toBe('<ul>\n<li>a</li>\n<li>b\n<ul>\n<li>b1</li>\n</ul>\n</li>\n</ul>\n<ol start="3">\n<li>c</li>\n<li>d</li>\n</ol>')
  })

  it('GFM tables with alignment and inline Markdown in cells', () => {
    expect(renderMarkdown('| name | qty |\n|:-----|----:|\n| **a** | 1 |'))
      .toBe('<table>\n<thead>\n<tr>\n<th class="svc-align-left">name</th>\n<th class="svc-align-right">qty</th>\n</tr>\n</thead>\n'
        + '<tbody>\n<tr>\n<td class="svc-align-left"><strong>a</strong></td>\n<td class="svc-align-right">1</td>\n</tr>\n</tbody>\n</table>')
  })

  it('fenced code keeps its language and escapes its content', () => {
    expect(renderMarkdown('```ts\nconst ok = 1 < 2 && "x"\n```'))
      .toBe('<pre><code class="language-ts">const ok = 1 &lt; 2 &amp;&amp; &quot;x&quot;\n</code></pre>')
  })
})
