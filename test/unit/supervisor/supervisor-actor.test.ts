import { once } from 'node:events'
import pino from 'pino'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { childEnv, parseChildEnv } from '../../../src/process/child-env.js'
import { optionsLayer, resolveSettings } from '../../../src/settings/resolve.js'
import { RESTART_POLICY, Supervisor, type RestartPolicy } from '../../../supervisor/supervisor.js'
import type { WorkerHandle } from '../../../supervisor/worker.js'
import { FakeChildren, type FakeWorker, type WorkerScript } from '../../helpers/fake-children.js'

/**
 * The supervisor's logic against in-memory children (test/helpers/fake-children.ts): real
 * Supervisor, WorkerHandle and Sidecar, fake processes over memory channels, vitest's fake clock
 * for back-off and deadlines. No process is started; each test runs in milliseconds.
 */

interface Harness {
  sup: Supervisor
  fakes: FakeChildren
  logs: Record<string, unknown>[]
  /** Resolves with the first onExit; `exits` counts every call. */
  exited: Promise<{ code: number; message?: string }>
  exits: () => number
}

const running: Supervisor[] = []

function harness(opts: { options?: Record<string, unknown>; restart?: RestartPolicy; scripts?: WorkerScript[]; sidecarHealth?: boolean[]; standbyWorkers?: boolean; sidecar?: 'bundled' | 'command' } = {}): Harness {
  const fakes = new FakeChildren()
  fakes.appOptions = opts.options ?? {}
  fakes.scripts.push(...(opts.scripts ?? []))
  fakes.sidecarHealth.push(...(opts.sidecarHealth ?? []))
  const logs: Record<string, unknown>[] = []
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) })
  let exits = 0
  let resolveExit!: (e: { code: number; message?: string }) => void
  const exited = new Promise<{ code: number; message?: string }>((resolve) => (resolveExit = resolve))
  let sidecarPort = 5000
  const sup = new Supervisor({
    profile: { settings: resolveSettings([optionsLayer(fakes.appOptions)]), pages: [], file: 'app.ts', exportName: 'app', components: { folders: [], frameOrigins: [] } },
    logger,
    // Several workers: the dispatcher really listens, on a free loopback port (closed on stop).
    bind: async (s) => ({ handle: { host: '127.0.0.1', port: 0 }, host: s.gateway_host, port: 8000 }),
    sidecarSpec: async () => {
      const port = ++sidecarPort
      return { kind: opts.sidecar ?? 'bundled', script: 'fake', argv: [], env: {}, healthUrl: `http://127.0.0.1:${port}/_stcore/health`, port }
    },
    workerEnv: (_s, _bound, uiUpstream) => childEnv({ uiUpstream }),
    onTopology: () => {},
    onExit: (code, message) => {
      exits++
      resolveExit({ code, message })
    },
    children: fakes.children,
    ...(opts.restart ? { restart: opts.restart } : {}),
    standbyWorkers: opts.standbyWorkers ?? false,
  })
  running.push(sup)
  return { sup, fakes, logs, exited, exits: () => exits }
}

beforeEach(() => {
  // setImmediate stays real: the memory channels deliver on it, the fake clock moves only when told.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
})
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.destroy()))
  vi.useRealTimers()
})

function handleOf(sup: Supervisor, w: FakeWorker): WorkerHandle {
  const h = sup.workers.find((x) => x.pid === w.pid)
  if (!h) throw new Error(`${w.name} is not tracked`)
  return h
}

async function ready(sup: Supervisor, w: FakeWorker): Promise<void> {
  const h = handleOf(sup, w)
  if (h.phase !== 'ready') await once(h, 'ready')
}

/** Crash `w` and wait until the supervisor has handled its exit. */
async function crash(sup: Supervisor, w: FakeWorker): Promise<void> {
  const h = handleOf(sup, w)
  const seen = once(h, 'exit')
  w.die(1)
  await seen
}

