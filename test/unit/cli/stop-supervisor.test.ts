import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { shutdownFromPidfile } from '../../../src/cli/shutdown/stop-supervisor.js'
import { readPidfile, writePidfile } from '../../../state/pidfile.js'
import { stateFilePath, writeStateFile } from '../../../state/state-file.js'
import { sampleState } from '../../helpers/cli-state.js'

/** Above Linux's pid_max: never running. */
const DEAD_PID = 2 ** 31 - 2

let dir: string
let pidfile: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-shutdown-'))
  pidfile = join(dir, '.svc.pid')
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const run = (force = false) => shutdownFromPidfile({ pidfile, waitS: 0.2, force })

describe('shutdownFromPidfile', () => {
  it('exits 2 without a pidfile', async () => {
    expect(await run()).toEqual({ code: 2, message: `svc shutdown: no pid file at ${pidfile} (is svc running here? pass --pidfile)` })
  })

  it('removes an invalid pidfile and a leftover invalid state file', async () => {
    await writeFile(pidfile, 'not a pid')
    await writeFile(stateFilePath(pidfile), '{}')
    expect(await run()).toEqual({ code: 0, message: `Removed invalid pid file at ${pidfile}` })
    expect(await readdir(dir)).toEqual([])
  })

  it('removes a stale pidfile, the state file it wrote and the control socket it left', async () => {
    await writePidfile(pidfile, DEAD_PID)
    await writeStateFile(stateFilePath(pidfile), sampleState({ supervisor_pid: DEAD_PID }))
    await writeFile(`${pidfile}.sock`, '')
    expect(await run()).toEqual({ code: 0, message: `Removed stale pid file (pid ${DEAD_PID} not running)` })
    expect(await readdir(dir)).toEqual([])
  })

  it('keeps a state file that belongs to another running supervisor, and the control socket', async () => {
    await writePidfile(pidfile, DEAD_PID)
    await writeStateFile(stateFilePath(pidfile), sampleState({ supervisor_pid: process.pid }))
    await writeFile(`${pidfile}.sock`, '')
    await run()
    expect((await readdir(dir)).sort()).toEqual(['.svc.pid.sock', '.svc.pid.state.json'])
  })

  it('never signals a live process that is not an svc supervisor (here: the test runner itself)', async () => {
    await writePidfile(pidfile, process.pid)
    const outcome = await run(true)
    expect(outcome.code).toBe(0)
    expect(outcome.message).toContain(`pid ${process.pid} now belongs to another program`)
    expect(outcome.message).toContain('not signalled')
    expect(await readPidfile(pidfile)).toEqual({ kind: 'missing' })
  })
})
