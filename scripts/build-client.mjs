// Bundles the browser client of the page runtime (src/ui/client) into dist/client: app.js and app.css
// for every page, theme.js (the pre-paint theme script), plus chunks/*.js files that app.js imports on
// demand (the chart library is one: pages without charts never load it). ESM with code splitting;
// `--watch` rebuilds on change.
import { build, context } from 'esbuild'
import { mkdir, readdir, rm, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const outdir = join(root, 'dist', 'client')
const watch = process.argv.includes('--watch')

/** @type {import('esbuild').BuildOptions} */
const options = {
  absWorkingDir: root,
  entryPoints: { app: 'src/ui/client/main.tsx' },
  outdir,
  bundle: true,
  format: 'esm',
  splitting: true,
  // Content-hashed names under chunks/: the sidecar serves them as immutable.
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'browser',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: !watch,
  sourcemap: watch ? 'inline' : false,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
}

// theme.js is a classic blocking <script> (it must run before the first paint): one self-contained
// file, never split into chunks that only an ES module could import.
/** @type {import('esbuild').BuildOptions} */
const themeOptions = { ...options, entryPoints: { theme: 'src/ui/client/theme-init.ts' }, format: 'iife', splitting: false }

// Chunks of earlier builds would pile up (their names change with their content).
await rm(outdir, { recursive: true, force: true })
await mkdir(outdir, { recursive: true })
if (watch) {
  for (const o of [options, themeOptions]) await (await context(o)).watch()
  console.error(`build-client: watching src/ui/client → ${outdir}`)
} else {
  await Promise.all([build(options), build(themeOptions)])
  const files = (await readdir(outdir, { recursive: true })).filter((f) => /\.(js|css)$/.test(f)).sort()
  const sizes = await Promise.all(files.map(async (f) => `${f} ${((await stat(join(outdir, f))).size / 1024).toFixed(1)} kB`))
  console.error(`build-client: ${sizes.join(', ')}`)
}
