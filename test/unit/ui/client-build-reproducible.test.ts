import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildClient } from '../../../scripts/client-build.mjs'
import { assetUrls } from '../../../scripts/client-plugins.mjs'

/**
 * The same sources built in two folders give the same files: CI checks docs/performance.md's
 * bundle sizes against its own build, and a chunk name that depended on the checkout's path
 * changed app.js (which names its chunks) and so its compressed size.
 */
describe('client build is the same in any folder', () => {
  const roots: string[] = []
  afterAll(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true })
  })

  const buildIn = async (): Promise<string[]> => {
    const root = mkdtempSync(join(tmpdir(), 'svc-client-repro-'))
    roots.push(root)
    const source = (name: string, text: string): void => {
      mkdirSync(join(root, 'src', name, '..'), { recursive: true })
      writeFileSync(join(root, 'src', name), text)
    }
    source('main.ts', "export async function show(): Promise<string> { return (await import('./lazy/render.js')).href }\n")
    source('lazy/render.ts', "import sheet from './render.css?url'\nexport const href = new URL(sheet, import.meta.url).href\n")
    source('lazy/render.css', '.render { width: 100% }\n')
    source('url.d.ts', "declare module '*?url' { const href: string; export default href }\n")
    const manifest = await buildClient({
      root,
      outdir: join(root, 'out'),
      clientSrc: 'src',
      entries: [{ name: 'app', source: 'src/main.ts', format: 'esm' }],
      plugins: (options) => [assetUrls(options)],
    })
    return Object.keys(manifest!.files).sort()
  }

  it('names chunks and `?url` assets by content, not by the checkout path', async () => {
    const first = await buildIn()
    const second = await buildIn()
    expect(first.some((f) => f.startsWith('assets/render-')), 'the ?url stylesheet is an asset').toBe(true)
    expect(second).toEqual(first)
  })
})
