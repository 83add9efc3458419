import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { findTypeCheckProject } from '../../../../supervisor/type-check/find-project.js'
import { REPO } from '../../../helpers/svc-process.js'

/** svc dev type-checks only a project that has its own TypeScript and tsconfig.json; anything else is left alone. */
describe('findTypeCheckProject', () => {
  const dirs: string[] = []
  const project = (files: { tsconfig?: boolean; typescript?: boolean; nested?: boolean }): string => {
    const root = mkdtempSync(join(tmpdir(), 'svc-find-project-'))
    dirs.push(root)
    if (files.tsconfig) writeFileSync(join(root, 'tsconfig.json'), '{}')
    if (files.typescript) {
      mkdirSync(join(root, 'node_modules'))
      symlinkSync(join(REPO, 'node_modules', 'typescript'), join(root, 'node_modules', 'typescript'))
    }
    const app = files.nested ? join(root, 'src') : root
    mkdirSync(app, { recursive: true })
    return app
  }
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })

  it("finds the project's TypeScript and tsconfig.json, also from a folder below them", () => {
    for (const nested of [false, true]) {
      const found = findTypeCheckProject(project({ tsconfig: true, typescript: true, nested }))
      expect(found).toMatchObject({ typescript: expect.stringMatching(/node_modules\/typescript\/lib\/typescript\.js$/), tsconfig: expect.stringMatching(/tsconfig\.json$/) })
    }
  })

  it('says what is missing: TypeScript, or tsconfig.json', () => {
    expect(findTypeCheckProject(project({ tsconfig: true }))).toEqual({ missing: expect.stringMatching(/^no typescript installed for .* \(npm install --save-dev typescript\)$/) })
    expect(findTypeCheckProject(project({ typescript: true }))).toEqual({ missing: expect.stringMatching(/^no tsconfig\.json in .* or a folder above it$/) })
  })
})
