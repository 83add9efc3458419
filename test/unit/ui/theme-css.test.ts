import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

/** The page client's stylesheets keep every colour in a --svc-* variable, so the dark theme and `theme` reach all of it. */

const dir = new URL('../../../src/ui/client/styles/', import.meta.url)
const sheets = readdirSync(dir).filter((f) => f.endsWith('.css'))
const read = (f: string) => readFileSync(new URL(f, dir), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '')
const base = read('base.css')

/** Declared variable names inside the first rule whose selector matches. */
function declared(selector: string): Set<string> {
  const start = base.indexOf(`${selector} {`)
  expect(start, `base.css has a ${selector} rule`).toBeGreaterThanOrEqual(0)
  const body = base.slice(start, base.indexOf('\n}', start))
  return new Set([...body.matchAll(/^\s*(--svc-[a-z0-9-]+):/gm)].map((m) => m[1]!))
}

describe('theme stylesheets', () => {
  const light = declared(':root')
  const dark = declared(":root[data-theme='dark']")

  it('no literal colours outside the variable definitions in base.css', () => {
    const colour = /#[0-9a-f]{3,8}\b|\b(?:rgba?|hsla?)\(|:\s*(?:white|black)\s*;/gi
    for (const f of sheets) {
      const text = f === 'base.css' ? base.replace(/:root(\[data-theme='dark'\])? \{[\s\S]*?\n\}/g, '') : read(f)
      expect(text.match(colour), `${f} has literal colours`).toBeNull()
    }
  })

  it('every variable the stylesheets use is defined, and dark only overrides defined ones', () => {
    for (const f of sheets) {
      for (const m of read(f).matchAll(/var\((--svc-[a-z0-9-]+)/g)) expect(light.has(m[1]!), `${f} uses undefined ${m[1]}`).toBe(true)
    }
    for (const name of dark) expect(light, `dark sets ${name}, which light does not define`).toContain(name)
  })

  it('docs/pages.md lists every variable', () => {
    const doc = readFileSync(new URL('../../../docs/pages.md', import.meta.url), 'utf8')
    const listed = (name: string) => doc.includes(`\`${name}\``) || (/^--svc-chart-([1-9]|10)$/.test(name) && doc.includes('`--svc-chart-1` … `--svc-chart-10`'))
    for (const name of light) expect(listed(name), `docs/pages.md lists ${name}`).toBe(true)
  })
})
