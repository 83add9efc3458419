import hljs from 'highlight.js/lib/core'
import bash from 'highlight.js/lib/languages/bash'
import css from 'highlight.js/lib/languages/css'
import javascript from 'highlight.js/lib/languages/javascript'
import json from 'highlight.js/lib/languages/json'
import python from 'highlight.js/lib/languages/python'
import sql from 'highlight.js/lib/languages/sql'
import typescript from 'highlight.js/lib/languages/typescript'
import xml from 'highlight.js/lib/languages/xml'
import yaml from 'highlight.js/lib/languages/yaml'
import cssHref from './highlight.css?url'
import { loadStylesheet } from './stylesheet.js'

/**
 * The lazily loaded code highlighter (`st.code(..., { language })`): highlight.js with a handful of
 * common languages, and token colours that follow the light/dark theme (highlight.css).
 */
for (const [name, lang] of Object.entries({ bash, css, javascript, json, python, sql, typescript, xml, yaml })) hljs.registerLanguage(name, lang)
hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' })
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' })

const styles = loadStylesheet(new URL(cssHref, import.meta.url).href)

/**
 * The code as highlighted HTML, one string per line (each line's open token spans are closed at
 * its end and reopened on the next, so line numbers can wrap lines), or null for a language not
 * loaded here. highlight.js escapes the code; the only markup is its `<span class="hljs-…">`.
 */
export async function highlightLines(code: string, language: string): Promise<string[] | null> {
  if (!hljs.getLanguage(language)) return null
  const html = hljs.highlight(code, { language, ignoreIllegals: true }).value
  await styles.catch(() => undefined)
  return splitLines(html)
}

function splitLines(html: string): string[] {
  const lines: string[] = []
  const open: string[] = []
  let line = ''
  for (const part of html.split(/(<span class="[^"]*">|<\/span>|\n)/)) {
    if (part === '\n') {
      lines.push(line + '</span>'.repeat(open.length))
      line = open.join('')
    } else {
      if (part.startsWith('<span')) open.push(part)
      else if (part === '</span>') open.pop()
      line += part
    }
  }
  lines.push(line)
  return lines
}
