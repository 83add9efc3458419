// esbuild plugins of svc's browser client build (scripts/build-client.mjs passes them to
// buildClient in scripts/client-build.mjs).
import { build, transform } from 'esbuild'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'

const require = createRequire(import.meta.url)

/**
 * `import href from 'some/file.css?url'` (or a worker script `?url`): the file becomes a build
 * output with a content-hashed name (under assets/, in the manifest, precompressed like the rest)
 * and the import is its path relative to the importing chunk (`new URL(href, import.meta.url)`).
 * Lazy elements load their stylesheets, MapLibre's worker and Plotly's bundle this way, with no
 * per-page cost: the shell need not list them, and CSS imported from a lazy chunk would
 * otherwise also be merged into app.css, which every page loads.
 * @param {{ minify: boolean, target: string[] }} options
 * @returns {import('esbuild').Plugin}
 */
export function assetUrls({ minify, target }, { stripFontFaces = [] } = {}) {
  return {
    name: 'asset-urls',
    setup(b) {
      b.onResolve({ filter: /\?url$/ }, (args) => {
        const file = args.path.startsWith('.') ? join(args.resolveDir, args.path.slice(0, -4)) : require.resolve(args.path.slice(0, -4))
        // `.mjs` becomes `.js`: the page server knows that type, and module workers need a JavaScript MIME type.
        // The path is relative to the project: esbuild hashes a plugin namespace's paths as they are,
        // so an absolute one would give each checkout other chunk names (and other bundle sizes).
        const id = relative(b.initialOptions.absWorkingDir ?? process.cwd(), file).replace(/\.mjs$/, '.js')
        return { path: id, namespace: 'asset-url', pluginData: { file } }
      })
      b.onLoad({ filter: /.*/, namespace: 'asset-url' }, async (args) => {
        const { file } = args.pluginData
        const source = await readFile(file)
        // Our own stylesheets are minified like app.css; library files ship minified already.
        const css = file.endsWith('.css') && !file.includes('node_modules') && minify
        let contents = css ? (await transform(source, { loader: 'css', minify: true, target })).code : source
        // A stylesheet whose fonts its chunk registers itself (FontFace), from files of their own.
        if (stripFontFaces.some((f) => file.endsWith(f))) contents = source.toString('utf8').replace(/@font-face\s*\{[^}]*\}/g, '')
        return { contents, loader: 'file', watchFiles: [file] }
      })
    },
  }
}

/**
 * `import href from './some-worker.ts?worker'`: the module is bundled on its own (ESM, for
 * `new Worker(url, { type: 'module' })`) and becomes a content-hashed file under assets/, like a
 * `?url` import. Graphviz runs in such a worker: its WebAssembly is compiled there, where the
 * page's Content-Security-Policy (no 'wasm-unsafe-eval') does not apply, and a large graph's
 * layout does not block the page.
 * @param {{ minify: boolean, target: string[] }} options
 * @returns {import('esbuild').Plugin}
 */
export function workerUrls({ minify, target }) {
  return {
    name: 'worker-urls',
    setup(b) {
      b.onResolve({ filter: /\?worker$/ }, (args) => {
        const file = join(args.resolveDir, args.path.slice(0, -'?worker'.length)).replace(/\.js$/, '.ts')
        const id = relative(b.initialOptions.absWorkingDir ?? process.cwd(), file).replace(/\.ts$/, '.js')
        return { path: id, namespace: 'worker-url', pluginData: { file } }
      })
      b.onLoad({ filter: /.*/, namespace: 'worker-url' }, async (args) => {
        const { file } = args.pluginData
        const out = await build({ entryPoints: [file], bundle: true, write: false, format: 'esm', platform: 'browser', minify, target, legalComments: 'none', metafile: true, logLevel: 'warning' })
        return { contents: out.outputFiles[0].contents, loader: 'file', watchFiles: Object.keys(out.metafile.inputs).map((f) => join(b.initialOptions.absWorkingDir ?? process.cwd(), f)) }
      })
    },
  }
}

/**
 * highlight.js ships its core as CommonJS whose only tie to CommonJS is one `module.exports =
 * highlight` (no `require`). Bundled as it is, esbuild's CommonJS helpers would join the runtime
 * chunk app.js loads on every page; read as the ES module it is otherwise, the highlighter chunk
 * keeps its cost to itself. Any other layout (a new highlight.js) is bundled as CommonJS.
 * @type {import('esbuild').Plugin}
 */
export const highlightCoreAsEsm = {
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

/**
 * A small module that only lazy chunks import (theme helpers, lazy/view.ts's rerun check) would
 * otherwise become a shared chunk of its own: one more request, before the element can draw, for
 * a few hundred bytes. Each importer gets its own copy instead (esbuild keys a module by path and
 * suffix), as a bundler's minimum chunk size would decide. Only for stateless modules: each copy
 * has its own variables.
 * @param {string[]} files paths relative to the project
 * @returns {import('esbuild').Plugin}
 */
export function copyIntoEachChunk(files) {
  return {
    name: 'copy-into-each-chunk',
    setup(b) {
      const root = b.initialOptions.absWorkingDir ?? process.cwd()
      const wanted = new Set(files.map((f) => join(root, f)))
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.pluginData?.copyOf) return undefined
        const file = join(args.resolveDir, args.path).replace(/\.js$/, '.ts')
        if (!wanted.has(file)) return undefined
        // The importer's path, relative (the same names in any checkout), tells the copies apart.
        return { path: file, suffix: `?copy-for=${relative(root, args.importer).split('\\').join('/')}` }
      })
    },
  }
}

/**
 * Packages bundled once, from the project's own node_modules, even where a dependency pins a
 * copy of its own: vega-lite 6.4 pins vega-expression ~6.1.0 while vega uses 6.2, which put both
 * (23 kB each) into the chart chunk. The API vega-lite uses is the same in both (6.2 adds
 * `encodeURIComponent` and reads quoted object keys in expressions).
 * @param {string[]} names package names
 * @returns {import('esbuild').Plugin}
 */
export function singleCopy(names) {
  const filter = new RegExp(`^(?:${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`)
  return {
    name: 'single-copy',
    setup(b) {
      const root = b.initialOptions.absWorkingDir ?? process.cwd()
      b.onResolve({ filter }, async (args) => {
        if (args.pluginData?.singleCopy || args.resolveDir === root) return undefined
        // esbuild's own resolution (browser field, export conditions), as if the project imported it.
        const found = await b.resolve(args.path, { kind: args.kind, resolveDir: root, pluginData: { singleCopy: true } })
        return found.errors.length > 0 ? { errors: found.errors } : { path: found.path, namespace: found.namespace, sideEffects: found.sideEffects }
      })
    },
  }
}
