// Bundles the browser client of the page runtime (src/ui/client) into dist/client/app.js and
// dist/client/app.css, and the pre-paint theme script into dist/client/theme.js. Run by `npm run build` after tsc; `--watch` rebuilds on change.
import { build, context } from 'esbuild'
import { mkdir, stat } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const outdir = join(root, 'dist', 'client')
const watch = process.argv.includes('--watch')

/** @type {import('esbuild').BuildOptions} */
const options = {
  absWorkingDir: root,
  entryPoints: { app: 'src/ui/client/main.tsx', theme: 'src/ui/client/theme-init.ts' },
  outdir,
  bundle: true,
  format: 'iife',
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

await mkdir(outdir, { recursive: true })
if (watch) {
  const ctx = await context(options)
  await ctx.watch()
  console.error(`build-client: watching src/ui/client → ${outdir}`)
} else {
  await build(options)
  const sizes = await Promise.all(['app.js', 'app.css', 'theme.js'].map(async (f) => `${f} ${((await stat(join(outdir, f))).size / 1024).toFixed(1)} kB`))
  console.error(`build-client: ${sizes.join(', ')}`)
}
