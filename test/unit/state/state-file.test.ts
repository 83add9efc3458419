import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isSvcError } from '../../../src/errors.js'
import {
  parseSvcState,
  readStateFile,
  removeStateFile,
  removeStateFileSync,
  stateFilePath,
  writeStateFile,
} from '../../../state/state-file.js'
import { sampleState } from '../../helpers/cli-state.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-state-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (err) {
    return isSvcError(err) ? err.code : `not an SvcError: ${String(err)}`
  }
  return 'resolved'
}

describe('state file', () => {
  it('lives next to the pidfile', () => {
    expect(stateFilePath('/run/svc/.svc.pid')).toBe('/run/svc/.svc.pid.state.json')
  })

  it('round-trips snake_case JSON and leaves no temp file', async () => {
    const path = join(dir, 'sub', '.svc.pid.state.json')
    const state = sampleState({ cmdline: ['node', '/x/bin/svc.js', 'run'] })
    await writeStateFile(path, state)
    expect(await readStateFile(path)).toEqual(state)
    const raw = JSON.parse(await readFile(path, 'utf8'))
    expect(Object.keys(raw)).toEqual(expect.arrayContaining(['version', 'supervisor_pid', 'ui_upstream', 'gateway_port', 'workers', 'started_at']))
    expect(await readdir(join(dir, 'sub'))).toEqual(['.svc.pid.state.json'])
  })

  it('accepts a null sidecar pid and no workers', async () => {
    const path = join(dir, 's.json')
    await writeStateFile(path, sampleState({ sidecar_pid: null, workers: [] }))
    expect((await readStateFile(path)).sidecar_pid).toBeNull()
  })

  it('refuses to write an invalid state', async () => {
    const path = join(dir, 's.json')
    expect(await codeOf(writeStateFile(path, sampleState({ ui_upstream: 'not a url' })))).toBe('SVC_ERR_STATE_INVALID')
    expect(await readdir(dir)).toEqual([])
  })

  it('throws SVC_ERR_STATE_MISSING for a missing file', async () => {
    expect(await codeOf(readStateFile(join(dir, 'none.json')))).toBe('SVC_ERR_STATE_MISSING')
  })

  it('throws SVC_ERR_STATE_INVALID for bad JSON, a wrong version or a missing field', async () => {
    const path = join(dir, 's.json')
    await writeFile(path, '{ "version": 1, ')
    expect(await codeOf(readStateFile(path))).toBe('SVC_ERR_STATE_INVALID')
    await writeFile(path, JSON.stringify({ ...sampleState(), version: 3 }))
    expect(await codeOf(readStateFile(path))).toBe('SVC_ERR_STATE_INVALID')
    const { tree_id: _noTree, ...withoutTree } = sampleState()
    await writeFile(path, JSON.stringify(withoutTree))
    await expect(readStateFile(path)).rejects.toThrow(/tree_id/)
    const { supervisor_pid: _omit, ...rest } = sampleState()
    await writeFile(path, JSON.stringify(rest))
    await expect(readStateFile(path)).rejects.toThrow(/supervisor_pid/)
  })

  it('still reads a version 1 file (no tree id) from an older svc', async () => {
    const path = join(dir, 's.json')
    const { tree_id: _v2only, ...v1 } = { ...sampleState(), version: 1 as const }
    await writeFile(path, JSON.stringify(v1))
    expect(await readStateFile(path)).toEqual(v1)
  })

  it('parseSvcState names the offending field', () => {
    expect(() => parseSvcState({ ...sampleState(), gateway_port: 70000 })).toThrow(/gateway_port/)
    expect(() => parseSvcState({ ...sampleState(), ui_upstream: 'ftp://127.0.0.1:1' })).toThrow(/ui_upstream/)
  })

  it('removes the file and ignores a missing one', async () => {
    const path = join(dir, 's.json')
    await writeStateFile(path, sampleState())
    await removeStateFile(path)
    await removeStateFile(path)
    await writeStateFile(path, sampleState())
    removeStateFileSync(path)
    removeStateFileSync(path)
    expect(await readdir(dir)).toEqual([])
  })
})
