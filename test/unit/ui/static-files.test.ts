import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readStatic } from '../../../src/ui/server/static-files.js'

describe('client static files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-static-'))
  mkdirSync(join(dir, 'chunks'))
  writeFileSync(join(dir, 'app.js'), 'import("./chunks/render-AB12.js")')
  writeFileSync(join(dir, 'app.css'), 'body{}')
  writeFileSync(join(dir, 'chunks', 'render-AB12.js'), 'export const x = 1')
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('serves hashed chunks as immutable and the entry files as revalidated', async () => {
    expect(await readStatic(dir, 'chunks/render-AB12.js')).toMatchObject({ type: 'text/javascript; charset=utf-8', cacheControl: 'public, max-age=31536000, immutable' })
    expect(await readStatic(dir, 'app.js')).toMatchObject({ type: 'text/javascript; charset=utf-8', cacheControl: 'no-cache' })
    expect(await readStatic(dir, 'app.css')).toMatchObject({ type: 'text/css; charset=utf-8', cacheControl: 'no-cache' })
  })

  it('refuses names outside the client dir and missing files', async () => {
    expect(await readStatic(dir, '../etc/passwd')).toBeUndefined()
    expect(await readStatic(dir, 'chunks/../../x.js')).toBeUndefined()
    expect(await readStatic(dir, 'chunks/missing.js')).toBeUndefined()
  })
})
