import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { REPO } from '../../helpers/svc-process.js'

describe('the built zod entry (scripts/bundle-zod.mjs)', () => {
  const built = `${REPO}dist/src/internal/zod.js`

  it('is one file that imports nothing', () => {
    const text = readFileSync(built, 'utf8')
    expect(text).toMatch(/^\/\/ zod \d+\.\d+\.\d+ \(MIT License/)
    expect(text).not.toMatch(/^\s*(?:import|export)\s[^;]*\bfrom\s*['"]|^\s*import\s|\bimport\(['"]|\brequire\(['"]/m)
  })

  it('validates and reports as the zod package does', () => {
    const script = `
      const { z } = await import(${JSON.stringify(built)})
      const r = z.object({ port: z.number().int().min(1) }).safeParse({ port: 0 })
      console.log(JSON.stringify(r.error.issues.map((i) => [i.path.join('.'), i.code, i.message])))`
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(JSON.parse(out)).toEqual([['port', 'too_small', 'Too small: expected number to be >=1']])
  })
})
