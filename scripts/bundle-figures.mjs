// The client bundle's size table in docs/performance.md, from the build's manifest
// (dist/client/manifest.json), so the figures there are the build's and stay so:
// test/unit/package/bundle-figures.test.ts fails when they differ. After a change to the client:
//   npm run build && npm run docs:bundle
import { readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const START = '<!-- bundle-figures:start (npm run docs:bundle writes this table) -->'
export const END = '<!-- bundle-figures:end -->'

const kB = (n) => `${(n / 1024).toFixed(1)} kB`
/** `chunks/render-6SQ4MK77.js` → `chunks/render-<hash>.js` */
const unhashed = (file) => file.replace(/-[A-Z0-9]{8}(\.\w+)$/, '-<hash>$1')

/** @param {import('../src/ui/server/client-manifest.js').ClientManifest} manifest */
export function bundleFiguresMarkdown(manifest) {
  const plain = new Map(Object.entries(manifest.entries).map(([name, file]) => [file, name]))
  /** @type {Map<string, { files: number, bytes: number, br: number, gzip: number }>} */
  const rows = new Map()
  for (const [file, s] of Object.entries(manifest.files)) {
    const name = plain.get(file) ?? unhashed(file)
    const row = rows.get(name) ?? { files: 0, bytes: 0, br: 0, gzip: 0 }
    row.files++
    row.bytes += s.bytes
    row.br += s.br ?? s.bytes
    row.gzip += s.gzip ?? s.bytes
    rows.set(name, row)
  }
  const lines = [
    START,
    '| File | Raw | brotli (sent) | gzip |',
    '| --- | ---: | ---: | ---: |',
    // Sorted by name: the manifest lists files in the order the parallel builds finished.
    ...[...rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, r]) => `| \`${name}\`${r.files > 1 ? ` (${r.files} files)` : ''} | ${kB(r.bytes)} | ${kB(r.br)} | ${kB(r.gzip)} |`),
    END,
  ]
  return lines.join('\n')
}

/** The docs text with its table replaced by `table`. */
export function withBundleFigures(doc, table) {
  const start = doc.indexOf(START)
  const end = doc.indexOf(END)
  if (start === -1 || end === -1) throw new Error(`docs/performance.md has no ${START} … ${END} block`)
  return doc.slice(0, start) + table + doc.slice(end + END.length)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..')
  const manifest = JSON.parse(await readFile(join(root, 'dist/client/manifest.json'), 'utf8'))
  const docPath = join(root, 'docs/performance.md')
  await writeFile(docPath, withBundleFigures(await readFile(docPath, 'utf8'), bundleFiguresMarkdown(manifest)))
  console.error('docs/performance.md: bundle figures written from dist/client/manifest.json')
}