/** A few turns of the event loop: whatever the fakes answer now has arrived. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
}

function lastBackoff(logs: Record<string, unknown>[]): number {
  const line = logs.filter((l) => typeof l.backoff_ms === 'number').at(-1)
  return line!.backoff_ms as number
}

/** The supervisor announced `ms`; the replacement starts exactly then, in the same slot. */
async function expectRestartAfter(h: Harness, ms: number, slot: string): Promise<FakeWorker> {
  expect(lastBackoff(h.logs)).toBe(ms)
  const before = h.fakes.workers.length
  await vi.advanceTimersByTimeAsync(ms - 1)
  expect(h.fakes.workers.length).toBe(before)
  const next = h.fakes.nextWorker()
  await vi.advanceTimersByTimeAsync(1)
  const w = await next
  expect(w.slot).toBe(slot)
  await ready(h.sup, w)
  return w
}

/** Every fake still running is one the supervisor tracks (or a standby worker never started): nothing serves untracked. */
function expectAllTracked(h: Harness): void {
  const tracked = new Set(h.sup.workers.map((w) => w.pid))
  const waiting = (w: FakeWorker): boolean => w.standby && w.received.length === 0
  expect(h.fakes.live().filter((w) => !tracked.has(w.pid) && !waiting(w)).map((w) => w.name)).toEqual([])
}

describe('supervisor actor: worker crash loop', () => {
  it('restarts a crashed worker in its slot after 100, 200, 400, 800 ms; the 5th crash in 60 s stops svc with exit 1', async () => {
    const h = harness()
    await h.sup.start()
    expect(h.sup.state).toBe('running')
    let w = h.fakes.workers[0]!
    for (const ms of [100, 200, 400, 800]) {
      await crash(h.sup, w)
      w = await expectRestartAfter(h, ms, '0')
    }
    await crash(h.sup, w)
    const { code, message } = await h.exited
    expect(code).toBe(1)
    expect(message).toMatch(/gateway worker crashed 5 times within 60 s .*exit code 1\); stopping svc/)
    expect(h.logs.some((l) => l.code === 'SVC_ERR_PROCESS_CRASH_LOOP')).toBe(true)
    expect(h.fakes.workers).toHaveLength(5)
    expect(h.fakes.sidecars[0]!.exit).not.toBeNull()
    expect(h.fakes.sweeps).toBe(1)
    expect(h.exits()).toBe(1)
    expect(h.sup.state).toBe('stopped')
  })

  it('the back-off doubles up to its cap and stays there', async () => {
    const h = harness({ restart: { ...RESTART_POLICY, crashLimit: 10 } })
    await h.sup.start()
    let w = h.fakes.workers[0]!
    for (const ms of [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000]) {
      await crash(h.sup, w)
      w = await expectRestartAfter(h, ms, '0')
    }
    await crash(h.sup, w)
    expect((await h.exited).code).toBe(1)
  })

  it('resets the back-off once the worker ran a whole crash window without crashing', async () => {
    const h = harness()
    await h.sup.start()
    let w = h.fakes.workers[0]!
    await crash(h.sup, w)
    w = await expectRestartAfter(h, 100, '0')
    await crash(h.sup, w)
    w = await expectRestartAfter(h, 200, '0')
    await vi.advanceTimersByTimeAsync(RESTART_POLICY.windowMs)
    await crash(h.sup, w)
    w = await expectRestartAfter(h, 100, '0')
    // Four more within the window would be the loop; three are not.
    for (const ms of [200, 400, 800]) {
      await crash(h.sup, w)
      w = await expectRestartAfter(h, ms, '0')
    }
    expect(h.sup.state).toBe('running')
    expect(h.exits()).toBe(0)
  })

  it('a worker that exits while draining is not restarted', async () => {
    const h = harness()
    await h.sup.start()
    const closed = h.sup.close()
    await closed
    expect((await h.exited).code).toBe(0)
    expect(h.fakes.workers).toHaveLength(1)
    expect(h.logs.some((l) => typeof l.backoff_ms === 'number')).toBe(false)
  })
})

