import type { ChildProcess } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runSvcCli, tempDir } from '../helpers/cli-run.js'
import { REPO, startSvc, stopAllTrees, waitGone } from '../helpers/svc-process.js'

/** Scripts wait for the banner and then act on the pidfile: it must exist by then. */
async function appFolder(): Promise<string> {
  const dir = await tempDir('svc-banner-')
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
  writeFileSync(join(dir, 'app.ts'), `import { Svc } from ${JSON.stringify(`${REPO}dist/src/app.js`)}\nexport const app = new Svc({ title: 'Banner' })\n`)
  return dir
}

/** Whether the pidfile and state file exist at the moment `line` reaches us (checked in the data event, no delay). */
function filesWhenPrinted(proc: ChildProcess, line: RegExp, dir: string): Promise<{ pidfile: boolean; state: boolean }> {
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      if (!line.test(chunk.toString())) return
      proc.stderr!.off('data', onData)
      resolve({ pidfile: existsSync(join(dir, '.svc.pid')), state: existsSync(join(dir, '.svc.pid.state.json')) })
    }
    proc.stderr!.on('data', onData)
    proc.once('exit', (code) => reject(new Error(`svc exited (${code}) before printing ${line}`)))
  })
}

describe('pidfile and state file before the banner', () => {
  afterEach(stopAllTrees)

  it.each([1, 2, 3])('svc shutdown right after the listening line stops the tree (round %i)', async () => {
    const dir = await appFolder()
    const svc = await startSvc({ command: 'run', target: 'app.ts:app', cwd: dir, pidfile: true, noWait: true })
    const filesAtBanner = filesWhenPrinted(svc.proc, /svc: listening on/, dir)
    await svc.waitForLine('stderr', /svc: listening on/, 20_000)
    expect(await filesAtBanner).toEqual({ pidfile: true, state: true })
    const tree = svc.treePids()
    const r = await runSvcCli(['shutdown', '--wait', '15'], { cwd: dir })
    expect(r).toMatchObject({ code: 0, stdout: `Stopped process ${svc.pid}\n` })
    expect(await svc.exited).toBe(0)
    expect(await waitGone(tree, 5_000)).toEqual([])
    expect(existsSync(join(dir, '.svc.pid'))).toBe(false)
    expect(existsSync(join(dir, '.svc.pid.state.json'))).toBe(false)
  }, 60_000)

  it('svc workbench: both files exist when the workbench banner is printed', async () => {
    const dir = await appFolder()
    const svc = await startSvc({ command: 'workbench', target: 'app.ts:app', cwd: dir, pidfile: true, noWait: true })
    expect(await filesWhenPrinted(svc.proc, /\[svc\] Workbench mode/, dir)).toEqual({ pidfile: true, state: true })
  }, 60_000)
})
