import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildClient } from '../../../scripts/client-build.mjs'
import { ClientAssets, IMMUTABLE, REVALIDATE } from '../../../src/ui/server/static-files.js'
import type { ClientManifest } from '../../../src/ui/server/client-manifest.js'

/**
 * The client build on a fixture with the shapes svc's own client has and other elements add: an
 * ESM entry with CSS, a lazy chunk with CSS of its own, a classic-script entry. Nothing in the
 * build names these files: the manifest must find them.
 */
describe('client build (scripts/client-build.mjs)', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-client-build-'))
  const outdir = join(root, 'out')
  let manifest: ClientManifest
  const source = (name: string, text: string): void => {
    mkdirSync(join(root, 'src', name, '..'), { recursive: true })
    writeFileSync(join(root, 'src', name), text)
  }
  beforeAll(async () => {
    source('main.ts', `import './main.css'\nexport async function show(): Promise<number> { return (await import('./maps-lazy/render.js')).draw() }\nexport const words = ${JSON.stringify(Array.from({ length: 300 }, (_, i) => `word${i % 40}`).join(' '))}\n`)
    source('main.css', `body { color: red }\n${'.x { margin: 0 }\n'.repeat(100)}`)
    source('maps-lazy/render.ts', "import './map.css'\nexport function draw(): number { return 42 }\n")
    source('maps-lazy/map.css', '.map { width: 100% }\n')
    source('theme.ts', "document.documentElement.dataset.theme = 'dark'\n")
    manifest = (await buildClient({
      root,
      outdir,
      clientSrc: 'src',
      entries: [
        { name: 'app', source: 'src/main.ts', format: 'esm' },
        { name: 'theme', source: 'src/theme.ts', format: 'iife' },
      ],
    }))!
  })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('names every file by its content hash and maps the entries plain names to them', () => {
    expect(manifest.entries['app.js']).toMatch(/^app-[A-Z0-9]{8}\.js$/)
    expect(manifest.entries['app.css']).toMatch(/^app-[A-Z0-9]{8}\.css$/)
    expect(manifest.entries['theme.js']).toMatch(/^theme-[A-Z0-9]{8}\.js$/)
    const files = Object.keys(manifest.files)
    expect(files.find((f) => f.startsWith('chunks/render-') && f.endsWith('.js'))).toMatch(/^chunks\/render-[A-Z0-9]{8}\.js$/)
    expect(JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8'))).toEqual(manifest)
  })

  it('lists the CSS of a lazy chunk by the chunk, so the client can load it with the chunk', () => {
    expect(manifest.chunkStyles).toEqual({ 'maps-lazy/render': expect.stringMatching(/^chunks\/render-[A-Z0-9]{8}\.css$/) })
    expect(readFileSync(join(outdir, manifest.chunkStyles['maps-lazy/render']!), 'utf8')).toContain('.map')
  })

  it('writes each file precompressed (brotli and gzip) where that is smaller, with the sizes in the manifest', () => {
    const app = manifest.entries['app.js']!
    const sizes = manifest.files[app]!
    const plain = readFileSync(join(outdir, app))
    expect(sizes.bytes).toBe(plain.byteLength)
    expect(sizes.br).toBeLessThan(sizes.bytes)
    expect(sizes.gzip).toBeLessThan(sizes.bytes)
    expect(brotliDecompressSync(readFileSync(join(outdir, `${app}.br`)))).toEqual(plain)
    expect(gunzipSync(readFileSync(join(outdir, `${app}.gz`)))).toEqual(plain)
    // Brotli at its highest quality beats gzip -9 on text.
    expect(sizes.br).toBeLessThan(sizes.gzip!)
    for (const [file, s] of Object.entries(manifest.files)) {
      if (s.br !== null) expect(readFileSync(join(outdir, `${file}.br`)).byteLength, file).toBe(s.br)
    }
  })

  it('the server table serves hashed names as immutable and the plain entry names as revalidated, nothing else', () => {
    const assets = new ClientAssets(outdir)
    const app = manifest.entries['app.js']!
    expect(assets.get(app)).toMatchObject({ type: 'text/javascript; charset=utf-8', cacheControl: IMMUTABLE, etag: app, offered: ['br', 'gzip'] })
    expect(assets.get('app.js')).toMatchObject({ cacheControl: REVALIDATE, etag: app })
    expect(assets.get(manifest.entries['app.css']!)).toMatchObject({ type: 'text/css; charset=utf-8' })
    expect(assets.entry('theme.js')).toBe(manifest.entries['theme.js'])
    expect(assets.chunkStyles).toEqual(manifest.chunkStyles)
    for (const name of ['manifest.json', `${app}.br`, '../out/' + app, `chunks/../${app}`, 'missing.js', '']) expect(assets.get(name), name).toBeUndefined()
  })
})
