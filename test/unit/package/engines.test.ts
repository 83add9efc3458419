import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import semver from 'semver'
import { describe, expect, it } from 'vitest'

/**
 * package.json "engines" must hold for the whole installed tree: every Node version svc claims
 * is one every locked package accepts, so `npm install` / `npm ci` never warns EBADENGINE on a
 * supported Node. npm skips the engine check for optional packages (platform builds), so do we.
 */
const ROOT = join(import.meta.dirname, '..', '..', '..')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; optional?: boolean; engines?: Record<string, string> | string[] }>
}
const claimed = pkg.engines.node

describe('engines', () => {
  it('claims a valid range that this Node satisfies', () => {
    expect(semver.validRange(claimed)).not.toBeNull()
    expect(semver.satisfies(process.version, claimed), `${process.version} vs engines ${claimed}`).toBe(true)
  })

  it('every locked, non-optional package accepts every Node version package.json claims', () => {
    const refused: string[] = []
    for (const [path, entry] of Object.entries(lock.packages)) {
      // Old-style array engines are advisory only; npm ignores them.
      const range = path === '' || entry.optional || Array.isArray(entry.engines) ? undefined : entry.engines?.node
      if (range && !semver.subset(claimed, range)) refused.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} needs node ${range}`)
    }
    expect(refused, `package.json engines.node is ${claimed}`).toEqual([])
  })
})
