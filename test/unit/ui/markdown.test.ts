import { describe, expect, it } from 'vitest'
import { renderMarkdown } from '../../../src/ui/index.js'

/**
 * An oracle written apart from the renderer: it reads the produced HTML the way a browser would
 * (entities decoded, tabs/newlines dropped from URLs) and lists everything that could run script.
 * Raw `<` in the output can only come from the renderer (source text `<` is escaped to `&lt;`),
 * so every `<name ...>` is a real tag.
 */
const TAGS = new Set(['p', 'a', 'img', 'strong', 'em', 'del', 's', 'code', 'pre', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'ul', 'ol', 'li', 'blockquote', 'hr', 'br', 'table', 'thead', 'tbody', 'tr', 'th', 'td'])
const ATTRS = new Set(['href', 'src', 'alt', 'title', 'class', 'style', 'start', 'target', 'rel'])

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
      else if (attrName === 'style' && !/^text-align:(left|right|center)$/.test(value)) found.push(`style=${value}`)
    }
  }
  return found
}

const SCHEMES = ['javascript:alert(1)', 'vbscript:msgbox(1)', 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'data:image/svg+xml,<svg onload=alert(1)>']
/** One dangerous URL in every spelling a browser still accepts (or a careless filter might miss). */
const SPELLINGS = [
  'javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'JAVASCRIPT:alert(1)', ' javascript:alert(1)',
  '&#106;avascript:alert(1)', '&#x6A;avascript:alert(1)', '&#0000106;avascript:alert(1)', 'javascript&colon;alert(1)',
  'java&#09;script:alert(1)', 'java&#x0A;script:alert(1)', 'java&Tab;script:alert(1)', 'java&NewLine;script:alert(1)',
  'java\tscript:alert(1)', 'java\u0000script:alert(1)', '\u0001javascript:alert(1)', '\u00a0javascript:alert(1)',
  'javascript%3Aalert(1)', '%6Aavascript:alert(1)', 'jav%61script:alert(1)', '<javascript:alert(1)>',
  '<java\tscript:alert(1)>', 'javascript://%0Aalert(1)', '\\javascript:alert(1)', 'javascript\u200b:alert(1)',
  ...SCHEMES,
]

const CORPUS: string[] = [
  ...SPELLINGS.map((u) => `[click](${u})`),
  ...SPELLINGS.map((u) => `[click](${u} "title")`),
  ...SPELLINGS.map((u) => `![img](${u})`),
  ...SPELLINGS.map((u) => `[click][ref]\n\n[ref]: ${u}`),
  ...SPELLINGS.map((u) => `![img][ref]\n\n[ref]: ${u}`),
  ...SPELLINGS.map((u) => `| a |\n|---|\n| [x](${u}) |`),
  ...SCHEMES.map((u) => `<${u}>`),
  ...SCHEMES.map((u) => `see ${u} here`),
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<svg onload=alert(1)>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<a href="javascript:alert(1)">x</a>',
  '<div onclick="alert(1)">x</div>',
  '<details open ontoggle=alert(1)>',
  '<style>body{background:url(javascript:alert(1))}</style>',
  '<object data="javascript:alert(1)"></object>',
  '<math><mtext><img src=x onerror=alert(1)></mtext></math>',
  '| <img src=x onerror=alert(1)> | b |\n|---|---|\n| <script>alert(1)</script> | <a href=javascript:alert(1)>x</a> |',
  '| a |\n|:--|\n| <https://x.y/"onmouseover="alert(1)> |',
  '<https://x.y/"onmouseover="alert(1)>',
  '<http://a.b/x\'onmouseover=\'alert(1)>',
  '[x](https://a.b/"onmouseover="alert(1))',
  '[x](https://a.b/ "t\\" onmouseover=\\"alert(1)")',
  '![x" onerror="alert(1)](https://a.b/i.png)',
  '![x](https://a.b/i.png "t\\" onerror=\\"alert(1)")',
  '[x](<https://a.b/ onmouseover=alert(1)>)',
  '`<img src=x onerror=alert(1)>`',
  '```html\n<script>alert(1)</script>\n```',
  '```"><script>alert(1)</script>\nx\n```',
  '> <img src=x onerror=alert(1)>',
  '- <img src=x onerror=alert(1)>\n- [x](javascript:alert(1))',
  '# <img src=x onerror=alert(1)>',
  '**<img src=x onerror=alert(1)>**',
  'https://a.b/<img src=x onerror=alert(1)>',
  'user@example.com<img src=x onerror=alert(1)>',
  '<!-- --><img src=x onerror=alert(1)>',
  '<![CDATA[<img src=x onerror=alert(1)>]]>',
  '&lt;img src=x onerror=alert(1)&gt;',
]

describe('markdown: XSS corpus (raw HTML off)', () => {
  it.each(CORPUS.map((source) => [source]))('%j renders without an executable vector', (source) => {
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
      .toBe('<table>\n<thead>\n<tr>\n<th style="text-align:left">name</th>\n<th style="text-align:right">qty</th>\n</tr>\n</thead>\n'
        + '<tbody>\n<tr>\n<td style="text-align:left"><strong>a</strong></td>\n<td style="text-align:right">1</td>\n</tr>\n</tbody>\n</table>')
  })

  it('fenced code keeps its language and escapes its content', () => {
    expect(renderMarkdown('```ts\nconst ok = 1 < 2 && "x"\n```'))
      .toBe('<pre><code class="language-ts">const ok = 1 &lt; 2 &amp;&amp; &quot;x&quot;\n</code></pre>')
  })
})
