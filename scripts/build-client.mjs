// Bundles the browser client of the page runtime (src/ui/client) into dist/client: the app entry
// (JS + CSS, every page), theme (the pre-paint theme script) and chunks/ that the app imports on
// demand (the chart library is one: pages without charts never load it). ESM with code splitting.
//
// Every output file has a content hash in its name, so the page server serves it as immutable; a
// new build means new names. manifest.json maps the entries' plain names (app.js, app.css,
// theme.js) to the hashed ones for the HTML shell, lists every file with its sizes, and names the
// CSS file of each lazy chunk that imports CSS (loaded by the client with the chunk). Each file
// is also written precompressed (.br at brotli's highest quality, .gz at gzip -9): the server
// picks one by Accept-Encoding and never compresses a static file per request. A new entry point
// or a new lazy chunk needs nothing here beyond its import. `--watch` rebuilds on change and
// rewrites the manifest (without precompressing; old files stay until the next full build).
import { build, context } from 'esbuild'
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const outdir = join(root, 'dist', 'client')
const clientSrc = 'src/ui/client'
const watch = process.argv.includes('--watch')

/** What compresses: text formats. Images and fonts (woff2, png) are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|svg|json|map|txt|html)$/

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
  entryNames: '[name]-[hash]',
  chunkNames: 'chunks/[name]-[hash]',
  assetNames: 'assets/[name]-[hash]',
}

/** @type {import('esbuild').BuildOptions} */
const app = { ...common, entryPoints: { app: `${clientSrc}/main.tsx` }, format: 'esm', splitting: true }

/**
 * theme.js runs as a classic blocking script in <head> (before first paint), so it is its own
 * self-contained IIFE: in the ESM build it would share chunks with app.js and need `import`.
 */
/** @type {import('esbuild').BuildOptions} */
const theme = { ...common, entryPoints: { theme: `${clientSrc}/theme-init.ts` }, format: 'iife' }

const builds = [app, theme]

/**
 * The manifest from the builds' metafiles: entries by plain name, every output file, and the CSS
 * of lazy chunks keyed by their source path under src/ui/client without extension
 * (`charts-lazy/render`).
 * @param {import('esbuild').Metafile[]} metafiles
 */
function manifestOf(metafiles) {
  /** @type {Record<string, string>} */
  const entries = {}
  /** @type {Record<string, string>} */
  const chunkStyles = {}
  /** @type {string[]} */
  const files = []
  const declared = new Map(builds.flatMap((b) => Object.entries(b.entryPoints).map(([name, source]) => [source, name])))
  const rel = (output) => relative(outdir, join(root, output)).split('\\').join('/')
  for (const metafile of metafiles) {
    for (const [output, info] of Object.entries(metafile.outputs)) {
      files.push(rel(output))
      if (info.entryPoint === undefined) continue
      const name = declared.get(info.entryPoint)
      if (name !== undefined) {
        entries[`${name}.js`] = rel(output)
        if (info.cssBundle) entries[`${name}.css`] = rel(info.cssBundle)
      } else if (info.cssBundle) {
        chunkStyles[relative(clientSrc, info.entryPoint).replace(/\.[cm]?[jt]sx?$/, '').split('\\').join('/')] = rel(info.cssBundle)
      }
    }
  }
  return { entries, chunkStyles, files: files.sort() }
}

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/** Sizes of one output file, writing its .br and .gz beside it (only where they are smaller). */
async function precompress(file) {
  const path = join(outdir, file)
  const bytes = await readFile(path)
  if (!COMPRESSIBLE.test(file)) return { bytes: bytes.byteLength, br: null, gzip: null }
  const [br, gz] = await Promise.all([
    brotli(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
      },
    }),
    gzipAsync(bytes, { level: constants.Z_BEST_COMPRESSION }),
  ])
  const keep = async (suffix, body) => {
    if (body.byteLength >= bytes.byteLength) return null
    await writeFile(path + suffix, body)
    return body.byteLength
  }
  return { bytes: bytes.byteLength, br: await keep('.br', br), gzip: await keep('.gz', gz) }
}

/** Sizes without precompressing (watch mode). */
async function measure(file) {
  return { bytes: (await stat(join(outdir, file))).size, br: null, gzip: null }
}

async function writeManifest(metafiles, sizeOf) {
  const { entries, chunkStyles, files } = manifestOf(metafiles)
  const sized = await Promise.all(files.map(async (f) => [f, await sizeOf(f)]))
  const manifest = { version: 1, entries, chunkStyles, files: Object.fromEntries(sized) }
  await writeFile(join(outdir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n')
  return manifest
}

const kB = (n) => `${(n / 1024).toFixed(1)} kB`

// Files of earlier builds would pile up (their names change with their content).
await rm(outdir, { recursive: true, force: true })
await mkdir(outdir, { recursive: true })
if (watch) {
  const latest = new Map()
  for (const options of builds) {
    const plugin = {
      name: 'svc-manifest',
      setup(b) {
        b.onEnd(async (result) => {
          if (!result.metafile) return
          latest.set(options, result.metafile)
          if (latest.size === builds.length) await writeManifest([...latest.values()], measure)
        })
      },
    }
    await (await context({ ...options, plugins: [plugin] })).watch()
  }
  console.error(`build-client: watching ${clientSrc} → ${outdir}`)
} else {
  const results = await Promise.all(builds.map((options) => build(options)))
  const manifest = await writeManifest(results.map((r) => r.metafile), precompress)
  const plain = new Map(Object.entries(manifest.entries).map(([name, file]) => [file, name]))
  const line = Object.entries(manifest.files).map(([file, s]) => {
    const label = plain.has(file) ? `${plain.get(file)} (${basename(file)})` : file
    return `${label} ${kB(s.bytes)}${s.br === null ? '' : ` (br ${kB(s.br)}, gzip ${kB(s.gzip ?? s.bytes)})`}`
  })
  console.error(`build-client: ${line.join(', ')}`)
}
