import { afterEach, describe, expect, it } from 'vitest'
import { REPO, startSvc, stopAllTrees, waitGone, type SvcTree } from '../helpers/svc-process.js'

/**
 * Ctrl-C during start-up is a clean stop at any point: exit 0, the "stopping" line and nothing
 * else on stderr, no error record in the log, no process left.
 */
const APP = `${REPO}test/fixtures/app-slow-import.ts:app`
/** A ui_command that never answers its health check: start-up waits there, workers loaded. */
const NEVER_HEALTHY = JSON.stringify(['node', '-e', 'setInterval(() => {}, 1000)'])

async function interrupt(svc: SvcTree): Promise<number | string> {
  const pids = svc.treePids()
  svc.proc.kill('SIGINT')
  const code = await svc.exited
  expect(await waitGone(pids, 10_000)).toEqual([])
  return code
}

/** `startedOk`: the delay may land after start-up finished (a fast machine), and its banner is no error. */
function expectQuiet(svc: SvcTree, startedOk = false): void {
  const expected = (l: string): boolean => l.trim() === '' || l === 'svc: stopping (Ctrl-C again to force)' || (startedOk && /^svc: listening on /.test(l))
  expect(svc.stderr.filter((l) => !expected(l))).toEqual([])
  const records = svc.stdout.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; message: string })
  expect(records.filter((r) => r.level === 'error' || r.level === 'fatal' || r.level === 'warn')).toEqual([])
}

describe('Ctrl-C during start-up', () => {
  afterEach(stopAllTrees)

  it('before the app has loaded (the probe child is inside its import, nothing else started): exit 0, quiet, nothing left', async () => {
    const svc = await startSvc({ target: APP, args: ['--log-format', 'json'], env: { SVC_UI_COMMAND: undefined, APP_IMPORT_HANGS: '1' }, noWait: true })
    await svc.waitForLine('stdout', /app import started/, 30_000)
    expect(await interrupt(svc)).toBe(0)
    expectQuiet(svc)
  }, 60_000)

  it('after the app loaded, before svc listens (the sidecar is not healthy yet): exit 0, quiet, nothing left', async () => {
    const svc = await startSvc({ target: APP, args: ['--log-format', 'json'], env: { SVC_UI_COMMAND: NEVER_HEALTHY }, noWait: true })
    await svc.waitForLine('stdout', /app import finished/, 30_000)
    expect(await interrupt(svc)).toBe(0)
    expectQuiet(svc)
    expect(svc.stderr.join('\n')).not.toMatch(/listening on/)
  }, 60_000)

  it('at whatever point a delay lands on: always clean', async () => {
    for (const ms of [150, 600, 1_200, 2_500]) {
      const svc = await startSvc({ target: APP, args: ['--log-format', 'json'], env: { SVC_UI_COMMAND: undefined }, noWait: true })
      await new Promise((r) => setTimeout(r, ms))
      const code = await interrupt(svc)
      // Before svc has installed its handler (Node still loading the CLI) the signal's default
      // ends it; nothing was started then.
      expect([0, 'SIGINT'], `after ${ms} ms: ${svc.stderr.join('|')}`).toContain(code)
      expectQuiet(svc, true)
      await stopAllTrees()
    }
  }, 120_000)
})