describe('supervisor actor: the sidecar', () => {
  it('a sidecar that dies while running is never restarted: workers drain, then svc exits 1', async () => {
    const h = harness()
    await h.sup.start()
    const sidecar = h.fakes.sidecars[0]!
    sidecar.die(3)
    const { code, message } = await h.exited
    expect(code).toBe(1)
    expect(message).toBe('ui sidecar exited (exit code 3); stopping svc')
    expect(h.logs.some((l) => l.code === 'SVC_ERR_PROCESS_SIDECAR_EXIT' && l.exit_code === 3)).toBe(true)
    expect(h.fakes.sidecars).toHaveLength(1)
    expect(h.fakes.workers[0]!.received.find((m) => m.type === 'drain')).toMatchObject({ reason: 'shutdown', grace_ms: 1000 })
    expect(h.fakes.live()).toEqual([])
  })

  it('a sidecar that fails at start ends svc with its own error and exit 1; no second sidecar', async () => {
    const h = harness({ sidecarHealth: [false] })
    const started = h.sup.start()
    const sidecar = await h.fakes.nextSidecar()
    sidecar.fail('SVC_ERR_UI_SIDECAR_START', 'the ui sidecar cannot start: EADDRINUSE')
    await started
    const { code, message } = await h.exited
    expect(code).toBe(1)
    expect(message).toBe('the ui sidecar cannot start: EADDRINUSE')
    expect(h.fakes.sidecars).toHaveLength(1)
    expect(h.fakes.live()).toEqual([])
  })

  it('a full reload whose new sidecar dies at start stops svc with exit 1 (no retry loop)', async () => {
    const h = harness({ sidecarHealth: [true, false] })
    await h.sup.start()
    const reloaded = h.sup.reload('full')
    const fresh = await h.fakes.nextSidecar()
    fresh.die(1)
    await reloaded
    const { code, message } = await h.exited
    expect(code).toBe(1)
    expect(message).toBe('ui sidecar reload failed: the ui sidecar exited during start-up (exit code 1)')
    expect(h.logs.some((l) => l.code === 'SVC_ERR_PROCESS_SIDECAR_START')).toBe(true)
    expect(h.logs.some((l) => l.code === 'SVC_ERR_PROCESS_SIDECAR_EXIT')).toBe(false)
    expect(h.fakes.sidecars).toHaveLength(2)
    expect(h.fakes.sidecars.every((s) => s.exit)).toBe(true)
  })
})

