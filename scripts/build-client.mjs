// Bundles the browser client of the page runtime (src/ui/client) into dist/client: app.js and app.css
// for every page, theme.js (the pre-paint theme script), plus chunks/*.js files that app.js imports on
// demand (the chart library is one: pages without charts never load it). ESM with code splitting;
// `--watch` rebuilds on change.
import { build, context, transform } from 'esbuild'
import { mkdir, readFile, readdir, rm, stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
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

const require = createRequire(import.meta.url)

/**
 * `import href from 'some/file.css?url'` (or a worker script `?url`): the file is copied next to the
 * chunks under a content-hashed name and the import is its path relative to the importing chunk
 * (`new URL(href, import.meta.url)`). Lazy chunks load their stylesheets and MapLibre's worker this
 * way: CSS imported from a lazy chunk would otherwise be merged into app.css, which every page loads.
 */
/** @type {import('esbuild').Plugin} */
const assetUrls = {
  name: 'asset-urls',
  setup(b) {
    b.onResolve({ filter: /\?url$/ }, (args) => {
      const file = args.path.startsWith('.') ? join(args.resolveDir, args.path.slice(0, -4)) : require.resolve(args.path.slice(0, -4))
      // `.mjs` becomes `.js`: the page server knows that type, and module workers need a JavaScript MIME type.
      return { path: file.replace(/\.mjs$/, '.js'), namespace: 'asset-url', pluginData: { file } }
    })
    b.onLoad({ filter: /.*/, namespace: 'asset-url' }, async (args) => {
      const { file } = args.pluginData
      const source = await readFile(file)
      // Our own stylesheets are minified like app.css; library files ship minified already.
      const css = file.endsWith('.css') && !file.includes('node_modules') && !watch
      const contents = css ? (await transform(source, { loader: 'css', minify: true, target: common.target })).code : source
      return { contents, loader: 'file', watchFiles: [file] }
    })
  },
}

/**
 * highlight.js ships its core as CommonJS whose only tie to CommonJS is one `module.exports =
 * highlight` (no `require`). Bundled as it is, esbuild's CommonJS helpers would join the runtime
 * chunk app.js loads on every page; read as the ES module it is otherwise, the highlighter chunk
 * keeps its cost to itself. Any other layout (a new highlight.js) is bundled as CommonJS.
 */
/** @type {import('esbuild').Plugin} */
const highlightCoreAsEsm = {
  name: 'highlight-core-esm',
  setup(b) {
    b.onLoad({ filter: /[\\/]highlight\.js[\\/]lib[\\/]core\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8')
      const line = 'module.exports = highlight;'
      const commonJs = source.match(/\bmodule\.exports\b|(?<![.\w])exports\.\w|\brequire\(/g) ?? []
      if (commonJs.length !== 1 || !source.includes(line)) return undefined
      return { contents: `${source.replace(line, '')}\nexport default highlight;\n`, loader: 'js' }
    })
  },
}

/** @type {import('esbuild').BuildOptions} */
const app = {
  ...common,
  entryPoints: { app: 'src/ui/client/main.tsx' },
  format: 'esm',
  splitting: true,
  // Content-hashed names under chunks/: the sidecar serves them as immutable.
  chunkNames: 'chunks/[name]-[hash]',
  assetNames: 'chunks/[name]-[hash]',
  plugins: [assetUrls, highlightCoreAsEsm],
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
