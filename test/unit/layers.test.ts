import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return /\.tsx?$/.test(name) ? [path] : []
  })
}

/** Relative imports of a file (static and dynamic), as paths from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!)
  return specs.filter((s) => s.startsWith('.')).map((s) => relative(root, resolve(dirname(file), s)))
}

function violations(dir: string, forbidden: (target: string) => boolean): string[] {
  return sources(join(root, dir)).flatMap((file) =>
    importsOf(file)
      .filter(forbidden)
      .map((target) => `${relative(root, file)} -> ${target}`),
  )
}

const under = (dirs: string[]) => (target: string) => dirs.some((d) => target === d || target.startsWith(d + '/'))

describe('layers', () => {
  it('finds the imports it checks', () => {
    expect(importsOf(join(root, 'state/state-file.ts'))).toContain('src/errors.js')
    expect(importsOf(join(root, 'src/cli/commands/shutdown.ts'))).toContain('src/cli/shutdown/stop-supervisor.js')
  })

  it('state/ imports nothing from src/cli or src/settings (it is read by both the CLI and the supervisor)', () => {
    expect(violations('state', under(['src/cli', 'src/settings']))).toEqual([])
  })

  it('src/ui depends on the PageApp interface, not on the Svc class', () => {
    expect(violations('src/ui', (t) => t === 'src/app.js')).toEqual([])
  })
})