describe('supervisor actor: reloads', () => {
  it('one reload owner: a gateway reload tells the bundled page server and is announced once pages and workers both switched', async () => {
    const h = harness()
    await h.sup.start()
    h.fakes.sidecars[0]!.pagesReload = { moved: 3 }
    await h.sup.reload('gateway')
    expect(h.fakes.log.filter((l) => l.endsWith(':reload'))).toEqual(['sidecar:5001:reload'])
    const line = h.logs.find((l) => typeof l.msg === 'string' && l.msg.startsWith('reloaded (gateway)'))
    expect(line).toMatchObject({ msg: 'reloaded (gateway): 1 new gateway worker(s) and fresh pages ready', pages_moved: 3 })
    expect(h.sup.workers.map((w) => w.pid)).toEqual([h.fakes.workers[1]!.pid])
    // The pages load first; their sessions move once the old worker is told to go, so their reruns call the new API.
    const at = (entry: string): number => h.fakes.log.indexOf(entry)
    expect(at('sidecar:5001:reload')).toBeGreaterThan(-1)
    expect(at(`${h.fakes.workers[0]!.name}:drain`)).toBeGreaterThan(at('sidecar:5001:reload'))
    expect(at('sidecar:5001:reload_commit')).toBeGreaterThan(at(`${h.fakes.workers[0]!.name}:drain`))
  })

  it('new workers that do not come up: the page server drops the code it loaded, the running pages stay', async () => {
    const h = harness({ scripts: [{}, { load: 'hold' }] })
    await h.sup.start()
    const reload = h.sup.reload('gateway')
    await settle()
    expect(h.fakes.workers).toHaveLength(2)
    h.fakes.workers[1]!.die(1)
    await reload
    await settle()
    expect(h.fakes.log).toContain('sidecar:5001:reload_abort')
    expect(h.fakes.log).not.toContain('sidecar:5001:reload_commit')
    expect(h.sup.workers.map((w) => w.pid)).toEqual([h.fakes.workers[0]!.pid])
  })

  it('pages that do not load keep the old workers too: one line, the new set is killed', async () => {
    const h = harness()
    await h.sup.start()
    h.fakes.sidecars[0]!.pagesReload = { failed: 'cannot load app.ts: syntax error at app.ts:3:1' }
    await h.sup.reload('gateway')
    await settle()
    expect(h.sup.workers.map((w) => w.pid)).toEqual([h.fakes.workers[0]!.pid])
    const lines = h.logs.filter((l) => typeof l.msg === 'string' && /^(reloaded|reload failed)/.test(l.msg))
    expect(lines).toEqual([expect.objectContaining({ msg: 'reload failed, the running workers keep serving: cannot load app.ts: syntax error at app.ts:3:1' })])
  })

  it('a ui_command sidecar is never told to reload, and a full reload does not tell the fresh page server', async () => {
    const command = harness({ sidecar: 'command' })
    await command.sup.start()
    await command.sup.reload('gateway')
    expect(command.fakes.log.filter((l) => l.endsWith(':reload'))).toEqual([])
    const bundled = harness()
    await bundled.sup.start()
    await bundled.sup.reload('full')
    expect(bundled.fakes.log.filter((l) => l.endsWith(':reload'))).toEqual([])
  })

  it('several reload requests while one runs coalesce into exactly one more', async () => {
    const h = harness()
    await h.sup.start()
    const first = h.sup.reload('gateway')
    const more = [h.sup.reload('gateway'), h.sup.reload('gateway'), h.sup.reload('gateway')]
    // The coalesced callers wait for the reload that covers their request, not the one running.
    expect(more[0]).not.toBe(first)
    expect(more[1]).toBe(more[0])
    await first
    // The queued one started as soon as the first was done.
    expect(h.fakes.workers).toHaveLength(3)
    await Promise.all(more)
    await settle()
    expect(h.fakes.workers).toHaveLength(3)
    expect(h.fakes.live()).toEqual([h.fakes.workers[2]])
    expectAllTracked(h)
    // Both replaced sets drained for a reload, each once.
    for (const old of h.fakes.workers.slice(0, 2)) expect(old.received.filter((m) => m.type === 'drain')).toEqual([{ svc: 1, type: 'drain', grace_ms: 10_000, reason: 'reload', ws_grace_ms: 60_000 }])
  })

  it('a full request among gateway ones makes the coalesced reload full', async () => {
    const h = harness()
    await h.sup.start()
    const first = h.sup.reload('gateway')
    const next = h.sup.reload('gateway')
    void h.sup.reload('full')
    void h.sup.reload('gateway')
    await first
    expect(h.fakes.sidecars).toHaveLength(1)
    await next
    expect(h.fakes.sidecars).toHaveLength(2)
    expect(h.fakes.sidecars[0]!.exit).not.toBeNull()
    const current = h.fakes.workers.at(-1)!
    expect(parseChildEnv(current.env).uiUpstream).toBe(h.sup.sidecar!.url)
    expect(h.fakes.workers).toHaveLength(3)
  })

  it('a request after the coalesced reload started begins another one afterwards', async () => {
    const h = harness()
    await h.sup.start()
    await Promise.all([h.sup.reload('gateway'), h.sup.reload('gateway')])
    await h.sup.reload('gateway')
    expect(h.fakes.workers).toHaveLength(4)
    // The last replaced worker drains after the reload (it is not waited for).
    await settle()
    expectAllTracked(h)
  })
})

