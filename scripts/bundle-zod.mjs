// Replaces dist/src/internal/zod.js (tsc's `export { z } from 'zod'`) with a one-file bundle of
// zod: its ESM build is 95 modules, and loading them cost each svc process about 40 ms more than
// one file (src/internal/zod.ts). Type declarations are left as tsc wrote them.
import { build } from 'esbuild'
import { readFile, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const entry = join(root, 'dist', 'src', 'internal', 'zod.js')
const { version } = JSON.parse(await readFile(join(root, 'node_modules', 'zod', 'package.json'), 'utf8'))

await build({
  absWorkingDir: root,
  entryPoints: [entry],
  outfile: entry,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // ASCII only (characters escaped, comments dropped): V8 then keeps the source as a one-byte
  // string, 0.6 MB instead of 1.5 MB in every isolate (each process and each page thread).
  charset: 'ascii',
  minifyWhitespace: true,
  banner: { js: `// zod ${version} (MIT License, https://github.com/colinhacks/zod), bundled by scripts/bundle-zod.mjs` },
  logLevel: 'warning',
})
// tsc's source map described the one-line re-export.
await rm(`${entry}.map`, { force: true })
