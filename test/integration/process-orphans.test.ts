import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { readCmdline } from '../../src/process/process-check.js'
import { runSvcCli } from '../helpers/cli-run.js'
import { waitUntil } from '../helpers/cli-processes.js'
import { stateFilePath } from '../../state/state-file.js'
import { REPO, descendants, isAlive, startSvc, stopAllTrees, waitGone, type SvcTree } from '../helpers/svc-process.js'

/**
 * No orphan, ever: a ui_command with a helper in its own session and a double-forked grandchild,
 * and a worker with a helper in its own session. Every way svc can end must take them all down
 * (docs/architecture.md, "No orphans", lists each case and the test that covers it).
 */
const ORPHAN_SIDECAR = `${REPO}test/fixtures/orphan-sidecar.mjs`
const ORPHAN_APP = `${REPO}test/fixtures/app-orphans.ts:app`
/** Worker drain (no requests in flight) plus the sidecar's 5 s grace, with room for a busy machine. */
const GONE_WITHIN_MS = 10_000

describe('no orphans (setsid and double-forked helpers)', () => {
  let dir: string
  let tracked: number[] = []
  beforeEach(() => {
    dir = `${REPO}test/.tmp/orphans-${randomUUID()}`
    mkdirSync(dir, { recursive: true })
  })
  afterEach(async () => {
    // Whatever a failed test left: never outlive the test.
    for (const pid of tracked.filter(isAlive)) process.kill(pid, 'SIGKILL')
    tracked = []
    await stopAllTrees()
    rmSync(dir, { recursive: true, force: true })
  })

  async function start(extra: { pidfile?: boolean } = {}): Promise<{ svc: SvcTree; helpers: number[]; pidfile: string }> {
    const pidfile = `${dir}/svc.pid`
    const svc = await startSvc({
      target: ORPHAN_APP,
      env: {
        SVC_UI_COMMAND: JSON.stringify(['node', ORPHAN_SIDECAR, '{port}', `${dir}/sidecar.json`]),
        SVC_SHUTDOWN_GRACE_S: '2',
        TEST_ORPHAN_DIR: dir,
      },
      ...(extra.pidfile ? { pidfile } : {}),
    })
    return { svc, helpers: helperPids(), pidfile }
  }

  function helperPids(): number[] {
    const side = JSON.parse(readFileSync(`${dir}/sidecar.json`, 'utf8')) as { command: number; setsid: number; double: number }
    // The probe loaded the app first (it wrote a file too): its helper ended with it.
    const [running, probed] = partition(readdirSync(dir).filter((f) => f.startsWith('worker-')), (f) => isAlive(Number(f.slice('worker-'.length))))
    expect(probed.map(helperOf).filter(isAlive)).toEqual([])
    const workers = running.map(helperOf)
    const pids = [side.command, side.setsid, side.double, ...workers]
    tracked.push(...pids)
    expect(pids.every(isAlive)).toBe(true)
    return pids
  }

  function helperOf(file: string): number {
    return Number(readFileSync(`${dir}/${file}`, 'utf8'))
  }

  function guardOf(svc: SvcTree): number {
    return descendants(svc.pid).find((p) => readCmdline(p)?.some((a) => a.includes('sidecar-guard')))!
  }

  async function expectAllGone(pids: number[]): Promise<void> {
    expect(await waitGone(pids, GONE_WITHIN_MS)).toEqual([])
  }

  it('SIGTERM: exit 0 and every helper is gone', async () => {
    const { svc, helpers } = await start()
    const tree = svc.treePids()
    expect(await svc.stop('SIGTERM')).toBe(0)
    await expectAllGone([...tree, ...helpers])
  })

  it('SIGINT: exit 0 and every helper is gone', async () => {
    const { svc, helpers } = await start()
    const tree = svc.treePids()
    expect(await svc.stop('SIGINT')).toBe(0)
    await expectAllGone([...tree, ...helpers])
  })

  it('svc shutdown: every helper is gone', async () => {
    const { svc, helpers, pidfile } = await start({ pidfile: true })
    const tree = svc.treePids()
    const r = await runSvcCli(['shutdown', '--pidfile', pidfile, '--wait', '15'], { cwd: dir })
    expect(r).toMatchObject({ code: 0, stdout: `Stopped process ${svc.pid}\n` })
    expect(await svc.exited).toBe(0)
    await expectAllGone([...tree, ...helpers])
  })

  it('sidecar death: exit 1 and every helper is gone', async () => {
    const { svc, helpers } = await start()
    const tree = svc.treePids()
    process.kill(helpers[0]!, 'SIGKILL')
    expect(await svc.exited).toBe(1)
    await expectAllGone([...tree, ...helpers])
  })

  it('SIGKILL of the supervisor: every helper is gone', async () => {
    const { svc, helpers } = await start()
    const tree = svc.treePids()
    process.kill(svc.pid, 'SIGKILL')
    await expectAllGone([...tree, ...helpers])
  })

  /** SIGSTOP first, so neither notices the other die before its own SIGKILL. */
  async function killGuardAndSupervisor(svc: SvcTree, pidfile: string): Promise<void> {
    // The state file (with the tree id) is written right after the listening line.
    await waitUntil('the state file', () => existsSync(stateFilePath(pidfile)))
    const guard = guardOf(svc)
    for (const sig of ['SIGSTOP', 'SIGKILL'] as const) for (const p of [guard, svc.pid]) process.kill(p, sig)
    await svc.exited
    expect(await waitGone([guard], 5_000)).toEqual([])
  }

  it('SIGKILL of guard and supervisor together: "svc shutdown" with the pidfile ends the leftovers', async () => {
    const { svc, helpers, pidfile } = await start({ pidfile: true })
    const sidecarTree = helpers.slice(0, 3)
    await killGuardAndSupervisor(svc, pidfile)
    // Nobody is left to clean up: the ui_command tree outlives its svc.
    expect(sidecarTree.every(isAlive)).toBe(true)
    const r = await runSvcCli(['shutdown', '--pidfile', pidfile], { cwd: dir })
    expect(r, r.stderr).toMatchObject({ code: 0 })
    expect(r.stdout).toMatch(new RegExp(`^Removed stale pid file \\(pid ${svc.pid} not running\\); ended [3-9] leftover process\\(es\\) of its tree\\n$`))
    await expectAllGone(helpers)
    expect(existsSync(pidfile)).toBe(false)
  })

  it('SIGKILL of guard and supervisor together: the next "svc run" with the pidfile ends the leftovers', async () => {
    const { svc, helpers, pidfile } = await start({ pidfile: true })
    await killGuardAndSupervisor(svc, pidfile)
    expect(helpers.slice(0, 3).every(isAlive)).toBe(true)
    for (const f of readdirSync(dir)) if (f === 'sidecar.json' || f.startsWith('worker-')) rmSync(`${dir}/${f}`)
    const next = await start({ pidfile: true })
    await expectAllGone(helpers)
    expect(next.svc.stdout.join('\n')).toMatch(/was killed; ended [3-9] leftover process\(es\) of its tree/)
    // The new run's own helpers were not touched.
    expect(next.helpers.every(isAlive)).toBe(true)
    expect(await next.svc.stop('SIGTERM')).toBe(0)
    await expectAllGone(next.helpers)
  })
})

function partition<T>(items: T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((i) => !test(i))]
}
