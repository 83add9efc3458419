import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { Agent, request } from 'undici'
import { startSvc, stopAllTrees, descendants, gatewayWorkerPids, isAlive, REPO, type SvcTree } from '../helpers/svc-process.js'
import { readCmdline } from '../../src/process/process-check.js'

/** `svc dev --reload`: zero-downtime worker replacement, debounced storms, broken saves. */
const appSource = (version: number) => `import { Svc } from 'svc'
export const app = new Svc({ title: 'Reload' })
app.api.get('/version', async () => ({ version: ${version}, pid: process.pid }))
`

describe('svc dev --reload', () => {
  let dir: string
  let file: string
  const agent = new Agent({ keepAliveTimeout: 10_000 })
  beforeAll(() => {
    dir = `${REPO}test/.tmp/reload-${randomUUID()}`
    mkdirSync(dir, { recursive: true })
    file = `${dir}/app.ts`
  })
  afterEach(stopAllTrees)
  afterAll(async () => {
    await agent.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const version = async (svc: SvcTree): Promise<number> => {
    const res = await request(`${svc.url}/api/version`, { dispatcher: agent })
    return ((await res.body.json()) as { version: number }).version
  }

  async function waitForVersion(svc: SvcTree, v: number, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while ((await version(svc)) !== v) {
      if (Date.now() > deadline) throw new Error(`version ${v} not served within ${timeoutMs} ms`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  it('replaces gateway workers with zero failed requests across 10 reloads under load', async () => {
    writeFileSync(file, appSource(0))
    const svc = await startSvc({ command: 'dev', target: `${file}:app`, args: ['--reload'] })
    await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
    let ok = 0
    const failures: string[] = []
    let running = true
    const loop = async () => {
      while (running) {
        try {
          const res = await request(`${svc.url}/api/version`, { dispatcher: agent })
          await res.body.dump()
          if (res.statusCode === 200) ok++
          else failures.push(`status ${res.statusCode}`)
        } catch (err) {
          failures.push((err as Error).message)
        }
      }
    }
    const loops = [loop(), loop(), loop(), loop()]
    for (let v = 1; v <= 10; v++) {
      writeFileSync(file, appSource(v))
      await waitForVersion(svc, v)
    }
    running = false
    await Promise.all(loops)
    expect(failures).toEqual([])
    expect(ok).toBeGreaterThan(100)
    // The last replaced worker drains its keep-alive connections, then exits.
    const deadline = Date.now() + 15_000
    while (gatewayWorkerPids(svc.pid).length !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(gatewayWorkerPids(svc.pid)).toHaveLength(1)
  }, 120_000)

  it('coalesces a storm of 20 saves in 2 s and ends with exactly the configured workers', async () => {
    writeFileSync(file, appSource(0))
    const svc = await startSvc({ command: 'dev', target: `${file}:app`, args: ['--reload', '--workers', '2'] })
    await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
    for (let i = 1; i <= 20; i++) {
      writeFileSync(file, appSource(i))
      await new Promise((r) => setTimeout(r, 100))
    }
    await waitForVersion(svc, 20)
    const deadline = Date.now() + 15_000
    while (gatewayWorkerPids(svc.pid).length !== 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(gatewayWorkerPids(svc.pid)).toHaveLength(2)
    const reloads = svc.stdout.filter((l) => l.includes('reloaded (gateway)')).length
    expect(reloads).toBeLessThan(20)
    // Beside them, one standby worker per slot for the next reload, titled so that it is not counted as one.
    // Their own deadline: the spares fork after the last reload, and on a loaded machine the
    // drain above may have used most of the first one.
    const standby = (): number[] => descendants(svc.pid).filter((p) => readCmdline(p)?.[0] === 'svc standby worker')
    const standbyDeadline = Date.now() + 20_000
    while (standby().length !== 2 && Date.now() < standbyDeadline) await new Promise((r) => setTimeout(r, 50))
    expect(standby(), `standby workers; the supervisor's last lines:\n${[...svc.stdout, ...svc.stderr].slice(-12).join('\n')}`).toHaveLength(2)
  }, 90_000)

  it('keeps the old worker serving when the new code does not load, and prints the error', async () => {
    writeFileSync(file, appSource(1))
    const svc = await startSvc({ command: 'dev', target: `${file}:app`, args: ['--reload'] })
    await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
    writeFileSync(file, appSource(2).replace('export const app', 'export const app = ;'))
    await svc.waitForLine('stdout', /reload failed, the running workers keep serving/)
    expect(await version(svc)).toBe(1)
    writeFileSync(file, appSource(3))
    await waitForVersion(svc, 3)
  }, 60_000)

  it('an app that cannot load at start: prints the error once, waits, and starts on the save that mends it', async () => {
    writeFileSync(file, appSource(1).replace('export const app', 'export const app = ;'))
    // Pretty, as `npm run dev` in a terminal: the failed start logs nothing, the watcher's lines still show.
    const svc = await startSvc({ command: 'dev', target: `${file}:app`, args: ['--reload', '--log-format', 'pretty'], noWait: true })
    await svc.waitForLine('stderr', /waiting for a change in .* to start again \(Ctrl-C to stop\)/)
    expect(svc.stderr.filter((l) => l.startsWith('svc: error:'))).toEqual([expect.stringContaining('app.ts')])
    expect(isAlive(svc.pid)).toBe(true)
    // Nothing of the failed start is left while it waits.
    expect(descendants(svc.pid)).toEqual([])
    writeFileSync(file, appSource(2))
    await svc.waitForLine('stdout', /change detected \(\d+ event\(s\)\); starting/)
    const line = await svc.waitForLine('stderr', /listening on http:\/\//, 30_000)
    svc.url = /listening on (http:\/\/[^/ ]+)/.exec(line)![1]!
    expect(await version(svc)).toBe(2)
    // From here on it is an ordinary --reload tree.
    await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
    writeFileSync(file, appSource(3))
    await waitForVersion(svc, 3)
    expect(await svc.stop('SIGINT')).toBe(0)
  }, 90_000)

  it('Ctrl-C while it waits exits 0 and frees the pidfile; without --reload a broken app still exits 2', async () => {
    const pidfile = `${dir}/wait.pid`
    writeFileSync(file, appSource(1).replace('export const app', 'export const app = ;'))
    const waiting = await startSvc({ command: 'dev', target: `${file}:app`, args: ['--reload'], pidfile, noWait: true })
    await waiting.waitForLine('stderr', /waiting for a change in/)
    expect(existsSync(pidfile)).toBe(true)
    expect(await waiting.stop('SIGINT')).toBe(0)
    expect(existsSync(pidfile)).toBe(false)
    const once = await startSvc({ command: 'dev', target: `${file}:app`, noWait: true })
    expect(await once.exited).toBe(2)
    expect(once.stderr.join('\n')).not.toMatch(/waiting for a change/)
  }, 60_000)

  it('full scope restarts the sidecar on a new port and tells the gateways', async () => {
    writeFileSync(file, appSource(1))
    const svc = await startSvc({ command: 'dev', target: `${file}:app`, args: ['--reload', '--reload-scope', 'full'] })
    await svc.waitForLine('stderr', /--reload \(scope full\)/)
    const before = (await (await request(`${svc.url}/ui-probe`, { dispatcher: agent })).body.json()) as { headers: { host: string } }
    expect(before.headers.host).toContain(String(svc.port))
    const sidecarBefore = descendants(svc.pid).filter((p) => readCmdline(p)?.join(' ').includes('echo-sidecar') === true)
    writeFileSync(file, appSource(2))
    await waitForVersion(svc, 2)
    const deadline = Date.now() + 10_000
    let sidecarAfter: number[] = sidecarBefore
    while (Date.now() < deadline) {
      sidecarAfter = descendants(svc.pid).filter((p) => readCmdline(p)?.join(' ').includes('echo-sidecar') === true)
      if (sidecarAfter.length > 0 && sidecarAfter.every((p) => !sidecarBefore.includes(p))) break
      await new Promise((r) => setTimeout(r, 50))
    }
    expect(sidecarAfter.some((p) => sidecarBefore.includes(p))).toBe(false)
    const after = await request(`${svc.url}/ui-probe`, { dispatcher: agent })
    expect(after.statusCode).toBe(200)
    await after.body.dump()
  }, 60_000)

  it('full scope: zero failed requests across 3 reloads under load (in-flight requests to the old sidecar finish)', async () => {
    writeFileSync(file, appSource(0))
    // A sidecar that exits at once on SIGTERM: svc must not stop it while requests are in flight.
    const svc = await startSvc({ command: 'dev', target: `${file}:app`, args: ['--reload', '--reload-scope', 'full'], env: { ECHO_EXIT_ON_TERM: '1' } })
    await svc.waitForLine('stderr', /--reload \(scope full\)/)
    const fullReloads = () => svc.stdout.filter((l) => l.includes('reloaded (full)')).length
    let ok = 0
    const failures: string[] = []
    let running = true
    // Slow UI requests: some are always in flight to the old sidecar when the upstream switches.
    const loop = async (i: number) => {
      for (let n = 0; running && n < 2_000; n++) {
        try {
          const res = await request(`${svc.url}/slow?ms=${50 + (i % 4) * 50}`, { dispatcher: agent })
          await res.body.dump()
          if (res.statusCode === 200) ok++
          else failures.push(`status ${res.statusCode}`)
        } catch (err) {
          failures.push((err as Error).message)
        }
      }
    }
    const loops = Array.from({ length: 8 }, (_, i) => loop(i))
    for (let v = 1; v <= 3; v++) {
      writeFileSync(file, appSource(v))
      const deadline = Date.now() + 30_000
      while (fullReloads() < v) {
        if (Date.now() > deadline) throw new Error(`full reload ${v} did not finish within 30 s`)
        await new Promise((r) => setTimeout(r, 50))
      }
      await waitForVersion(svc, v)
    }
    running = false
    await Promise.all(loops)
    expect(failures).toEqual([])
    expect(ok).toBeGreaterThan(50)
  }, 150_000)
})
