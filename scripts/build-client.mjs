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
const common = {
  absWorkingDir: root,
  outdir,
  bundle: true,
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

/** @type {import('esbuild').BuildOptions} */
const app = {
  ...common,
  entryPoints: { app: 'src/ui/client/main.tsx' },
  format: 'esm',
  splitting: true,
  // Content-hashed names under chunks/: the sidecar serves them as immutable.
  chunkNames: 'chunks/[name]-[hash]',
}

/**
 * theme.js runs as a classic blocking script in <head> (before first paint), so it is its own
 * self-contained IIFE: in the ESM build it would share chunks with app.js and need `import`.
 */
/** @type {import('esbuild').BuildOptions} */
const theme = { ...common, entryPoints: { theme: 'src/ui/client/theme-init.ts' }, format: 'iife' }

// Chunks of earlier builds would pile up (their names change with their content).
await rm(outdir, { recursive: true, force: true })
await mkdir(outdir, { recursive: true })
if (watch) {
  for (const options of [app, theme]) await (await context(options)).watch()
  console.error(`build-client: watching src/ui/client → ${outdir}`)
} else {
  await Promise.all([build(app), build(theme)])
  const files = (await readdir(outdir, { recursive: true })).filter((f) => /\.(js|css)$/.test(f)).sort()
  const sizes = await Promise.all(files.map(async (f) => `${f} ${((await stat(join(outdir, f))).size / 1024).toFixed(1)} kB`))
  console.error(`build-client: ${sizes.join(', ')}`)
}
