import { describe, expect, it } from 'vitest'
import {
  describeProcess,
  isRunning,
  isSvcCmdline,
  isSvcProcess,
  isZombie,
  processState,
  readCmdline,
} from '../../../src/process/process-check.js'

/** Above Linux's pid_max (2^22): no process can have it. */
const NO_SUCH_PID = 2 ** 31 - 2

describe('isSvcCmdline', () => {
  it.each([
    [['node', '/srv/app/node_modules/svc/bin/svc.js', 'run', 'app.ts:app']],
    [['node', '/srv/app/node_modules/.bin/svc', 'dev', '--reload']],
    [['/usr/bin/node', '/repo/dist/src/cli/main.js', 'workbench']],
    [['node', '--import', 'tsx', 'src/cli/main.ts', 'run']],
    [['svc supervisor']],
    [['svc supervisor app.ts:app port 8000']],
  ])('recognises %j as a supervisor', (args) => {
    expect(isSvcCmdline(args)).toBe(true)
  })

  it.each([
    [['node', '/repo/bin/svc.js', 'shutdown']],
    [['node', '/repo/bin/svc.js', 'doctor']],
    [['node', '/repo/bin/svc.js']],
    [['sleep', '30']],
    [['node', '/repo/bin/mysvc.js', 'run']],
    [['node', '/repo/lib/cli/main.js', 'run']],
    [['python', 'run']],
    [['svcd', 'run']],
  ])('rejects %j', (args) => {
    expect(isSvcCmdline(args)).toBe(false)
  })
})

describe('process inspection', () => {
  it('sees the current process as running, not a zombie, with a command line', () => {
    expect(isRunning(process.pid)).toBe(true)
    expect(isZombie(process.pid)).toBe(false)
    expect(processState(process.pid)).toMatch(/^[RSD]$/)
    expect(readCmdline(process.pid)?.[0]).toMatch(/node/)
    expect(describeProcess(process.pid)).toMatch(/node/)
  })

  it('knows nothing about a pid that cannot exist', () => {
    expect(isRunning(NO_SUCH_PID)).toBe(false)
    expect(processState(NO_SUCH_PID)).toBeNull()
    expect(readCmdline(NO_SUCH_PID)).toBeNull()
    expect(isSvcProcess(NO_SUCH_PID)).toBe(false)
    expect(describeProcess(NO_SUCH_PID)).toBe('(unknown process)')
  })

  it('does not take the test runner for a supervisor, unless the recorded command line matches', () => {
    expect(isSvcProcess(process.pid)).toBe(false)
    const own = readCmdline(process.pid)!
    expect(isSvcProcess(process.pid, own)).toBe(true)
    expect(isSvcProcess(process.pid, [...own, 'extra'])).toBe(false)
  })

  it('truncates long descriptions', () => {
    expect(describeProcess(process.pid, 10).length).toBeLessThanOrEqual(10)
  })
})
