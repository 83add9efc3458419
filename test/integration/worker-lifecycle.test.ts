import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { request } from 'undici'
import { REPO, descendants, gatewayWorkerPids, startSvc, stopAllTrees, waitGone } from '../helpers/svc-process.js'
import { isSvcProcess, readCmdline, SUPERVISOR_TITLE } from '../../src/process/process-check.js'
import { waitUntil } from '../helpers/cli-processes.js'
import { runSvcCli } from '../helpers/cli-run.js'

/** Worker lifecycle: the app's onClose hooks, start deadline, crash/reload races, titles, env. */
const LIFECYCLE_APP = `${REPO}test/fixtures/app-lifecycle.ts:app`

interface EnvProbe {
  pid: number
  started: number
  gateway_port: string | null
  settings_port: number
}

/** GET /api/env until `ok` holds (a fresh connection each time, so any worker may answer). */
async function until(url: string, ok: (e: EnvProbe) => boolean, timeoutMs = 5_000): Promise<EnvProbe> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const e = (await (await request(`${url}/api/env`, { reset: true })).body.json()) as EnvProbe
    if (ok(e)) return e
    if (Date.now() > deadline) throw new Error(`/api/env never satisfied the condition; last: ${JSON.stringify(e)}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('worker lifecycle', () => {
  let dir: string
  beforeEach(() => {
    dir = `${REPO}test/.tmp/lifecycle-${randomUUID()}`
    mkdirSync(dir, { recursive: true })
  })
  afterEach(async () => {
    await stopAllTrees()
    rmSync(dir, { recursive: true, force: true })
  })

  it("runs the app's onClose hooks on SIGTERM, after in-flight requests finished", async () => {
    const svc = await startSvc({ target: LIFECYCLE_APP, env: { TEST_ONCLOSE_DIR: dir } })
    const slow = request(`${svc.url}/api/slow?ms=800`)
    const { pid } = await until(svc.url, (e) => e.started === 1)
    expect(await svc.stop('SIGTERM')).toBe(0)
    expect((await slow).statusCode).toBe(200)
    const file = `${dir}/closed-${pid}.json`
    expect(existsSync(file)).toBe(true)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ finished: 1 })
  })

  const reloadable = (version: number, hang = false) => `import { Svc } from 'svc'
export const app = new Svc({ title: 'Hang' })
app.api.get('/version', async () => ({ version: ${version} }))
${hang ? 'await new Promise(() => setInterval(() => {}, 1000))' : ''}
`

  it('exits 1 with a coded error when the app import never settles (gateway_start_timeout_s)', async () => {
    writeFileSync(`${dir}/app.ts`, reloadable(1, true))
    const started = Date.now()
    const svc = await startSvc({ target: `${dir}/app.ts:app`, env: { SVC_GATEWAY_START_TIMEOUT_S: '2' }, noWait: true })
    expect(await svc.exited).toBe(1)
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(svc.stderr.join('\n')).toMatch(/the app did not finish loading within 2 s \(gateway_start_timeout_s\)/)
    expect(svc.stdout.join('\n')).toContain('SVC_ERR_PROCESS_WORKER_START_TIMEOUT')
  })

  it('keeps the old worker serving when a reload hangs in the import, and reloads again afterwards', async () => {
    writeFileSync(`${dir}/app.ts`, reloadable(1))
    const svc = await startSvc({ command: 'dev', target: `${dir}/app.ts:app`, args: ['--reload'], env: { SVC_GATEWAY_START_TIMEOUT_S: '8' } })
    await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
    const version = async (): Promise<number> => ((await (await request(`${svc.url}/api/version`, { reset: true })).body.json()) as { version: number }).version
    writeFileSync(`${dir}/app.ts`, reloadable(2, true))
    await svc.waitForLine('stdout', /reload failed, the running workers keep serving.*did not finish loading within 8 s/, 30_000)
    expect(await version()).toBe(1)
    writeFileSync(`${dir}/app.ts`, reloadable(3))
    const deadline = Date.now() + 20_000
    while ((await version()) !== 3) {
      if (Date.now() > deadline) throw new Error('version 3 never served: the hung reload blocked later ones')
      await new Promise((r) => setTimeout(r, 50))
    }
  })

  it('does not restart a crashed worker into a set a reload has replaced meanwhile', async () => {
    const source = (version: number, killVictim: boolean) => `import { existsSync, readFileSync, rmSync } from 'node:fs'
import { Svc } from 'svc'
export const app = new Svc({ title: 'Race' })
app.api.get('/version', async () => ({ version: ${version}, pid: process.pid }))
app.api.get('/crash', async () => {
  setImmediate(() => process.exit(3))
  return { crashing: true }
})
${killVictim ? `app.api.addHook('onReady', async () => {
  if (!existsSync('${dir}.victim')) return
  const victim = Number(readFileSync('${dir}.victim', 'utf8'))
  rmSync('${dir}.victim')
  process.kill(victim, 'SIGKILL')
})` : ''}
`
    writeFileSync(`${dir}/app.ts`, source(1, false))
    const svc = await startSvc({ command: 'dev', target: `${dir}/app.ts:app`, args: ['--reload'] })
    await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
    const served = async (): Promise<{ version: number; pid: number } | null> => {
      try {
        return (await (await request(`${svc.url}/api/version`, { reset: true })).body.json()) as { version: number; pid: number }
      } catch {
        return null
      }
    }
    const servedBy = async (ok: (v: { version: number; pid: number }) => boolean): Promise<{ version: number; pid: number }> => {
      const deadline = Date.now() + 20_000
      for (;;) {
        const v = await served()
        if (v && ok(v)) return v
        if (Date.now() > deadline) throw new Error(`never served as expected; last: ${JSON.stringify(v)}`)
        await new Promise((r) => setTimeout(r, 50))
      }
    }
    // Three crashes: the next one waits 800 ms before its restart, longer than the rest of a reload.
    let current = await servedBy(() => true)
    for (const backoff of [100, 200, 400]) {
      await (await request(`${svc.url}/api/crash`, { reset: true })).body.dump()
      await svc.waitForLine('stdout', new RegExp(`exited unexpectedly.*restarting in ${backoff} ms`))
      const before = current.pid
      current = await servedBy((v) => v.pid !== before)
    }
    // Outside the watched directory: removing it must not trigger another reload.
    onTestFinished(() => rmSync(`${dir}.victim`, { force: true }))
    // The reloaded worker kills the running one just before it is ready: a crash whose restart
    // comes due after the reload swapped the worker set.
    writeFileSync(`${dir}.victim`, String(current.pid))
    writeFileSync(`${dir}/app.ts`, source(2, true))
    await svc.waitForLine('stdout', /reloaded \(gateway\)/, 30_000)
    expect(await waitGone([current.pid], 15_000)).toEqual([])
    const after = await servedBy((v) => v.version === 2)
    // Which comes first is the scheduler's choice: the victim's exit is handled before the swap
    // (a restart is scheduled, then found replaced) or after it (the exit of a replaced worker
    // needs no restart). Either way exactly the reloaded worker serves.
    if (svc.stdout.some((l) => /exited unexpectedly.*restarting in 800 ms/.test(l))) {
      await svc.waitForLine('stdout', /replaced by a reload while waiting to restart; not restarting it/, 30_000)
    }
    expect(gatewayWorkerPids(svc.pid)).toEqual([after.pid])
  }, 120_000)

  it('titles its processes, and svc shutdown recognises the supervisor by its title', async () => {
    const pidfile = `${dir}/svc.pid`
    const svc = await startSvc({ target: LIFECYCLE_APP, pidfile, env: { SVC_UI_COMMAND: undefined } })
    expect(readCmdline(svc.pid)).toEqual([SUPERVISOR_TITLE])
    expect(isSvcProcess(svc.pid)).toBe(true)
    const titles = descendants(svc.pid).map((p) => readCmdline(p)?.[0])
    expect(titles.sort()).toEqual(['svc gateway', 'svc sidecar'])
    await waitUntil('the pid file', () => existsSync(pidfile))
    const r = await runSvcCli(['shutdown', '--pidfile', pidfile, '--wait', '15'], { cwd: dir })
    expect(r).toMatchObject({ code: 0, stdout: `Stopped process ${svc.pid}\n` })
    expect(await svc.exited).toBe(0)
  })

  it('shows worker 0 and the first sidecar the bound port with --port 0, never 0', async () => {
    const svc = await startSvc({ target: LIFECYCLE_APP, args: ['--workers', '2'] })
    const seen = new Map<number, EnvProbe>()
    await until(svc.url, (e) => (seen.set(e.pid, e), seen.size === 2), 15_000)
    for (const e of seen.values()) expect(e).toMatchObject({ gateway_port: String(svc.port), settings_port: svc.port })
    const sidecar = (await (await request(`${svc.url}/__env`)).body.json()) as { SVC_GATEWAY_PORT: string | null }
    expect(sidecar.SVC_GATEWAY_PORT).toBe(String(svc.port))
  })
})
