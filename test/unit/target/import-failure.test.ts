import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { analyzeImportFailure } from '../../../src/target/import-failure.js'
import { devLoadError, exportLostError } from '../../../src/ui/server/dev-load-error.js'

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'svc-import-failure-')))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function withStack(message: string, stack: string[], props: Record<string, unknown> = {}): Error {
  const err = Object.assign(new Error(message), props)
  err.stack = [`Error: ${message}`, ...stack].join('\n')
  return err
}

describe('analyzeImportFailure', () => {
  it('esbuild: the place with a 1-based column (esbuild counts from 0), as editors and terminals link it', () => {
    const app = join(dir, 'app.ts')
    const err = new Error(`Transform failed with 1 error:\n${app}:2:19: ERROR: Unexpected ";"`)
    const f = analyzeImportFailure(app, err, dir)
    expect(f.at).toEqual({ path: app, line: 2, column: 20 })
    expect(f.cause).toBe('syntax error: Unexpected ";"')
    expect(f.summary).toBe('cannot load app.ts: syntax error at app.ts:2:20: Unexpected ";"; fix the code there')
  })

  it('a missing package (ESM): the importing line is found in the file', () => {
    const app = join(dir, 'esm-missing.ts')
    writeFileSync(app, "import { Svc } from 'svc'\n\nimport chalk from \"chalk-nope\"\n")
    const err = Object.assign(new Error(`Cannot find package 'chalk-nope' imported from ${app}`), { code: 'ERR_MODULE_NOT_FOUND' })
    const f = analyzeImportFailure(app, err, dir)
    expect(f.at).toEqual({ path: app, line: 3, column: 19 })
    expect(f.summary).toBe('cannot load esm-missing.ts: cannot find package "chalk-nope" (imported from esm-missing.ts); install it (npm install chalk-nope) or fix the import')
  })

  it('a missing relative module Node resolved to an absolute path is found by its file name', () => {
    const app = join(dir, 'esm-rel.ts')
    writeFileSync(app, "import { a } from './lib/gone.js'\n")
    const err = Object.assign(new Error(`Cannot find module '${dir}/lib/gone.js' imported from ${app}`), { code: 'ERR_MODULE_NOT_FOUND' })
    const f = analyzeImportFailure(app, err, dir)
    expect(f.at).toEqual({ path: app, line: 1, column: 19 })
    expect(f.cause).toBe('cannot find module lib/gone.js')
  })

  it('a missing module under CommonJS, as a dev reload (tsx namespace) reports it', () => {
    const app = join(dir, 'cjs-missing.ts')
    writeFileSync(app, "const x = 1\nimport lodash from 'lodash-nope'\n")
    const err = Object.assign(new Error(`Cannot find module 'lodash-nope'\nRequire stack:\n- ${app}?namespace=ddc95544-d658`), { code: 'MODULE_NOT_FOUND' })
    const f = analyzeImportFailure(app, err, dir)
    expect(f.at).toEqual({ path: app, line: 2, column: 20 })
    expect(f.summary).toBe('cannot load cjs-missing.ts: cannot find package "lodash-nope" (imported from cjs-missing.ts); install it (npm install lodash-nope) or fix the import')
  })

  it('a throw at import: the first user frame, without the query tsx adds to re-imported modules', () => {
    const app = join(dir, 'throws.ts')
    const err = withStack('kaput', [
      `    at boom (file://${app}?tsx-namespace=1700000000000:4:9)`,
      `    at file://${app}?tsx-namespace=1700000000000:6:1`,
      '    at ModuleJob.run (node:internal/modules/esm/module_job:271:25)',
    ])
    const f = analyzeImportFailure(app, err, dir)
    expect(f.at).toEqual({ path: app, line: 4, column: 9 })
    expect(f.summary).toBe('cannot load throws.ts: Error: kaput (at throws.ts:4:9); fix the code that throws there (the app module runs at import)')
  })
})

describe('devLoadError (the browser overlay of svc dev --reload)', () => {
  it('carries the place relative to the working directory and a code frame around the line', () => {
    const app = join(dir, 'frame.ts')
    writeFileSync(app, ['line 1', 'line 2', 'line 3', 'bad line 4', 'line 5', 'line 6', 'line 7', ''].join('\n'))
    const e = devLoadError(app, new Error(`Transform failed with 1 error:\n${app}:4:4: ERROR: Unexpected "line"`), dir)
    expect(e).toMatchObject({ file: 'frame.ts', line: 4, column: 5, cause: 'syntax error: Unexpected "line"', fix: 'fix the code there' })
    expect(e.frame).toEqual([
      { line: 2, text: 'line 2' },
      { line: 3, text: 'line 3' },
      { line: 4, text: 'bad line 4' },
      { line: 5, text: 'line 5' },
      { line: 6, text: 'line 6' },
    ])
  })

  it('stops the frame at the end of the file and cuts very long lines', () => {
    const app = join(dir, 'end.ts')
    writeFileSync(app, `ok\n${'x'.repeat(500)}\n`)
    const e = devLoadError(app, new Error(`Transform failed with 1 error:\n${app}:2:0: ERROR: boom`), dir)
    expect(e.frame.map((l) => l.line)).toEqual([1, 2])
    expect(e.frame[1]!.text).toHaveLength(201)
  })

  it('an error that names no place has no frame', () => {
    const e = devLoadError(join(dir, 'app.ts'), 'a string was thrown', dir)
    expect(e).toMatchObject({ file: null, line: null, column: null, frame: [] })
    expect(e.cause).toBe('Error: a string was thrown')
  })

  it('a module that no longer exports the app says which export to restore', () => {
    const e = exportLostError(join(dir, 'app.ts'), 'app')
    expect(e.cause).toBe('no Svc app exported as "app"')
    expect(e.summary).toMatch(/^app\.ts no longer exports an Svc app as "app"; export the app as "app" again/)
  })
})
