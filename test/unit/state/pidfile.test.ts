import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isSvcError } from '../../../src/errors.js'
import {
  parsePidfile,
  readPidfile,
  readPidfileSync,
  removePidfile,
  writePidfile,
} from '../../../state/pidfile.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-pidfile-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('writePidfile / readPidfile', () => {
  it('writes "<pid>\\n", creating parent directories, and reads it back', async () => {
    const path = join(dir, 'run', 'nested', 'svc.pid')
    await writePidfile(path, 4321)
    expect(await readFile(path, 'utf8')).toBe('4321\n')
    expect(await readPidfile(path)).toEqual({ kind: 'ok', pid: 4321 })
    expect(readPidfileSync(path)).toEqual({ kind: 'ok', pid: 4321 })
  })

  it('defaults to the current process id and leaves no temp file behind', async () => {
    const path = join(dir, '.svc.pid')
    await writePidfile(path)
    expect(await readPidfile(path)).toEqual({ kind: 'ok', pid: process.pid })
    expect(await readdir(dir)).toEqual(['.svc.pid'])
  })

  it('replaces an existing pidfile', async () => {
    const path = join(dir, '.svc.pid')
    await writePidfile(path, 100)
    await writePidfile(path, 200)
    expect(await readPidfile(path)).toEqual({ kind: 'ok', pid: 200 })
  })

  it('reports a missing file', async () => {
    expect(await readPidfile(join(dir, 'nope.pid'))).toEqual({ kind: 'missing' })
    expect(readPidfileSync(join(dir, 'nope.pid'))).toEqual({ kind: 'missing' })
  })

  it.each(['', 'abc', '12 34', '-5', '0', '1', '3.5', '99999999999', 'pid=12'])('treats %j as invalid', async (raw) => {
    const path = join(dir, '.svc.pid')
    await writeFile(path, raw)
    expect(await readPidfile(path)).toEqual({ kind: 'invalid', raw })
  })

  it('accepts surrounding whitespace', async () => {
    const path = join(dir, '.svc.pid')
    await writeFile(path, '  77 \r\n')
    expect(await readPidfile(path)).toEqual({ kind: 'ok', pid: 77 })
  })

  it('reports an unreadable path (a directory) as invalid', async () => {
    const path = join(dir, 'adir')
    await mkdir(path)
    const read = await readPidfile(path)
    expect(read.kind).toBe('invalid')
  })
})

describe('parsePidfile', () => {
  it('returns the pid or throws SVC_ERR_PIDFILE_INVALID naming the content', () => {
    expect(parsePidfile('55\n')).toBe(55)
    try {
      parsePidfile('garbage', '/x/.svc.pid')
      expect.unreachable()
    } catch (err) {
      expect(isSvcError(err) && err.code).toBe('SVC_ERR_PIDFILE_INVALID')
      expect((err as Error).message).toContain('/x/.svc.pid holds "garbage"')
    }
  })
})

describe('removePidfile', () => {
  it('removes the file and ignores a missing one', async () => {
    const path = join(dir, '.svc.pid')
    await writePidfile(path, 10)
    await removePidfile(path)
    await removePidfile(path)
    expect(await readPidfile(path)).toEqual({ kind: 'missing' })
  })
})
