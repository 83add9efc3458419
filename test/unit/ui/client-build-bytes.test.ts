import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildClient } from '../../../scripts/client-build.mjs'
import { copyIntoEachChunk, singleCopy } from '../../../scripts/client-plugins.mjs'

/**
 * What keeps a first visit small (issue #25): no shared chunk of a few hundred bytes for helpers
 * only lazy chunks use (one request more before a chart draws), one copy of a package a
 * dependency pins a copy of (vega-lite's vega-expression), and private class members left native.
 */
describe('client build: no extra chunks, no second copies, no lowered private fields', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-client-bytes-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  const write = (name: string, text: string): void => {
    mkdirSync(join(root, name, '..'), { recursive: true })
    writeFileSync(join(root, name), text)
  }
  write('src/main.ts', "export const load = [() => import('./lazy/chart.js'), () => import('./lazy/map.js')]\nexport class Counter { #n = 0; next(): number { return ++this.#n } }\n")
  write('src/lazy/theme.ts', "export function themeOf(): string { return document.documentElement.getAttribute('data-theme') ?? 'light-theme-default' }\n")
  write('src/lazy/chart.ts', "import { themeOf } from './theme.js'\nimport { expr } from 'lib'\nimport { expr as own } from 'expr'\nexport const chart = (): string => themeOf() + expr() + own()\n")
  write('src/lazy/map.ts', "import { themeOf } from './theme.js'\nexport const map = (): string => themeOf()\n")
  // `lib` pins an older `expr` of its own, as vega-lite pins vega-expression.
  write('node_modules/expr/package.json', JSON.stringify({ name: 'expr', version: '2.0.0', main: 'index.js' }))
  write('node_modules/expr/index.js', "export const expr = () => 'expr-two-point-oh'\n")
  write('node_modules/lib/package.json', JSON.stringify({ name: 'lib', version: '1.0.0', main: 'index.js' }))
  write('node_modules/lib/index.js', "export { expr } from 'expr'\n")
  write('node_modules/lib/node_modules/expr/package.json', JSON.stringify({ name: 'expr', version: '1.0.0', main: 'index.js' }))
  write('node_modules/lib/node_modules/expr/index.js', "export const expr = () => 'expr-one-point-oh'\n")

  const build = async (name: string, withPlugins: boolean): Promise<Record<string, string>> => {
    const outdir = join(root, name)
    const manifest = await buildClient({
      root,
      outdir,
      clientSrc: 'src',
      entries: [{ name: 'app', source: 'src/main.ts', format: 'esm' }],
      plugins: () => (withPlugins ? [copyIntoEachChunk(['src/lazy/theme.ts']), singleCopy(['expr'])] : []),
    })
    return Object.fromEntries(Object.keys(manifest!.files).filter((f) => f.endsWith('.js')).map((f) => [f, readFileSync(join(outdir, f), 'utf8')]))
  }

  it('without the plugins: a shared chunk for the theme helper and both copies of the pinned package', async () => {
    const files = await build('plain', false)
    expect(Object.keys(files).filter((f) => f.startsWith('chunks/chunk-')).length).toBeGreaterThan(0)
    const all = Object.values(files).join('\n')
    expect(all).toContain('expr-one-point-oh')
    expect(all).toContain('expr-two-point-oh')
  })

  it('with them: each lazy chunk has the helper, no chunk of its own; one copy of the package', async () => {
    const files = await build('small', true)
    expect(Object.keys(files).filter((f) => f.startsWith('chunks/chunk-'))).toEqual([])
    const chart = Object.entries(files).find(([f]) => f.startsWith('chunks/chart-'))![1]
    const map = Object.entries(files).find(([f]) => f.startsWith('chunks/map-'))![1]
    for (const chunk of [chart, map]) {
      expect(chunk).toContain('light-theme-default')
      expect(chunk).not.toMatch(/from\s*"\.\/chunk-/)
    }
    const all = Object.values(files).join('\n')
    expect(all).not.toContain('expr-one-point-oh')
    expect(all).toContain('expr-two-point-oh')
  })

  it('keeps private class fields native: every browser the build targets runs them', async () => {
    const files = await build('private', true)
    const app = Object.entries(files).find(([f]) => f.startsWith('app-'))![1]
    expect(app).toMatch(/#\w+\s*=\s*0/)
    expect(app).not.toContain('WeakMap')
  })
})
