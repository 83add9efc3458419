import { afterEach, describe, expect, it } from 'vitest'
import net from 'node:net'
import { request } from 'undici'
import { readFileSync } from 'node:fs'
import { startSvc, stopAllTrees, waitGone, descendants, isAlive, REPO } from '../helpers/svc-process.js'

/** Real process trees: signals, crashes, orphans, drains. After each: no process, no listener. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1')
    s.once('connect', () => {
      s.destroy()
      resolve(false)
    })
    s.once('error', () => resolve(true))
  })
}

/** Until `n` slow handlers run in the worker (each request was accepted and is being served). */
async function waitSlowRunning(url: string, n: number): Promise<void> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const { slow } = (await (await request(`${url}/api/inflight`)).body.json()) as { slow: number }
    if (slow >= n) return
    if (Date.now() > deadline) throw new Error(`${slow} of ${n} slow requests reached the worker within 10 s`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

function roleOf(pid: number): 'gateway' | 'sidecar' | 'other' {
  try {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    if (cmd.startsWith('svc gateway')) return 'gateway'
    if (cmd.includes('echo-sidecar') || cmd.startsWith('svc sidecar')) return 'sidecar'
  } catch {
    // gone
  }
  return 'other'
}

describe('process model', () => {
  afterEach(stopAllTrees)

  it('exits 1 within 5 s when the sidecar is SIGKILLed, naming the signal, leaving nothing behind', async () => {
    const svc = await startSvc()
    const tree = svc.treePids()
    const sidecar = descendants(svc.pid).find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0')[1]?.endsWith('echo-sidecar.mjs'))!
    process.kill(sidecar, 'SIGKILL')
    const started = Date.now()
    expect(await svc.exited).toBe(1)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(svc.stderr.join('\n')).toMatch(/ui sidecar exited \((killed by signal SIGKILL|exit code \d+)\)/)
    expect(await waitGone(tree, 5_000)).toEqual([])
    expect(await portFree(svc.port)).toBe(true)
  })

  it('cleans up the ui_command when its guard is SIGKILLed', async () => {
    const svc = await startSvc()
    const tree = svc.treePids()
    const guard = descendants(svc.pid).find((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('sidecar-guard'))!
    process.kill(guard, 'SIGKILL')
    expect(await svc.exited).toBe(1)
    expect(await waitGone(tree, 5_000)).toEqual([])
    expect(await portFree(svc.port)).toBe(true)
  })

  it('leaves no child and no bound port when the supervisor is SIGKILLed', async () => {
    const svc = await startSvc()
    const tree = svc.treePids()
    expect(tree.length).toBeGreaterThanOrEqual(4) // supervisor, guard, sidecar, worker
    process.kill(svc.pid, 'SIGKILL')
    expect(await waitGone(tree, 5_000)).toEqual([])
    expect(await portFree(svc.port)).toBe(true)
  })

  it('finishes 50 in-flight slow requests on SIGTERM, then exits 0', async () => {
    const svc = await startSvc()
    const tree = svc.treePids()
    const inflight = Array.from({ length: 50 }, (_, i) =>
      request(`${svc.url}/api/slow?ms=800&i=${i}`).then(async (r) => ({ status: r.statusCode, body: await r.body.json() })),
    )
    // All 50 reached the worker before the signal: the slow handler is running for each.
    await waitSlowRunning(svc.url, 50)
    svc.proc.kill('SIGTERM')
    const results = await Promise.all(inflight)
    expect(results.every((r) => r.status === 200)).toBe(true)
    expect(await svc.exited).toBe(0)
    expect(await waitGone(tree, 5_000)).toEqual([])
    expect(await portFree(svc.port)).toBe(true)
    // The stop is in the log, where a silent exit read like a crash.
    const said = svc.stdout.filter((l) => l.includes('"logger":"svc.supervisor"')).map((l) => (JSON.parse(l) as { message: string }).message)
    expect(said).toEqual(expect.arrayContaining(['stopping: gateway workers drain, then the ui sidecar stops', 'stopped']))
  })

  it('SIGKILLs a worker that cannot drain once the grace is over', async () => {
    const svc = await startSvc({ env: { SVC_SHUTDOWN_GRACE_S: '1' } })
    const tree = svc.treePids()
    const blocked = request(`${svc.url}/api/block?ms=30000`).catch(() => 'reset')
    await svc.waitForLine('stdout', /block handler started/)
    const started = Date.now()
    svc.proc.kill('SIGTERM')
    await svc.exited
    expect(Date.now() - started).toBeLessThan(8_000)
    expect(await waitGone(tree, 5_000)).toEqual([])
    await blocked
  })

  it('restarts a crashed worker and keeps serving', async () => {
    const svc = await startSvc()
    const worker = descendants(svc.pid).find((p) => roleOf(p) === 'gateway')!
    process.kill(worker, 'SIGKILL')
    await svc.waitForLine('stdout', /exited unexpectedly/)
    const deadline = Date.now() + 10_000
    let pid = 0
    while (Date.now() < deadline) {
      try {
        const res = await request(`${svc.url}/api/pid`)
        pid = ((await res.body.json()) as { pid: number }).pid
        if (pid !== worker) break
      } catch {
        await new Promise((r) => setTimeout(r, 50))
      }
    }
    expect(pid).not.toBe(worker)
    expect(isAlive(pid)).toBe(true)
    await svc.waitForLine('stdout', new RegExp(`gateway worker ${worker} restarted after a crash; ${pid} serves slot 0`))
  })

  it('stops the tree after five worker crashes within a minute, with a clear message', async () => {
    const svc = await startSvc()
    const tree = svc.treePids()
    for (let i = 0; i < 5; i++) {
      // Wait for a ready worker, then crash it.
      const deadline = Date.now() + 15_000
      for (;;) {
        try {
          const res = await request(`${svc.url}/api/crash`, { reset: true })
          await res.body.dump()
          if (res.statusCode === 200) break
        } catch {
          // between workers
        }
        if (Date.now() > deadline || svc.proc.exitCode !== null) break
        await new Promise((r) => setTimeout(r, 50))
      }
      if (svc.proc.exitCode !== null) break
      if (i < 4) await svc.waitForLine('stdout', new RegExp(`exited unexpectedly[^]*restarting in ${100 * 2 ** i} ms`))
    }
    expect(await svc.exited).toBe(1)
    expect(svc.stderr.join('\n')).toMatch(/gateway worker crashed 5 times within 60 s .*exit code 3.*stopping svc/)
    expect(await waitGone(tree, 5_000)).toEqual([])
  })

  it('takes down grandchildren of a shell ui_command when the supervisor is SIGKILLed', async () => {
    const svc = await startSvc({ env: { SVC_UI_COMMAND: JSON.stringify(['sh', '-c', `node ${REPO}test/fixtures/echo-sidecar.mjs {port}; echo done`]) } })
    const tree = svc.treePids()
    expect(tree.some((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith('sh\0'))).toBe(true)
    process.kill(svc.pid, 'SIGKILL')
    expect(await waitGone(tree, 5_000)).toEqual([])
    expect(await portFree(svc.port)).toBe(true)
  })

  it('answers readyz 503 while draining and forces on a second SIGINT', async () => {
    const svc = await startSvc({ env: { SVC_SHUTDOWN_GRACE_S: '30' } })
    const tree = svc.treePids()
    const { Agent } = await import('undici')
    const agent = new Agent({ connections: 1, keepAliveTimeout: 30_000 })
    // One kept-alive connection: opened before the drain, reused during it.
    expect((await request(`${svc.url}/api/readyz`, { dispatcher: agent })).statusCode).toBe(200)
    const slow = request(`${svc.url}/api/slow?ms=20000`).catch(() => 'reset')
    await waitSlowRunning(svc.url, 1)
    svc.proc.kill('SIGINT')
    await svc.waitForLine('stderr', /stopping \(Ctrl-C again to force\)/)
    // The drain order travels over IPC after the line above: poll (same connection) until it lands.
    let during = await request(`${svc.url}/api/readyz`, { dispatcher: agent })
    const deadline = Date.now() + 5_000
    while (during.statusCode === 200 && Date.now() < deadline) {
      await during.body.dump()
      during = await request(`${svc.url}/api/readyz`, { dispatcher: agent })
    }
    expect(during.statusCode).toBe(503)
    expect(during.headers.connection).toBe('close')
    expect(await during.body.json()).toEqual({ status: 'not_ready', detail: 'draining' })
    const started = Date.now()
    svc.proc.kill('SIGINT')
    await svc.exited
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(await waitGone(tree, 5_000)).toEqual([])
    await slow
    await agent.close()
  })

  it('serves from two worker pids with --workers 2', async () => {
    const svc = await startSvc({ args: ['--workers', '2'] })
    const workers = descendants(svc.pid).filter((p) => roleOf(p) === 'gateway')
    expect(workers).toHaveLength(2)
    const seen = new Set<number>()
    for (let i = 0; i < 200 && seen.size < 2; i++) {
      const res = await request(`${svc.url}/api/pid`, { reset: true, headers: { connection: 'close' } })
      seen.add(((await res.body.json()) as { pid: number }).pid)
    }
    expect([...seen].sort()).toEqual(workers.sort())
  })

  it('refuses bad settings before starting anything (exit 2, naming the variable and value)', async () => {
    const svc = await startSvc({ args: ['--workers', 'lots'], noWait: true })
    expect(await svc.exited).toBe(2)
    expect(svc.stderr.join('\n')).toContain('flag --workers: "lots" is not valid for workers')
    const bad = await startSvc({ env: { SVC_TRUST_PROXY: 'maybe' }, noWait: true })
    expect(await bad.exited).toBe(2)
    expect(bad.stderr.join('\n')).toContain('environment variable SVC_TRUST_PROXY: "maybe" is not valid for trust_proxy')
  })

  it('names a missing target file and a missing export (exit 2)', async () => {
    const missing = await startSvc({ target: 'nope/app.ts:app', noWait: true })
    expect(await missing.exited).toBe(2)
    expect(missing.stderr.join('\n')).toMatch(/cannot find the app module "nope\/app.ts"/)
    const noExport = await startSvc({ target: `${REPO}test/fixtures/app-basic.ts:other`, noWait: true })
    expect(await noExport.exited).toBe(2)
    expect(noExport.stderr.join('\n')).toMatch(/has no export "other" \(found: app\)/)
  })

  it('fails fast with exit 1 when the port is taken, starting no child', async () => {
    const blocker = net.createServer()
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()))
    const port = (blocker.address() as net.AddressInfo).port
    try {
      const svc = await startSvc({ args: ['--port', String(port)], noWait: true })
      expect(await svc.exited).toBe(1)
      expect(svc.stderr.join('\n')).toContain(`cannot bind 127.0.0.1:${port}: EADDRINUSE`)
      expect(svc.stdout.join('\n')).not.toMatch(/sidecar|gateway worker/)
    } finally {
      blocker.close()
    }
  })

  it('rejects an invalid --reload-scope with exit 2 before any process starts', async () => {
    const svc = await startSvc({ command: 'dev', args: ['--reload', '--reload-scope', 'bogus'], noWait: true })
    expect(await svc.exited).toBe(2)
    expect(svc.stderr.join('\n')).toMatch(/--reload-scope must be 'gateway' or 'full' \(got "bogus"\)/)
  })
})
