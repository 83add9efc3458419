import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { bundleFiguresMarkdown, END, START } from '../../../scripts/bundle-figures.mjs'
import { ClientManifestSchema } from '../../../src/ui/server/client-manifest.js'

const read = (path: string): string => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8')

/** docs/performance.md gives the client's file sizes; they must be the build's (#22 item 7). */
describe('bundle figures in the docs', () => {
  it('docs/performance.md has the sizes of this build (run `npm run build && npm run docs:bundle` after a client change)', () => {
    const manifest = ClientManifestSchema.parse(JSON.parse(read('dist/client/manifest.json')))
    const doc = read('docs/performance.md')
    const block = doc.slice(doc.indexOf(START), doc.indexOf(END) + END.length)
    expect(block, 'the bundle-figures block in docs/performance.md').toBe(bundleFiguresMarkdown(manifest))
  })

  it('no other page repeats a size figure of the bundle: they link to that table', () => {
    for (const page of ['docs/pages.md', 'docs/architecture.md', 'README.md']) {
      expect(read(page), page).not.toMatch(/(?:app\.js|app\.css|chunk)[^.\n]{0,60}\b\d+(?:\.\d+)? ?kB/)
    }
  })
})
