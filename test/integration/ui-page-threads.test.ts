import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { once } from 'node:events'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { PageClient, PageServerFixture, startSidecar, textOf, type Sidecar } from '../helpers/ui-sidecar.js'

const buttonId = (render: Awaited<ReturnType<PageClient['render']>>, label: string): string =>
  render.main.find((n) => n.type === 'button' && n.props.label === label)!.id

/**
 * Page sessions on worker threads (`ui_page_threads`): one session burning CPU does not delay
 * another's rerun; media, dataframe paging and resume cross the thread boundary; a crashed
 * thread is replaced and its sessions reconnect.
 */
describe('ui page threads (real sidecar, two threads)', () => {
  const server = new PageServerFixture()
  let sc: Sidecar
  let api: Server

  beforeAll(async () => {
    // The API the page's client calls (SVC_INTERNAL_API_BASE reaches the threads through their environment).
    api = createServer((req, res) => res.end(req.url === '/api/ping' ? 'pong' : 'wrong path'))
    api.listen(0, '127.0.0.1')
    await once(api, 'listening')
    const apiBase = `http://127.0.0.1:${(api.address() as { port: number }).port}/api`
    sc = await server.start('test/fixtures/ui-busy-app.ts', { SVC_UI_PAGE_THREADS: '2', SVC_UI_SESSION_TTL_S: '30', SVC_INTERNAL_API_BASE: apiBase })
  }, 70_000)
  afterAll(async () => {
    await server.stop()
    await new Promise((resolve) => api?.close(resolve))
  })

  it('a page thread has a heap cap by default (ui_page_thread_max_heap_mb 512)', async () => {
    const c = await server.connect()
    c.send({ type: 'hello', sessionId: null, path: '/heap', query: '' })
    // The old generation's cap plus the young generation (3 x 12 MiB semi-spaces at most).
    const limit = Number(/heap limit MiB=(\d+)/.exec(textOf(await c.render(15_000)))![1])
    expect(limit).toBeGreaterThanOrEqual(512)
    expect(limit).toBeLessThan(560)
  }, 60_000)

  it("a page's API client reaches the API from its thread", async () => {
    const c = await server.connect()
    c.send({ type: 'hello', sessionId: null, path: '/api', query: '' })
    expect(textOf(await c.render(15_000))).toBe('api says pong')
  }, 60_000)

  it("a session burning 2 s of CPU delays no other: a new session starts another thread, one that shared its thread moves", async () => {
    // Sessions opened while every thread turns share the thread: one thread for A and C.
    const a = await server.connect()
    const { render: ra } = await server.hello(a)
    const c = await server.connect()
    const { render: rc } = await server.hello(c)
    const burn = async (): Promise<void> => {
      a.send({ type: 'widget', id: buttonId(ra, 'Burn'), value: true, trigger: true })
      // The run has started (and with it the burn) once its run_state arrives.
      await a.next('run_state', 5000, (m) => m.running && m.runId > ra.runId)
    }

    // B arrives while A's thread burns: B gets a thread of its own.
    await burn()
    const b = await server.connect({ 'accept-language': 'fr' })
    const { render: rb } = await server.hello(b)
    expect(textOf(rb)).toBe('count=0 hello=hi lang=fr')
    expect(textOf(await a.render(10_000))).toBe('count=0 hello=hi lang=-')

    await burn()
    let t0 = performance.now()
    b.send({ type: 'widget', id: buttonId(rb, 'Add'), value: true, trigger: true })
    expect(textOf(await b.render(5000))).toBe('count=1 hello=hi lang=fr')
    let ms = performance.now() - t0
    console.log(`isolation: B's rerun answered in ${ms.toFixed(1)} ms while A burns 2 s of CPU`)
    // The figure is 100 ms; a loaded 2-core CI box gets a margin, still far below the 2 s burn.
    expect(ms).toBeLessThan(400)
    expect(textOf(await a.render(10_000))).toBe('count=0 hello=hi lang=-')

    // C shares A's thread: its message waits until that thread is busy, then C continues on the other with its state.
    c.send({ type: 'widget', id: buttonId(rc, 'Add'), value: true, trigger: true })
    expect(textOf(await c.render(5000))).toBe('count=1 hello=hi lang=-')
    await burn()
    t0 = performance.now()
    c.send({ type: 'widget', id: buttonId(rc, 'Add'), value: true, trigger: true })
    // The session's first render there (its state as it was) comes first, then the click's.
    await c.next('render', 5000, (m) => !m.partial && textOf(m) === 'count=2 hello=hi lang=-')
    ms = performance.now() - t0
    console.log(`isolation: C moved to another thread and its rerun answered in ${ms.toFixed(1)} ms while A burns 2 s of CPU`)
    // 200 ms until A's thread counts as busy, then C's session opens on the other thread and reruns twice.
    expect(ms).toBeLessThan(1200)
    expect(textOf(await a.render(10_000))).toBe('count=0 hello=hi lang=-')
    c.send({ type: 'widget', id: buttonId(rc, 'Add'), value: true, trigger: true })
    expect(textOf(await c.render(5000))).toBe('count=3 hello=hi lang=-')
  }, 60_000)

  it('media and dataframe paging cross the thread boundary; a reconnect resumes state on its thread', async () => {
    const c = await server.connect()
    const { session, render } = await server.hello(c)
    const image = render.main.find((n) => n.type === 'image')!
    const res = await fetch(`${sc.url}${String(image.props.url)}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/png')
    expect(new Uint8Array(await res.arrayBuffer()).subarray(1, 4)).toEqual(new TextEncoder().encode('PNG'))

    const table = render.main.find((n) => n.type === 'dataframe')!
    c.send({ type: 'dataframe_page', id: table.id, page: 2, sort: null })
    const rows = await c.next('dataframe_rows')
    expect(rows).toMatchObject({ id: table.id, page: 2, totalRows: 45 })
    expect(JSON.stringify(rows.rows)).toContain('20')

    c.send({ type: 'widget', id: buttonId(render, 'Add'), value: true, trigger: true })
    expect(textOf(await c.render())).toContain('count=1')
    await c.close()
    const again = await server.connect()
    const resumed = await server.hello(again, session.sessionId)
    expect(resumed.session).toMatchObject({ sessionId: session.sessionId, restored: true })
    expect(textOf(resumed.render)).toContain('count=1')
  }, 60_000)
})

describe('ui page threads start with the first page request, as load needs them, and go when idle', () => {
  let sc: Sidecar
  let idle = 0
  const clients: PageClient[] = []
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()))
    await sc?.stop()
  })
  /**
   * The process's OS threads but libuv's pool: that pool (UV_THREADPOOL_SIZE, 4) starts with the
   * first file or zlib work and stays for good; Node 24 starts it later than Node 20, after the
   * idle count is taken.
   */
  const threadsOf = (pid: number): number =>
    readdirSync(`/proc/${pid}/task`).filter((tid) => {
      try {
        return readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() !== 'libuv-worker'
      } catch {
        // The thread ended between the listing and the read.
        return false
      }
    }).length
  const lines = (message: string): Record<string, unknown>[] =>
    sc.stdout().split('\n').filter((l) => l.includes(`"message":"${message}`)).map((l) => JSON.parse(l) as Record<string, unknown>)
  const until = async (what: string, ok: () => boolean): Promise<void> => {
    const deadline = Date.now() + 20_000
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`${what}: not within 20 s; page server log:\n${sc.stdout()}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  const visit = async (): Promise<{ c: PageClient; render: Awaited<ReturnType<PageClient['render']>> }> => {
    const c = await new PageClient(`ws://127.0.0.1:${sc.port}/_stcore/stream`).open()
    clients.push(c)
    c.send({ type: 'hello', sessionId: null, path: '/', query: '' })
    return { c, render: await c.render(30_000) }
  }

  it('an idle page server holds none; a browser request for a page starts one, and sessions opened while it turns share it', async () => {
    // A burn long enough that a second visitor connects during it on a loaded machine (CI on
    // Node 24 saw a visit outlast a 600 ms burn, and B share A's thread).
    sc = await startSidecar('test/fixtures/ui-busy-app.ts', { SVC_UI_PAGE_THREADS: '2', SVC_LOG_LEVEL: 'info', SVC_UI_PAGE_THREAD_IDLE_S: '1', BURN_MS: '3000' }, 60_000)
    const pid = sc.proc.pid!
    idle = threadsOf(pid)
    expect(sc.stdout()).not.toContain('ui page threads starting')
    // Static files and health checks do not start them.
    expect((await fetch(`${sc.url}/_stcore/health`)).status).toBe(200)
    expect((await fetch(`${sc.url}/_stcore/static/app.js`)).status).toBe(200)
    // Neither does a GET / that does not ask for HTML (the gateway's readyz probe, a monitor).
    expect((await fetch(`${sc.url}/`)).status).toBe(200)
    expect(sc.stdout()).not.toContain('ui page threads starting')
    const shell = await fetch(`${sc.url}/`, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } })
    expect(shell.status).toBe(200)
    await shell.text()
    await until('a "page threads starting" line', () => lines('ui page threads starting').length > 0)
    expect(lines('ui page threads starting')[0]).toMatchObject({ page_threads: 2 })
    const first = await visit()
    const second = await visit()
    // One page thread (at least one OS thread) runs beside the idle count, and holds both sessions.
    expect(threadsOf(pid)).toBeGreaterThanOrEqual(idle + 1)
    expect(new Set(lines('ui session connected').map((l) => l.thread)).size).toBe(1)
    await Promise.all([first.c.close(), second.c.close()])
  }, 90_000)

  it('a thread that ran nothing for ui_page_thread_idle_s is let go: its open sessions move on with their state, the last one goes once no page is open', async () => {
    const pid = sc.proc.pid!
    // The sessions above left: their thread goes, and with it its OS threads.
    await until('the first thread let go', () => lines('ui page thread let go').length === 1)
    await until('the page server back to its idle threads', () => threadsOf(pid) <= idle)

    // A visitor starts a thread again; B arrives while it burns, so B gets a second one.
    const a = await visit()
    a.c.send({ type: 'widget', id: buttonId(a.render, 'Add'), value: true, trigger: true })
    expect(textOf(await a.c.render())).toContain('count=1')
    a.c.send({ type: 'widget', id: buttonId(a.render, 'Burn'), value: true, trigger: true })
    await a.c.next('run_state', 5000, (m) => m.running)
    const b = await visit()
    await a.c.render(10_000)
    const [onA, onB] = lines('ui session connected').slice(-2).map((l) => l.thread)
    expect(onA).not.toBe(onB)

    // Both idle: one thread hands its session to the other (a rerun there, state kept) and goes.
    const moved = await Promise.race([a.c.next('session', 20_000).then(() => a), b.c.next('session', 20_000).then(() => b)])
    expect(textOf(await moved.c.render())).toContain(moved === a ? 'count=1' : 'count=0')
    moved.c.send({ type: 'widget', id: buttonId(moved.render, 'Add'), value: true, trigger: true })
    expect(textOf(await moved.c.render())).toContain(moved === a ? 'count=2' : 'count=1')
    await until('the emptied thread let go', () => lines('ui page thread let go').length === 2)

    // Nobody left: the last thread goes too.
    await Promise.all([a.c.close(), b.c.close()])
    await until('the last thread let go', () => lines('ui page thread let go').length === 3)
    await until('the page server back to its idle threads', () => threadsOf(pid) <= idle)
    expect(sc.stderr()).toBe('')
  }, 90_000)
})

describe('ui_page_threads: 0 (sessions in the page server thread)', () => {
  const server = new PageServerFixture()
  let sc: Sidecar

  beforeAll(async () => {
    sc = await server.start('test/fixtures/ui-busy-app.ts', { SVC_UI_PAGE_THREADS: '0', BURN_MS: '600' })
  }, 70_000)
  afterAll(() => server.stop())

  it('serves sessions, media and resume in-process; a burning session delays the others (the trade-off)', async () => {
    const open = async (sessionId: string | null = null) => {
      const c = await server.connect()
      return { c, ...(await server.hello(c, sessionId)) }
    }
    const a = await open()
    const b = await open()
    const image = b.render.main.find((n) => n.type === 'image')!
    expect((await fetch(`${sc.url}${String(image.props.url)}`)).status).toBe(200)

    const burn = a.render.main.find((n) => n.type === 'button' && n.props.label === 'Burn')!
    a.c.send({ type: 'widget', id: burn.id, value: true, trigger: true })
    await a.c.next('run_state', 5000, (m) => m.running && m.runId > a.render.runId)
    const t0 = performance.now()
    const add = b.render.main.find((n) => n.type === 'button' && n.props.label === 'Add')!
    b.c.send({ type: 'widget', id: add.id, value: true, trigger: true })
    expect(textOf(await b.c.render(5000))).toContain('count=1')
    expect(performance.now() - t0).toBeGreaterThan(300)

    await b.c.close()
    const again = await open(b.session.sessionId)
    expect(again.session.restored).toBe(true)
    expect(textOf(again.render)).toContain('count=1')
  }, 60_000)
})

describe('ui page threads: a crashed thread', () => {
  const server = new PageServerFixture()
  let sc: Sidecar

  beforeAll(async () => {
    sc = await server.start('test/fixtures/ui-busy-app.ts', { SVC_UI_PAGE_THREADS: '2', SVC_LOG_LEVEL: 'info', BURN_MS: '600' })
  }, 70_000)
  afterAll(() => server.stop())

  it('a thread that crashes is replaced: its sessions continue on a new thread with their state, on the same socket; the others keep running', async () => {
    const a = await server.connect()
    const { session: sa, render: ra } = await server.hello(a)
    a.send({ type: 'widget', id: buttonId(ra, 'Add'), value: true, trigger: true })
    expect(textOf(await a.render())).toContain('count=1')
    // B arrives while A's thread is busy, so it runs on another thread.
    a.send({ type: 'widget', id: buttonId(ra, 'Burn'), value: true, trigger: true })
    await a.next('run_state', 5000, (m) => m.running && m.runId > ra.runId)
    const b = await server.connect()
    const { render: rb } = await server.hello(b)
    await a.settled()
    let closed = false
    a.ws.on('close', () => (closed = true))
    a.send({ type: 'widget', id: buttonId(ra, 'Crash'), value: true, trigger: true })
    // No close and no reconnect: the page server asks the browser to say hello again on this socket.
    await a.next('resume', 10_000)
    const again = await server.hello(a, sa.sessionId)
    expect(again.session).toMatchObject({ sessionId: sa.sessionId, restored: true })
    expect(textOf(again.render)).toContain('count=1')
    expect(closed).toBe(false)

    // The other thread's session is untouched.
    b.send({ type: 'widget', id: buttonId(rb, 'Add'), value: true, trigger: true })
    expect(textOf(await b.render())).toContain('count=1')

    expect((await fetch(`${sc.url}/_stcore/health`)).status).toBe(200)
    const lines = sc.stdout().split('\n').filter((l) => l.includes('ui page thread stopped'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).not.toContain(sa.sessionId!)
    expect(sc.stderr()).toBe('')
  }, 60_000)

  it('a session whose page crashes its thread on every run stops being moved: its socket closes with 1011', async () => {
    const c = await server.connect()
    const { session, render } = await server.hello(c)
    const closed = once(c.ws, 'close') as Promise<[number, Buffer]>
    let sessionId = session.sessionId
    let crash = buttonId(render, 'Crash')
    for (let round = 0; ; round++) {
      c.send({ type: 'widget', id: crash, value: true, trigger: true })
      const answer = await Promise.race([
        c.next('resume', 10_000).then(() => 'resume' as const, () => 'none' as const),
        closed.then(() => 'closed' as const),
      ])
      if (answer === 'closed') break
      expect(answer).toBe('resume')
      expect(round).toBeLessThan(3)
      const again = await server.hello(c, sessionId)
      sessionId = again.session.sessionId
      crash = buttonId(again.render, 'Crash')
    }
    const [code] = await closed
    expect(code).toBe(1011)
  }, 90_000)
})

describe('ui page threads: the heap cap (issue #34.5)', () => {
  const server = new PageServerFixture()
  let sc: Sidecar

  // One thread, so the page that allocates and a quiet session share it.
  beforeAll(async () => {
    sc = await server.start('test/fixtures/ui-busy-app.ts', { SVC_UI_PAGE_THREADS: '1', SVC_UI_PAGE_THREAD_MAX_HEAP_MB: '96', SVC_LOG_LEVEL: 'info' })
  }, 70_000)
  afterAll(() => server.stop())

  it('a page that allocates without end stops only its thread at the cap; the sessions on it resume on a new thread with their state', async () => {
    const quiet = await server.connect()
    const { session: sq, render: rq } = await server.hello(quiet)
    quiet.send({ type: 'widget', id: buttonId(rq, 'Add'), value: true, trigger: true })
    expect(textOf(await quiet.render())).toContain('count=1')
    const hog = await server.connect()
    const { render: rh } = await server.hello(hog)
    hog.send({ type: 'widget', id: buttonId(rh, 'Hog'), value: true, trigger: true })
    await hog.next('resume', 30_000)
    await quiet.next('resume', 30_000)
    const again = await server.hello(quiet, sq.sessionId)
    expect(again.session).toMatchObject({ sessionId: sq.sessionId, restored: true })
    expect(textOf(again.render)).toContain('count=1')
    expect(sc.proc.exitCode).toBeNull()
    const line = sc.stdout().split('\n').find((l) => l.includes('SVC_ERR_UI_PAGE_MEMORY'))
    expect(JSON.parse(line!)).toMatchObject({ level: 'error', max_heap_mb: 96, pages: ['/'] })
    // The page server itself stayed small: the thread's heap went with it.
    const rssMb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${sc.proc.pid}/status`, 'utf8'))![1]) / 1024
    console.log(`page server RSS after a page hit the 96 MiB cap: ${rssMb.toFixed(0)} MiB`)
    expect(rssMb).toBeLessThan(400)
  }, 90_000)
})
