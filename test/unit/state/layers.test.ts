import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const stateDir = join(root, 'state')
/** `state/` is read by the CLI and the supervisor; it must not reach back up into either's policy. */
const FORBIDDEN = ['src/cli', 'src/settings']

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!)
  return specs.filter((s) => s.startsWith('.')).map((s) => relative(root, resolve(dirname(file), s)))
}

describe('state/ layering', () => {
  it('finds the imports it checks', () => {
    expect(importsOf(join(stateDir, 'state-file.ts'))).toContain('src/errors.js')
  })

  it('no module in state/ imports from src/cli or src/settings', () => {
    const files = readdirSync(stateDir).filter((f) => f.endsWith('.ts'))
    expect(files.length).toBeGreaterThan(0)
    const bad = files.flatMap((f) =>
      importsOf(join(stateDir, f))
        .filter((target) => FORBIDDEN.some((dir) => target === dir || target.startsWith(dir + '/')))
        .map((target) => `state/${f} -> ${target}`),
    )
    expect(bad).toEqual([])
  })
})
