import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { runSvcCli } from '../helpers/cli-run.js'
import { waitUntil } from '../helpers/cli-processes.js'

/**
 * One app per pidfile: a second `svc run`/`svc dev` on a pidfile a running svc holds exits 2
 * before binding anything, naming the running pid, its address and `--pidfile`; it never touches
 * the first app's files, and `svc shutdown` still finds the first. Two started at once: one wins.
 */
const app = `import { Svc } from 'svc'
export const app = new Svc({ title: 'One per pidfile' })
app.api.get('/who', async () => ({ pid: process.ppid }))
`

describe('one app per pidfile', () => {
  let dir: string
  const pidfile = (): string => join(dir, '.svc.pid')
  beforeAll(() => {
    dir = `${REPO}test/.tmp/pidfile-${randomUUID()}`
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'app.ts'), app)
  })
  afterEach(async () => {
    await stopAllTrees()
    rmSync(pidfile(), { force: true })
    rmSync(`${pidfile()}.state.json`, { force: true })
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('a second svc run / svc dev refuses with exit 2, naming the pid, its address and --pidfile; the first keeps serving and keeps its files', async () => {
    const first = await startSvc({ command: 'run', target: 'app.ts:app', cwd: dir, pidfile: true })
    const held = readFileSync(pidfile(), 'utf8')
    expect(held).toBe(`${first.pid}\n`)
    const state = readFileSync(`${pidfile()}.state.json`, 'utf8')
    for (const command of ['run', 'dev'] as const) {
      // The first app's own port: binding first would fail with exit 1 ("cannot bind"); the claim comes before it.
      const second = await startSvc({ command, target: 'app.ts:app', cwd: dir, pidfile: true, noPort: true, args: ['--port', String(first.port)], noWait: true })
      expect(await second.exited).toBe(2)
      const lines = second.stderr.filter((l) => l.trim() !== '')
      expect(lines, lines.join('\n')).toHaveLength(1)
      expect(lines[0]).toBe(
        `svc: error: another svc (pid ${first.pid}, serving http://127.0.0.1:${first.port}) runs with the pid file .svc.pid; ` +
          'stop it first (svc shutdown --pidfile .svc.pid), or give this one a pid file of its own: --pidfile <file> (or SVC_PIDFILE)',
      )
      expect(readFileSync(pidfile(), 'utf8')).toBe(held)
      expect(readFileSync(`${pidfile()}.state.json`, 'utf8')).toBe(state)
    }
    const res = await request(`${first.url}/api/who`)
    expect(((await res.body.json()) as { pid: number }).pid).toBe(first.pid)
    // With its own pidfile, a second app runs beside the first.
    const beside = await startSvc({ command: 'run', target: 'app.ts:app', cwd: dir, pidfile: join(dir, 'beside.pid') })
    expect(readFileSync(join(dir, 'beside.pid'), 'utf8')).toBe(`${beside.pid}\n`)
    expect(await beside.stop()).toBe(0)
    expect(existsSync(join(dir, 'beside.pid'))).toBe(false)
    expect(readFileSync(pidfile(), 'utf8')).toBe(held)
    // svc shutdown finds the first app.
    const down = await runSvcCli(['shutdown'], { cwd: dir })
    expect(down.stdout + down.stderr).toContain(`Stopped process ${first.pid}`)
    expect(await first.exited).toBe(0)
    expect(existsSync(pidfile())).toBe(false)
  })

  it('two started at once: exactly one serves, the other exits 2 naming it; svc shutdown stops the one that won', { timeout: 60_000 }, async () => {
    const a = await startSvc({ command: 'run', target: 'app.ts:app', cwd: dir, pidfile: true, noWait: true })
    const b = await startSvc({ command: 'dev', target: 'app.ts:app', cwd: dir, pidfile: true, noWait: true })
    // Each ends up serving or exits; polled (the helper's waitForLine spins once its process has exited).
    const outcome = async (t: SvcTree): Promise<{ t: SvcTree; code: number | string }> => {
      let code: number | string | null = null
      void t.exited.then((c) => (code = c))
      const deadline = Date.now() + 30_000
      while (Date.now() < deadline) {
        if (t.stderr.some((l) => l.includes('listening on'))) return { t, code: 'serving' }
        if (code !== null) return { t, code }
        await new Promise((r) => setTimeout(r, 50))
      }
      throw new Error(`neither serving nor exited within 30 s: ${t.stderr.join('\n')}`)
    }
    const [ra, rb] = await Promise.all([outcome(a), outcome(b)])
    const serving = [ra, rb].filter((r) => r.code === 'serving')
    const refused = [ra, rb].filter((r) => r.code !== 'serving')
    expect(serving, `a: ${a.stderr.join('|')} b: ${b.stderr.join('|')}`).toHaveLength(1)
    expect(refused[0]!.code).toBe(2)
    const winner = serving[0]!.t
    expect(refused[0]!.t.stderr.join('\n')).toMatch(new RegExp(`another svc \\(pid ${winner.pid}, (serving http://127\\.0\\.0\\.1:${winner.port}|still starting)\\) runs with the pid file \\.svc\\.pid`))
    expect(readFileSync(pidfile(), 'utf8')).toBe(`${winner.pid}\n`)
    const down = await runSvcCli(['shutdown'], { cwd: dir })
    expect(down.stdout + down.stderr).toContain(`Stopped process ${winner.pid}`)
    expect(await winner.exited).toBe(0)
    expect(existsSync(pidfile())).toBe(false)
  })

  it('a pidfile and state file deleted while svc runs are written again, so svc shutdown still finds the tree', async () => {
    const svc = await startSvc({ command: 'run', target: 'app.ts:app', cwd: dir, pidfile: true })
    const state = readFileSync(`${pidfile()}.state.json`, 'utf8')
    rmSync(pidfile())
    rmSync(`${pidfile()}.state.json`)
    await svc.waitForLine('stdout', /\.svc\.pid or its state file was deleted while svc runs; written again/, 10_000)
    await waitUntil('the pidfile and state file are back', () => existsSync(pidfile()) && existsSync(`${pidfile()}.state.json`), 10_000)
    expect(readFileSync(pidfile(), 'utf8')).toBe(`${svc.pid}\n`)
    expect(JSON.parse(readFileSync(`${pidfile()}.state.json`, 'utf8'))).toEqual(JSON.parse(state))
    // The state file alone, too.
    const from = svc.stdout.length
    rmSync(`${pidfile()}.state.json`)
    await svc.waitForLine('stdout', /was deleted while svc runs; written again/, 10_000, from)
    await waitUntil('the state file is back', () => existsSync(`${pidfile()}.state.json`), 10_000)
    const down = await runSvcCli(['shutdown'], { cwd: dir })
    expect(down.stdout + down.stderr).toContain(`Stopped process ${svc.pid}`)
    expect(await svc.exited).toBe(0)
    expect(existsSync(pidfile())).toBe(false)
    expect(existsSync(`${pidfile()}.state.json`)).toBe(false)
  })

  it('a stale pidfile (its process is gone) is taken over', async () => {
    writeFileSync(pidfile(), '999999\n')
    const svc = await startSvc({ command: 'run', target: 'app.ts:app', cwd: dir, pidfile: true })
    expect(readFileSync(pidfile(), 'utf8')).toBe(`${svc.pid}\n`)
    expect(await svc.stop()).toBe(0)
    expect(existsSync(pidfile())).toBe(false)
  })

  it("the app's own new Svc({ pidfile }) is the one held; another svc holding it stops the start with exit 2", async () => {
    writeFileSync(join(dir, 'own.ts'), app.replace("new Svc({ title: 'One per pidfile' })", "new Svc({ title: 'Own pidfile', pidfile: 'own.pid' })"))
    const first = await startSvc({ command: 'run', target: 'own.ts:app', cwd: dir, pidfile: true, noPort: true, args: ['--port', '0'] })
    expect(readFileSync(join(dir, 'own.pid'), 'utf8')).toBe(`${first.pid}\n`)
    // The pidfile known before the app loaded (the default) was given up for the app's.
    expect(existsSync(pidfile())).toBe(false)
    const second = await startSvc({ command: 'run', target: 'own.ts:app', cwd: dir, pidfile: true, noWait: true })
    expect(await second.exited).toBe(2)
    expect(second.stderr.join('\n')).toContain(`svc: error: another svc (pid ${first.pid}, serving http://127.0.0.1:${first.port}) runs with the pid file own.pid`)
    expect(readFileSync(join(dir, 'own.pid'), 'utf8')).toBe(`${first.pid}\n`)
    expect(existsSync(pidfile())).toBe(false)
    expect(await first.stop()).toBe(0)
    expect(existsSync(join(dir, 'own.pid'))).toBe(false)
  })

  it('an unwritable pidfile location is a usage error naming the path and the fix', async () => {
    writeFileSync(join(dir, 'file'), 'x')
    const svc = await startSvc({ command: 'run', target: 'app.ts:app', cwd: dir, pidfile: join(dir, 'file', 'svc.pid'), noWait: true })
    expect(await svc.exited).toBe(2)
    expect(svc.stderr.join('\n')).toMatch(/svc: error: cannot create the pid file file\/svc\.pid \(.*\); pass --pidfile with a path svc can write, or --no-pidfile/)
  })
})
