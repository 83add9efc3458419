import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolvePidfilePath } from '../../../src/cli/shutdown/pidfile-path.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-pidfile-path-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('resolvePidfilePath', () => {
  it('prefers the flag, then SVC_PIDFILE, then svc.config.json, then ./.svc.pid', async () => {
    expect(resolvePidfilePath(undefined, {}, dir)).toBe(join(dir, '.svc.pid'))
    await writeFile(join(dir, 'svc.config.json'), JSON.stringify({ pidfile: 'run/from-config.pid' }))
    expect(resolvePidfilePath(undefined, {}, dir)).toBe(join(dir, 'run/from-config.pid'))
    expect(resolvePidfilePath(undefined, { SVC_PIDFILE: 'env.pid' }, dir)).toBe(join(dir, 'env.pid'))
    expect(resolvePidfilePath('/abs/flag.pid', { SVC_PIDFILE: 'env.pid' }, dir)).toBe('/abs/flag.pid')
  })

  it('ignores a broken svc.config.json', async () => {
    await writeFile(join(dir, 'svc.config.json'), '{ not json')
    expect(resolvePidfilePath(undefined, {}, dir)).toBe(join(dir, '.svc.pid'))
  })
})