describe('supervisor actor: workers a reload replaced keep their WebSockets', () => {
  it('the reload does not wait for them; their kill waits for gateway_ws_reload_grace_s plus the spread', async () => {
    const h = harness({ scripts: [{ drain: 'hang' }] })
    await h.sup.start()
    const old = h.fakes.workers[0]!
    await h.sup.reload('gateway')
    await settle()
    expect(old.exit).toBeNull()
    expect(old.received.at(-1)).toEqual({ svc: 1, type: 'drain', grace_ms: 10_000, reason: 'reload', ws_grace_ms: 60_000 })
    // Not killed after the HTTP grace: its WebSockets may stay 60 s, then close over 10 s.
    await vi.advanceTimersByTimeAsync(10_000 + 2_000)
    expect(old.exit).toBeNull()
    await vi.advanceTimersByTimeAsync(60_000 + 10_000 - 10_000 - 1)
    expect(old.exit).toBeNull()
    await vi.advanceTimersByTimeAsync(1)
    expect(old.exit).toMatchObject({ signal: 'SIGKILL' })
  })

  it('a full reload also switches a replaced worker that is still draining, before the old sidecar stops', async () => {
    const h = harness({ scripts: [{ drain: 'hang' }] })
    await h.sup.start()
    const old = h.fakes.workers[0]!
    await h.sup.reload('gateway')
    await settle()
    expect(old.exit).toBeNull()
    await h.sup.reload('full')
    const fresh = h.fakes.sidecars[1]!
    // Its requests in flight to the old sidecar finish there; its new ones go to the new one.
    expect(old.received).toContainEqual({ svc: 1, type: 'upstream', url: `http://127.0.0.1:${fresh.spec.port}` })
  })

  it('a shutdown while a replaced worker keeps WebSockets tells it to close them now, and kills it after the grace', async () => {
    const h = harness({ scripts: [{ drain: 'hang' }] })
    await h.sup.start()
    const old = h.fakes.workers[0]!
    await h.sup.reload('gateway')
    void h.sup.close()
    await settle()
    expect(old.received.filter((m) => m.type === 'drain').map((m) => m.reason)).toEqual(['reload', 'shutdown'])
    await vi.advanceTimersByTimeAsync(10_000 + 2_000)
    expect(old.exit).toMatchObject({ signal: 'SIGKILL' })
    expect((await h.exited).code).toBe(0)
  })

  it('a burst of reloads: beyond two replaced generations per slot, the oldest closes its WebSockets now (spread)', async () => {
    const h = harness({ scripts: [{ drain: 'hang' }, { drain: 'hang' }, { drain: 'hang' }] })
    await h.sup.start()
    for (let i = 0; i < 3; i++) await h.sup.reload('gateway')
    await settle()
    const [oldest, second, third] = h.fakes.workers
    const drains = (w: FakeWorker) => w.received.filter((m) => m.type === 'drain')
    expect(drains(oldest!)).toEqual([
      { svc: 1, type: 'drain', grace_ms: 10_000, reason: 'reload', ws_grace_ms: 60_000 },
      { svc: 1, type: 'drain', grace_ms: 10_000, reason: 'reload' },
    ])
    expect(drains(second!)).toHaveLength(1)
    expect(drains(third!)).toHaveLength(1)
    // Its kill deadline came forward to the HTTP grace plus the spread.
    await vi.advanceTimersByTimeAsync(10_000 + 2_000)
    expect(oldest!.exit).toMatchObject({ signal: 'SIGKILL' })
    expect(second!.exit).toBeNull()
  })
})

