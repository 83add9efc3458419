import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { writePidfile } from '../../state/pidfile.js'
import { stateFilePath, writeStateFile } from '../../state/state-file.js'
import { isRunning } from '../../src/process/process-check.js'
import { exitedPid, spawnFakeSupervisor, spawnUnrelated, spawnZombie, waitUntil } from '../helpers/cli-processes.js'
import { BASIC_APP, cleanEnv, runSvcCli, tempDir } from '../helpers/cli-run.js'
import { sampleState } from '../helpers/cli-state.js'
import { ECHO_UI_COMMAND, REPO, SVC_BIN, descendants, waitGone } from '../helpers/svc-process.js'

describe('svc shutdown', () => {
  it('exits 2 when there is no pid file', async () => {
    const dir = await tempDir('svc-shutdown-')
    const r = await runSvcCli(['shutdown'], { cwd: dir })
    expect(r).toMatchObject({ code: 2, stdout: `svc shutdown: no pid file at ${join(dir, '.svc.pid')} (is svc running here? pass --pidfile)\n` })
  })

  it('exits 2 for a bad --wait value', async () => {
    const dir = await tempDir('svc-shutdown-')
    const r = await runSvcCli(['shutdown', '--wait', 'soon'], { cwd: dir })
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('--wait must be a number of seconds >= 0')
  })

  it('removes an invalid pid file (SVC_PIDFILE names it)', async () => {
    const dir = await tempDir('svc-shutdown-')
    const pidfile = join(dir, 'run', 'app.pid')
    await writePidfile(pidfile, 12)
    await writeFile(pidfile, 'twelve\n')
    const r = await runSvcCli(['shutdown'], { cwd: dir, env: { SVC_PIDFILE: 'run/app.pid' } })
    expect(r).toMatchObject({ code: 0, stdout: `Removed invalid pid file at ${pidfile}\n` })
    expect(existsSync(pidfile)).toBe(false)
  })

  it('removes a stale pid file and its state file when the pid has exited', async () => {
    const dir = await tempDir('svc-shutdown-')
    const pidfile = join(dir, '.svc.pid')
    const pid = await exitedPid()
    await writePidfile(pidfile, pid)
    await writeStateFile(stateFilePath(pidfile), sampleState({ supervisor_pid: pid }))
    const r = await runSvcCli(['shutdown'], { cwd: dir })
    expect(r).toMatchObject({ code: 0, stdout: `Removed stale pid file (pid ${pid} not running)\n` })
    expect(existsSync(pidfile)).toBe(false)
    expect(existsSync(stateFilePath(pidfile))).toBe(false)
  })

  it('treats a zombie pid as not running', async () => {
    const dir = await tempDir('svc-shutdown-')
    const { zombie, parent } = await spawnZombie()
    await writePidfile(join(dir, '.svc.pid'), zombie)
    const r = await runSvcCli(['shutdown'], { cwd: dir })
    expect(r).toMatchObject({ code: 0, stdout: `Removed stale pid file (pid ${zombie} not running)\n` })
    expect(isRunning(parent.pid!)).toBe(true)
  })

  it('never signals a reused pid: a live process that is not svc keeps running', async () => {
    const dir = await tempDir('svc-shutdown-')
    const sleeper = spawnUnrelated()
    const pidfile = join(dir, '.svc.pid')
    await writePidfile(pidfile, sleeper.pid!)
    const r = await runSvcCli(['shutdown', '--force', '--wait', '0'], { cwd: dir })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(
      `Removed stale pid file: pid ${sleeper.pid} now belongs to another program (sleep 30), not an svc supervisor; it was not signalled\n`,
    )
    expect(existsSync(pidfile)).toBe(false)
    expect(sleeper.exitCode).toBeNull()
    expect(sleeper.signalCode).toBeNull()
    expect(isRunning(sleeper.pid!)).toBe(true)
  })

  it('stops an svc-like process that exits on SIGTERM and removes the state file it left', async () => {
    const dir = await tempDir('svc-shutdown-')
    const fake = await spawnFakeSupervisor(dir)
    const pidfile = join(dir, '.svc.pid')
    await writePidfile(pidfile, fake.pid)
    await writeStateFile(stateFilePath(pidfile), sampleState({ supervisor_pid: fake.pid }))
    const r = await runSvcCli(['shutdown', '--pidfile', pidfile], { cwd: REPO })
    expect(r).toMatchObject({ code: 0, stdout: `Stopped process ${fake.pid}\n` })
    await fake.exited
    expect(fake.proc.exitCode).toBe(0)
    expect(existsSync(pidfile)).toBe(false)
    expect(existsSync(stateFilePath(pidfile))).toBe(false)
  })

  it('recognises a supervisor by its process title when the script path is gone from the command line', async () => {
    const dir = await tempDir('svc-shutdown-')
    const fake = await spawnFakeSupervisor(dir, { title: 'svc supervisor', scriptName: 'server.cjs' })
    const pidfile = join(dir, '.svc.pid')
    await writePidfile(pidfile, fake.pid)
    const r = await runSvcCli(['shutdown'], { cwd: dir })
    expect(r).toMatchObject({ code: 0, stdout: `Stopped process ${fake.pid}\n` })
    await fake.exited
  })

  it('does not signal a node process with a similar script that is not svc', async () => {
    const dir = await tempDir('svc-shutdown-')
    const fake = await spawnFakeSupervisor(dir, { scriptName: 'server.cjs' })
    await writePidfile(join(dir, '.svc.pid'), fake.pid)
    const r = await runSvcCli(['shutdown'], { cwd: dir })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`pid ${fake.pid} now belongs to another program (${process.execPath} ${join(dir, 'bin', 'server.cjs')} run app.ts:app)`)
    expect(isRunning(fake.pid)).toBe(true)
  })

  it('exits 1 when the process ignores SIGTERM and --force is not given; --force kills its tree', async () => {
    const dir = await tempDir('svc-shutdown-')
    const fake = await spawnFakeSupervisor(dir, { ignoreTerm: true })
    const pidfile = join(dir, '.svc.pid')
    await writePidfile(pidfile, fake.pid)

    const soft = await runSvcCli(['shutdown', '--wait', '0.3'], { cwd: dir })
    expect(soft).toMatchObject({ code: 1, stdout: `Process ${fake.pid} still running after 0.3s (try --force)\n` })
    expect(isRunning(fake.pid)).toBe(true)
    expect(await readFile(pidfile, 'utf8')).toBe(`${fake.pid}\n`)

    const forced = await runSvcCli(['shutdown', '--wait', '0.2', '--force'], { cwd: dir })
    expect(forced).toMatchObject({ code: 0, stdout: `Killed process ${fake.pid}\n` })
    await fake.exited
    expect(fake.proc.signalCode).toBe('SIGKILL')
    await waitUntil(`the fake supervisor's child ${fake.childPid} to die`, () => !isRunning(fake.childPid))
    expect(existsSync(pidfile)).toBe(false)
  })

  it('stops a real svc run: supervisor, sidecar and workers are gone, pid and state files removed', async () => {
    const { dir, pidfile, proc, exited } = await realSupervisor((pidfile) => existsSync(stateFilePath(pidfile)))
    const state = JSON.parse(await readFile(stateFilePath(pidfile), 'utf8')) as { supervisor_pid: number; sidecar_pid: number; workers: { pid: number }[] }
    expect(state.supervisor_pid).toBe(proc.pid)
    const tree = [proc.pid!, ...descendants(proc.pid!)]
    expect(tree).toEqual(expect.arrayContaining([state.sidecar_pid, ...state.workers.map((w) => w.pid)]))

    const r = await runSvcCli(['shutdown', '--pidfile', pidfile, '--wait', '15'], { cwd: dir })
    expect(r).toMatchObject({ code: 0, stdout: `Stopped process ${proc.pid}\n` })
    await exited
    expect(proc.exitCode).toBe(0)
    expect(await waitGone(tree, 5_000)).toEqual([])
    expect(existsSync(pidfile)).toBe(false)
    expect(existsSync(stateFilePath(pidfile))).toBe(false)
  })

  it('after a real supervisor was killed with SIGKILL, removes its pid file, state file and control socket', async () => {
    const { dir, pidfile, proc, exited } = await realSupervisor((pidfile) => existsSync(`${pidfile}.sock`) && existsSync(stateFilePath(pidfile)))
    const socket = `${pidfile}.sock`
    const tree = descendants(proc.pid!)
    proc.kill('SIGKILL')
    await exited
    expect(await waitGone(tree, 10_000)).toEqual([])
    expect([existsSync(pidfile), existsSync(stateFilePath(pidfile)), existsSync(socket)]).toEqual([true, true, true])

    const r = await runSvcCli(['shutdown', '--pidfile', pidfile], { cwd: dir })
    expect(r).toMatchObject({ code: 0, stdout: `Removed stale pid file (pid ${proc.pid} not running)\n` })
    expect([existsSync(pidfile), existsSync(stateFilePath(pidfile)), existsSync(socket)]).toEqual([false, false, false])
  })
})

/**
 * A real `svc run` with its pid file in a fresh folder, once `started(pidfile)` holds; its whole
 * tree is killed when the test ends, whatever the test did to the supervisor.
 */
async function realSupervisor(started: (pidfile: string) => boolean) {
  const dir = await tempDir('svc-shutdown-')
  const pidfile = join(dir, 'svc.pid')
  const proc = spawn(process.execPath, [SVC_BIN, 'run', BASIC_APP, '--port', '0', '--pidfile', pidfile], {
    cwd: REPO,
    env: cleanEnv({ SVC_UI_COMMAND: ECHO_UI_COMMAND }),
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const exited = once(proc, 'exit')
  let stderr = ''
  proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
  let tree: number[] = []
  onTestFinished(async () => {
    for (const p of [proc.pid!, ...tree]) if (isRunning(p)) process.kill(p, 'SIGKILL')
    if (proc.exitCode === null && proc.signalCode === null) await exited
  })
  await waitUntil('the real supervisor to start', () => {
    tree = descendants(proc.pid!)
    return started(pidfile)
  }, 20_000).catch((err: Error) => {
    throw new Error(`${err.message}; stderr:\n${stderr}`)
  })
  return { dir, pidfile, proc, exited }
}
