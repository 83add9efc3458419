// Bundles the browser client of the page runtime (src/ui/client) into dist/client (see
// scripts/client-build.mjs): the app entry (JS + CSS, every page), theme (the pre-paint theme
// script, a classic blocking script in <head>, so its own self-contained IIFE) and chunks/ that
// the app imports on demand (the chart library is one: pages without charts never load it). Prints
// each file's size, raw and precompressed. `--watch` rebuilds on change.
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildClient } from './client-build.mjs'
import { assetUrls, copyIntoEachChunk, highlightCoreAsEsm, singleCopy, workerUrls } from './client-plugins.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const outdir = join(root, 'dist', 'client')
const clientSrc = 'src/ui/client'
const watch = process.argv.includes('--watch')

const manifest = await buildClient({
  root,
  outdir,
  clientSrc,
  watch,
  entries: [
    { name: 'app', source: `${clientSrc}/main.tsx`, format: 'esm' },
    { name: 'theme', source: `${clientSrc}/theme-init.ts`, format: 'iife' },
  ],
  // The theme and rerun helpers of the chart, map and Plotly chunks and the lazy widgets' DOM helpers: a copy each, not a chunk of their own.
  plugins: (options) => [
    assetUrls(options, { stripFontFaces: ['katex/dist/katex.min.css'] }),
    workerUrls(options),
    highlightCoreAsEsm,
    copyIntoEachChunk([`${clientSrc}/lazy/theme-mode.ts`, `${clientSrc}/lazy/view.ts`, `${clientSrc}/lazy/field.ts`]),
    singleCopy(['vega-expression']),
  ],
})
const kB = (n) => `${(n / 1024).toFixed(1)} kB`
if (manifest === null) {
  console.error(`build-client: watching ${clientSrc} → ${outdir}`)
} else {
  const plain = new Map(Object.entries(manifest.entries).map(([name, file]) => [file, name]))
  const line = Object.entries(manifest.files).map(([file, s]) => {
    const label = plain.has(file) ? `${plain.get(file)} (${basename(file)})` : file
    return `${label} ${kB(s.bytes)}${s.br === null ? '' : ` (br ${kB(s.br)}, gzip ${kB(s.gzip ?? s.bytes)})`}`
  })
  console.error(`build-client: ${line.join(', ')}`)
}