describe('supervisor actor: restart vs reload', () => {
  it('a crashed worker waiting for its restart is not restarted once a reload replaced the set', async () => {
    const h = harness()
    await h.sup.start()
    await crash(h.sup, h.fakes.workers[0]!)
    await h.sup.reload('gateway')
    await vi.advanceTimersByTimeAsync(RESTART_POLICY.backoffMaxMs)
    await settle()
    expect(h.fakes.workers).toHaveLength(2)
    expect(h.sup.workers.map((w) => w.pid)).toEqual([h.fakes.workers[1]!.pid])
    expectAllTracked(h)
    expect(h.logs.some((l) => /was replaced by a reload while waiting to restart/.test(String(l.msg)))).toBe(true)
  })

  it('a restart that lands while a reload waits for its new workers is tracked, then drained by the reload', async () => {
    const h = harness({ options: { workers: 2 } })
    await h.sup.start()
    const [w0, w1] = h.fakes.workers
    await crash(h.sup, w0!)
    // The reload's new workers load only when told: the restart lands in between.
    h.fakes.scripts.push({ load: 'hold' }, { load: 'hold' })
    const reloaded = h.sup.reload('gateway')
    await settle()
    const held = h.fakes.workers.slice(2)
    expect(held).toHaveLength(2)
    const restarted = await expectRestartAfter(h, 100, '0')
    expect(h.sup.workers.map((w) => w.pid)).toEqual([restarted.pid, w1!.pid])
    for (const w of held) w.finishLoading({ workers: 2 })
    await reloaded
    await settle()
    expect(h.sup.workers.map((w) => w.pid)).toEqual(held.map((w) => w.pid))
    expect(restarted.received.map((m) => m.type)).toEqual(['start', 'take_connections', 'drain'])
    expect(restarted.exit).toEqual({ code: 0, signal: null })
    expectAllTracked(h)
  })

  it('a restarted worker gets the upstream of a full reload that follows it', async () => {
    const h = harness()
    await h.sup.start()
    await crash(h.sup, h.fakes.workers[0]!)
    // The reload's new worker never loads: the restarted one keeps serving and must follow the sidecar.
    const restarted = await expectRestartAfter(h, 100, '0')
    h.fakes.scripts.push({ load: 'never' })
    const reloaded = h.sup.reload('full')
    await h.fakes.nextWorker()
    const fresh = h.fakes.sidecars[1]!
    expect(restarted.received).toContainEqual({ svc: 1, type: 'upstream', url: `http://127.0.0.1:${fresh.spec.port}` })
    await vi.advanceTimersByTimeAsync(30_000)
    await reloaded
    expect(h.sup.workers.map((w) => w.pid)).toEqual([restarted.pid])
    expectAllTracked(h)
  })
})

describe('supervisor actor: start deadline', () => {
  it('a worker that never sends loaded fails with SVC_ERR_PROCESS_WORKER_START_TIMEOUT after gateway_start_timeout_s, exit 1', async () => {
    const h = harness({ scripts: [{ load: 'never' }] })
    const started = h.sup.start()
    const w = await h.fakes.nextWorker()
    await vi.advanceTimersByTimeAsync(29_999)
    expect(w.exit).toBeNull()
    expect(h.exits()).toBe(0)
    await vi.advanceTimersByTimeAsync(1)
    await started
    const { code, message } = await h.exited
    expect(code).toBe(1)
    expect(message).toMatch(/^gateway worker \d+ could not load the app: it did not finish loading within 30 s \(gateway_start_timeout_s\)/)
    expect(h.logs.some((l) => l.code === 'SVC_ERR_PROCESS_WORKER_START_TIMEOUT')).toBe(true)
    expect(w.exit).toEqual({ code: null, signal: 'SIGKILL' })
    expect(h.fakes.sidecars[0]!.exit).not.toBeNull()
  })

  it('the deadline is the setting: gateway_start_timeout_s 2 fails after 2 s', async () => {
    const h = harness({ options: { gateway_start_timeout_s: 2 }, scripts: [{ load: 'never' }] })
    const started = h.sup.start()
    await h.fakes.nextWorker()
    await vi.advanceTimersByTimeAsync(2_000)
    await started
    expect(await h.exited).toMatchObject({ code: 1, message: expect.stringMatching(/within 2 s/) })
  })
})

