// The build of the page runtime's browser client, as a function (scripts/build-client.mjs runs it
// for svc's client; test/unit/ui/client-build.test.ts runs it on a fixture).
//
// Every output file has a content hash in its name, so the page server serves it as immutable; a
// new build means new names. manifest.json maps the entries' plain names (app.js, app.css,
// theme.js) to the hashed ones for the HTML shell, lists every file with its sizes, and names the
// CSS file of each lazy chunk that imports CSS (src/ui/client/chunk-styles.ts loads it with the
// chunk). Each file is also written precompressed (.br at brotli's highest quality, .gz at gzip
// -9) where that is smaller: the server picks one by Accept-Encoding and never compresses a static
// file per request. A new entry point or lazy chunk needs nothing here beyond its import.
import { build, context } from 'esbuild'
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'

/** What compresses: text formats. Images and fonts (woff2, png) are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|svg|json|map|txt|html)$/

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/**
 * @param {{ root: string, outdir: string, clientSrc: string, entries: { name: string, source: string, format: 'esm' | 'iife' }[], watch?: boolean, plugins?: (options: { minify: boolean, target: string[] }) => import('esbuild').Plugin[] }} options
 *   `source` paths are relative to `root`; `clientSrc` (relative to `root`) is where chunk keys are taken from.
 *   `plugins` gives the esbuild plugins of the ESM builds (where lazy chunks live).
 */
export async function buildClient({ root, outdir, clientSrc, entries, watch = false, plugins = () => [] }) {
  /** @type {import('esbuild').BuildOptions} */
  const common = {
    absWorkingDir: root,
    outdir,
    bundle: true,
    platform: 'browser',
    // The browsers themselves, not a language level: all of them run class private fields and
    // methods, which an 'es2020' floor made esbuild rewrite into calls of WeakMap helpers (in
    // app.js, and the helpers in the runtime chunk every page loads beside it).
    target: ['chrome100', 'firefox100', 'safari15'],
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
  const extra = plugins({ minify: common.minify, target: common.target })
  const builds = entries.map((e) => ({ ...common, entryPoints: { [e.name]: e.source }, format: e.format, splitting: e.format === 'esm', plugins: e.format === 'esm' ? [...extra, unusedRuntimeImports] : [] }))
  const declared = new Map(entries.map((e) => [e.source, e.name]))
  const manifestOf = (metafiles) => {
    const plain = {}
    const chunkStyles = {}
    const files = []
    const rel = (output) => relative(outdir, join(root, output)).split('\\').join('/')
    for (const metafile of metafiles) {
      for (const [output, info] of Object.entries(metafile.outputs)) {
        files.push(rel(output))
        if (info.entryPoint === undefined) continue
        const name = declared.get(info.entryPoint)
        if (name !== undefined) {
          plain[`${name}.js`] = rel(output)
          if (info.cssBundle) plain[`${name}.css`] = rel(info.cssBundle)
        } else if (info.cssBundle) {
          chunkStyles[relative(clientSrc, info.entryPoint).replace(/\.[cm]?[jt]sx?$/, '').split('\\').join('/')] = rel(info.cssBundle)
        }
      }
    }
    return { entries: plain, chunkStyles, files: files.sort() }
  }
  const writeManifest = async (metafiles, sizeOf) => {
    const { entries: plain, chunkStyles, files } = manifestOf(metafiles)
    const sized = await Promise.all(files.map(async (f) => [f, await sizeOf(join(outdir, f))]))
    const manifest = { version: 1, entries: plain, chunkStyles, files: Object.fromEntries(sized) }
    await writeFile(join(outdir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n')
    return manifest
  }

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
      await (await context({ ...options, plugins: [...options.plugins, plugin] })).watch()
    }
    return null
  }
  const results = await Promise.all(builds.map((options) => build(options)))
  return writeManifest(results.map((r) => r.metafile), precompress)
}

/**
 * With code splitting, esbuild puts its own helpers (`__export`, used by a namespace import in the
 * chart chunk) in a chunk of their own and imports it from every entry and chunk for its side
 * effects, though it has none: a request of every page for a file it does not use. This drops
 * those bare imports (`import"./chunk-X.js";`) of a chunk made of esbuild's helpers alone; a file
 * that uses a helper imports it by name and keeps its import.
 * @type {import('esbuild').Plugin}
 */
const unusedRuntimeImports = {
  name: 'unused-runtime-imports',
  setup(b) {
    const root = b.initialOptions.absWorkingDir ?? process.cwd()
    b.onEnd(async (result) => {
      if (!result.metafile || result.errors.length > 0) return
      const outputs = Object.entries(result.metafile.outputs)
      // Such a chunk lists no inputs in the metafile: none of its code comes from a source file.
      const helpers = new Set(outputs.filter(([f, o]) => f.endsWith('.js') && Object.keys(o.inputs).length === 0).map(([f]) => f))
      if (helpers.size === 0) return
      await Promise.all(
        outputs.map(async ([file, o]) => {
          const bare = o.imports.filter((i) => helpers.has(i.path) && i.kind === 'import-statement').map((i) => `import"./${relative(dirname(file), i.path).split('\\').join('/')}";`)
          if (bare.length === 0) return
          const path = join(root, file)
          const text = await readFile(path, 'utf8')
          const kept = bare.reduce((t, line) => t.replace(line, ''), text)
          if (kept !== text) await writeFile(path, kept)
        }),
      )
    })
  },
}

/** Sizes of one output file, writing its .br and .gz beside it (only where they are smaller). */
async function precompress(path) {
  const bytes = await readFile(path)
  if (!COMPRESSIBLE.test(path)) return { bytes: bytes.byteLength, br: null, gzip: null }
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

/** Sizes without precompressing (watch mode: old files stay until the next full build). */
async function measure(path) {
  return { bytes: (await stat(path)).size, br: null, gzip: null }
}
