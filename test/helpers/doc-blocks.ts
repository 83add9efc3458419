import { readFileSync } from 'node:fs'

/** A fenced code block of a Markdown file. */
export interface DocBlock {
  /** The file, relative to the repository (`docs/pages.md`). */
  doc: string
  /** 1-based line of the opening fence. */
  line: number
  /** The info string's first word (`ts`, `sh`, `''`). */
  lang: string
  /** The info string's other words: `file=app.ts` → `{ file: 'app.ts' }`, `norun` → `{ norun: true }`. */
  attrs: Record<string, string | true>
  body: string
}

/** The fenced blocks of `path` (relative to `root`), in order. */
export function docBlocks(root: string, path: string): DocBlock[] {
  const blocks: DocBlock[] = []
  const lines = readFileSync(`${root}${path}`, 'utf8').split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]!)
    if (!open) continue
    const start = i
    const body: string[] = []
    while (++i < lines.length && lines[i] !== '```') body.push(lines[i]!)
    const attrs: Record<string, string | true> = {}
    for (const word of open[2]!.split(/\s+/).filter(Boolean)) {
      const eq = word.indexOf('=')
      if (eq === -1) attrs[word] = true
      else attrs[word.slice(0, eq)] = word.slice(eq + 1)
    }
    blocks.push({ doc: path, line: start + 1, lang: open[1]!, attrs, body: body.join('\n') + '\n' })
  }
  return blocks
}