describe('supervisor actor: stopping', () => {
  it('close() drains every worker, then stops the sidecar, then exits 0; the same promise on repeat', async () => {
    const h = harness({ options: { workers: 2 } })
    await h.sup.start()
    h.fakes.log.length = 0
    const closed = h.sup.close()
    expect(h.sup.close()).toBe(closed)
    await closed
    expect((await h.exited).code).toBe(0)
    const [a, b] = h.fakes.workers.map((w) => w.name)
    const sidecar = h.fakes.sidecars[0]!.name
    const at = (line: string): number => h.fakes.log.indexOf(line)
    expect(h.fakes.log).toEqual(expect.arrayContaining([`${a}:drain`, `${b}:drain`, `${a}:exit`, `${b}:exit`, `${sidecar}:terminate`]))
    expect(at(`${sidecar}:terminate`)).toBeGreaterThan(Math.max(at(`${a}:exit`), at(`${b}:exit`)))
    for (const w of h.fakes.workers) expect(w.received.at(-1)).toEqual({ svc: 1, type: 'drain', grace_ms: 10_000, reason: 'shutdown' })
    expect(h.exits()).toBe(1)
  })

  it('destroy() kills every worker now and exits 1; the same promise on repeat', async () => {
    const h = harness({ options: { workers: 2 } })
    await h.sup.start()
    const destroyed = h.sup.destroy()
    expect(h.sup.destroy()).toBe(destroyed)
    await destroyed
    expect(await h.exited).toEqual({ code: 1, message: 'forced stop' })
    for (const w of h.fakes.workers) expect(w.exit).toEqual({ code: null, signal: 'SIGKILL' })
    expect(h.fakes.sidecars[0]!.exit).not.toBeNull()
    expect(h.exits()).toBe(1)
  })

  it('destroy() during a close() whose drain hangs ends it at once; onExit runs once', async () => {
    const h = harness({ scripts: [{ drain: 'hang' }] })
    await h.sup.start()
    const closed = h.sup.close()
    await settle()
    expect(h.fakes.workers[0]!.received.at(-1)?.type).toBe('drain')
    await h.sup.destroy()
    await closed
    await h.exited
    expect(h.fakes.workers[0]!.exit).toEqual({ code: null, signal: 'SIGKILL' })
    await settle()
    expect(h.exits()).toBe(1)
  })
})

describe('supervisor actor: a stop during start-up (Ctrl-C a second in)', () => {
  const errors = (h: Harness): Record<string, unknown>[] => h.logs.filter((l) => (l.level as number) >= 50)

  it('while a worker loads the app: every worker drains, nothing more starts, no error, exit 0', async () => {
    const h = harness({ options: { workers: 2 }, scripts: [{ load: 'hold' }] })
    const started = h.sup.start()
    const first = await h.fakes.nextWorker()
    const closed = h.sup.close()
    await started
    await closed
    expect(await h.exited).toEqual({ code: 0, message: undefined })
    expect(first.received.map((m) => m.type)).toEqual(['start', 'drain'])
    // The settings are known before anything starts: both workers and one sidecar, none after the stop.
    expect(h.fakes.workers).toHaveLength(2)
    expect(h.fakes.sidecars).toHaveLength(1)
    expect(h.fakes.live()).toEqual([])
    expect(errors(h)).toEqual([])
    expect(h.exits()).toBe(1)
  })

  it('while the sidecar is not healthy yet (workers loaded, nothing listening): no error, exit 0, nothing left', async () => {
    const h = harness({ options: { workers: 2 }, sidecarHealth: [false] })
    const started = h.sup.start()
    await h.fakes.nextWorker()
    await settle()
    expect(h.fakes.workers).toHaveLength(2)
    const closed = h.sup.close()
    await vi.advanceTimersByTimeAsync(100)
    await started
    await closed
    expect(await h.exited).toEqual({ code: 0, message: undefined })
    for (const w of h.fakes.workers) expect(w.received.map((m) => m.type)).not.toContain('listen')
    expect(h.fakes.live()).toEqual([])
    expect(h.fakes.sidecars[0]!.exit).not.toBeNull()
    expect(errors(h)).toEqual([])
  })

  it('before the sidecar is even started: nothing is started at all', async () => {
    const h = harness()
    const started = h.sup.start()
    const closed = h.sup.close()
    await started
    await closed
    expect(await h.exited).toEqual({ code: 0, message: undefined })
    expect(h.fakes.sidecars).toHaveLength(0)
    expect(h.fakes.workers).toHaveLength(0)
    expect(errors(h)).toEqual([])
  })
})

