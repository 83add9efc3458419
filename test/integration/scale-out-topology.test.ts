import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, rmSync } from 'node:fs'
import { once } from 'node:events'
import { randomUUID } from 'node:crypto'
import pino from 'pino'
import { Agent, request } from 'undici'
import { RedisConnection } from '../../src/shared-state/redis-connection.js'
import { startAppIdp, type AppIdp } from '../helpers/auth-idp.js'
import { TestBrowser } from '../helpers/auth-browser.js'
import { NGINX, startNginx, stopNginx } from '../helpers/nginx.js'
import { hasRedis, RedisServer } from '../helpers/redis-server.js'
import { REPO, SVC_BIN, sigkillTree, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'
import { freePort, PageClient, sayHello, textOf } from '../helpers/ui-sidecar.js'

/**
 * The scale-out topology, all real and on loopback: redis-server, two svc trees (replicas A and
 * B, each with the bundled page server) sharing it through SVC_REDIS_URL, and nginx in front
 * running the shipped deploy/nginx/svc-root.conf (sticky cookie hash, failover to the other
 * replica for idempotent requests).
 */
const APP = `${REPO}test/fixtures/app-replicas.ts:app`
const SECRET = 'bff-secret-0123456789abcdef-0123456789abcdef'

describe.skipIf(!existsSync(NGINX) || !hasRedis)('scale-out: two replicas, Redis, nginx', () => {
  let redis: RedisServer
  let idp: AppIdp
  let nginx: ChildProcess
  let base: string
  let nginxPort: number
  const replicas: Record<'A' | 'B', SvcTree> = {} as Record<'A' | 'B', SvcTree>
  const ports: Record<'A' | 'B', number> = { A: 0, B: 0 }
  const dir = `${REPO}test/.tmp/topology-${randomUUID()}`
  const clients: PageClient[] = []
  let inspect: RedisConnection

  async function startReplica(name: 'A' | 'B'): Promise<SvcTree> {
    const tree = await startSvc({
      target: APP,
      noPort: true,
      pidfile: `${dir}/${name}.pid`,
      args: ['--port', String(ports[name]), '--proxy-headers'],
      env: {
        SVC_UI_COMMAND: undefined,
        SVC_REDIS_URL: redis.url,
        REPLICA: name,
        ...idp.env,
        SVC_UI_SESSION_TTL_S: '60',
        SVC_SHUTDOWN_GRACE_S: '5',
      },
    })
    replicas[name] = tree
    return tree
  }

  beforeAll(async () => {
    mkdirSync(dir, { recursive: true })
    redis = await RedisServer.start()
    inspect = new RedisConnection({ url: redis.url, keyPrefix: 'svc:', timeoutMs: 1000, maxValueBytes: 1024 * 1024, logger: pino({ level: 'silent' }) })
    nginxPort = await freePort()
    base = `http://127.0.0.1:${nginxPort}`
    idp = await startAppIdp({ envPrefix: 'IDP', bffSecret: SECRET, port: nginxPort })
    ports.A = await freePort()
    ports.B = await freePort()
    await Promise.all([startReplica('A'), startReplica('B')])
    // The shipped deploy/nginx/svc-root.conf, templated only to loopback ports.
    nginx = (await startNginx(`${dir}/nginx`, 'svc-root.conf', [ports.A, ports.B], nginxPort)).proc
  }, 90_000)

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
    await stopNginx(nginx)
    await stopAllTrees()
    await inspect?.destroy()
    await idp?.idp.close()
    await redis?.stop()
    rmSync(dir, { recursive: true, force: true })
  }, 60_000)

  async function pageClient(): Promise<PageClient> {
    const c = await new PageClient(`ws://127.0.0.1:${nginxPort}/_stcore/stream`).open()
    clients.push(c)
    return c
  }

  async function waitForSnapshot(sessionId: string, expectText: string): Promise<void> {
    const deadline = Date.now() + 10_000
    for (;;) {
      const raw = await inspect.get(`page-session:${sessionId}`)
      if (raw !== null && Buffer.from(raw, 'base64').includes(Buffer.from(expectText))) return
      if (Date.now() > deadline) throw new Error(`no snapshot of ${sessionId} containing ${expectText}`)
      await new Promise((r) => setTimeout(r, 50))
    }
  }

  it('a login that starts on replica A completes on replica B', async () => {
    const browser = new TestBrowser()
    const a = `http://127.0.0.1:${ports.A}`
    const b = `http://127.0.0.1:${ports.B}`
    const loginPage = await browser.follow(`${a}/api/auth/login`)
    expect(loginPage.status).toBe(200)
    const atCallback = await browser.submitLogin(loginPage, 'ada', (url) => url.startsWith(`${base}/api/auth/callback`))
    const callback = new URL(atCallback.location as string)
    // The bind cookie was set by A; the callback lands on B with it.
    for (const [k, v] of browser.cookies(`${a}/`)) browser.cookies(`${b}/`).set(k, v)
    const done = await browser.fetch(`${b}${callback.pathname}${callback.search}`)
    expect(done.status, done.body).toBe(302)
    const code = new URL(done.location as string).searchParams.get('auth_code')
    expect(code).toBeTruthy()
    const exchanged = await request(`${a}/api/auth/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ auth_code: code }),
    })
    expect(exchanged.statusCode).toBe(200)
    const token = ((await exchanged.body.json()) as { access_token: string }).access_token
    const again = await request(`${b}/api/auth/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ auth_code: code }),
    })
    expect(again.statusCode).toBe(401)
    await again.body.dump()
    const me = await request(`${b}/api/me`, { headers: { authorization: `Bearer ${token}` } })
    expect(await me.body.json()).toEqual({ replica: 'B', sub: 'ada' })
  })

  it('a page session survives SIGKILL of its replica and resumes on the other with its state', async () => {
    const c = await pageClient()
    // The first session on a replica starts its page thread: sayHello allows for a loaded machine.
    const first = await sayHello(c)
    const { sessionId } = first.session
    let render = first.render
    const served = /replica: ([AB])/.exec(textOf(render))![1] as 'A' | 'B'
    const other = served === 'A' ? 'B' : 'A'
    const button = render.main.find((n) => n.type === 'button')!
    c.send({ type: 'widget', id: button.id, value: true, trigger: true })
    render = await c.render()
    c.send({ type: 'widget', id: button.id, value: true, trigger: true })
    render = await c.render()
    const input = render.main.find((n) => n.type === 'textInput')!
    c.send({ type: 'widget', id: input.id, value: 'Grace' })
    render = await c.render()
    expect(textOf(render)).toContain('count: 2')
    expect(textOf(render)).toContain('name: Grace')
    await waitForSnapshot(sessionId, 'Grace')

    const victim = replicas[served]
    const killedAt = performance.now()
    expect(await sigkillTree(victim)).toEqual([])
    if (c.ws.readyState !== c.ws.CLOSED) await Promise.race([once(c.ws, 'close'), new Promise((_, reject) => setTimeout(() => reject(new Error('the page socket did not close')), 10_000))])

    const resumed = await pageClient()
    resumed.send({ type: 'hello', sessionId, path: '/', query: '' })
    const session = await resumed.next('session', 10_000)
    const back = await resumed.render(10_000)
    const resumeMs = performance.now() - killedAt
    expect(session).toMatchObject({ sessionId, restored: true })
    const text = textOf(back)
    expect(text).toContain(`replica: ${other}`)
    expect(text).toContain('count: 2')
    expect(text).toContain('name: Grace')
    expect(text).toContain('since: 2026-01-02T03:04:05.000Z')
    console.info(`page session resumed on replica ${other} ${resumeMs.toFixed(0)} ms after SIGKILL of replica ${served}`)
    // The function in session state was left out of the snapshot, with one warning naming it.
    const warnings = [...victim.stdout, ...victim.stderr].filter((l) => l.includes('"key":"callback"') && l.includes('cannot be saved'))
    expect(warnings).toHaveLength(1)
    // Bring the killed replica back for the next test.
    await startReplica(served)
  }, 60_000)

  it('svc shutdown of one replica under load loses no request (nginx retries idempotent requests on the other)', async () => {
    const victim: 'A' | 'B' = 'A'
    const agent = new Agent({ connections: 16 })
    let stop = false
    const failures: string[] = []
    let ok = 0
    const seen = new Set<string>()
    // Different affinity cookies spread the load over both replicas.
    const worker = async (i: number): Promise<void> => {
      while (!stop) {
        try {
          const res = await request(`${base}/api/slow?ms=20`, { dispatcher: agent, headers: { cookie: `svc_route=client-${i}` } })
          const body = (await res.body.json()) as { replica?: string }
          if (res.statusCode === 200) {
            ok++
            if (body.replica) seen.add(body.replica)
          } else failures.push(`${res.statusCode} ${JSON.stringify(body)}`)
        } catch (err) {
          failures.push(String(err))
        }
      }
    }
    const load = Array.from({ length: 8 }, (_, i) => worker(i))
    // Traffic on both replicas before the stop, then `svc shutdown` of A while it continues. A
    // replica restarted by the test before is skipped by nginx until its fail_timeout (10 s in
    // deploy/nginx/svc-root.conf) has passed since the SIGKILL: wait past it, not a request count.
    const bothBy = Date.now() + 15_000
    while (ok < 50 || seen.size < 2) {
      if (failures.length > 0 || Date.now() > bothBy) break
      await new Promise((r) => setTimeout(r, 20))
    }
    expect([...seen].sort()).toEqual(['A', 'B'])
    const shutdown = spawn(process.execPath, [SVC_BIN, 'shutdown', '--pidfile', `${dir}/${victim}.pid`], { cwd: REPO, stdio: 'ignore' })
    const [code] = (await once(shutdown, 'exit')) as [number]
    expect(code).toBe(0)
    await replicas[victim].exited
    const after = ok
    while (ok < after + 50) await new Promise((r) => setTimeout(r, 20))
    stop = true
    await Promise.all(load)
    await agent.close()
    expect(failures).toEqual([])
    expect(ok).toBeGreaterThan(100)
    await startReplica(victim)
  }, 60_000)
})