describe('supervisor actor: standby workers (svc dev --reload)', () => {
  const types = (w: FakeWorker): string[] => w.received.map((m) => m.type)

  it('keeps one per slot; a gateway reload starts it instead of forking, then forks the next', async () => {
    const h = harness({ standbyWorkers: true })
    await h.sup.start()
    await settle()
    const [serving, spare] = h.fakes.workers
    expect(h.fakes.workers).toHaveLength(2)
    expect([serving!.standby, spare!.standby]).toEqual([false, true])
    expect(types(spare!)).toEqual([])
    await h.sup.reload('gateway')
    await settle()
    // The spare loaded only when told, then served; the old worker drained; the next spare waits.
    expect(types(spare!)).toEqual(['start', 'listen'])
    expect(h.sup.workers.map((w) => w.pid)).toEqual([spare!.pid])
    expect(types(serving!)).toContain('drain')
    expect(h.fakes.workers).toHaveLength(3)
    expect(h.fakes.workers[2]!.standby).toBe(true)
    expect(h.fakes.workers[2]!.slot).toBe('0')
    expectAllTracked(h)
  })

  it('a spare that died is replaced by a fresh fork at the reload; a full reload drops the spares (old sidecar URL)', async () => {
    const h = harness({ standbyWorkers: true })
    await h.sup.start()
    await settle()
    h.fakes.workers[1]!.die(1)
    await settle()
    await h.sup.reload('gateway')
    await settle()
    const fresh = h.fakes.workers[2]!
    expect(fresh.standby).toBe(false)
    expect(h.sup.workers.map((w) => w.pid)).toEqual([fresh.pid])
    const spare = h.fakes.workers[3]!
    expect(spare.standby).toBe(true)
    await h.sup.reload('full')
    await settle()
    expect(spare.exit).not.toBeNull()
    expect(types(spare)).toEqual([])
    const next = h.fakes.workers[4]!
    expect(next.standby).toBe(false)
    expect(next.env.SVC_UI_UPSTREAM).toBe(h.fakes.sidecars[1]!.spec.healthUrl.replace('/_stcore/health', ''))
    expect(h.fakes.workers[5]!.standby).toBe(true)
    expect(h.fakes.workers[5]!.env.SVC_UI_UPSTREAM).toBe(next.env.SVC_UI_UPSTREAM)
    expectAllTracked(h)
  })

  it('close() ends the spares with the workers; svc run (no standbyWorkers) forks none', async () => {
    const h = harness({ standbyWorkers: true })
    await h.sup.start()
    await settle()
    const spare = h.fakes.workers[1]!
    await h.sup.close()
    expect(spare.exit).not.toBeNull()
    expect((await h.exited).code).toBe(0)
    const plain = harness()
    await plain.sup.start()
    await plain.sup.reload('gateway')
    await settle()
    expect(plain.fakes.workers.map((w) => w.standby)).toEqual([false, false])
  })
})
