import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import http from 'node:http'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { Client } from 'undici'
import { gatewayWorkerPids, REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'

/**
 * `--workers N` spreads connections evenly: the supervisor accepts and deals each new connection
 * to the next ready worker. Every count is requests per worker pid (the app's `/api/pid`), and
 * "even" means within ±20% of total / workers.
 */
/** One request on a connection of its own (no agent: a fresh TCP connection, closed after). */
function pidOnNewConnection(url: string, path = '/api/pid'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}${path}`, { agent: false, headers: { connection: 'close' } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}: ${body}`))
        else resolve((JSON.parse(body) as { pid: number }).pid)
      })
      res.on('error', reject)
    })
    req.on('error', reject)
  })
}

function tally(pids: number[]): Map<number, number> {
  const counts = new Map<number, number>()
  for (const p of pids) counts.set(p, (counts.get(p) ?? 0) + 1)
  return counts
}

/** The workers whose share is off by more than 20% of even (none, when balanced), with all counts. */
function unbalanced(counts: Map<number, number>, workers: number[]): { counts: Record<number, number>; off: number[] } {
  const total = [...counts.values()].reduce((a, b) => a + b, 0)
  const even = total / workers.length
  const off = workers.filter((w) => Math.abs((counts.get(w) ?? 0) - even) > 0.2 * even)
  const stray = [...counts.keys()].filter((p) => !workers.includes(p))
  return { counts: Object.fromEntries(counts), off: [...off, ...stray] }
}

/**
 * `connections` keep-alive connections, each a single-connection undici Client (so each really is
 * its own TCP connection), all sending `perConnection` requests in parallel.
 */
async function keepAliveLoad(url: string, connections: number, perConnection: number): Promise<{ pids: number[]; connects: number }> {
  let connects = 0
  const clients = Array.from({ length: connections }, () => {
    const c = new Client(url, { pipelining: 1, keepAliveTimeout: 30_000 })
    c.on('connect', () => connects++)
    return c
  })
  try {
    const perClient = await Promise.all(
      clients.map(async (c) => {
        const pids: number[] = []
        for (let i = 0; i < perConnection; i++) {
          const res = await c.request({ method: 'GET', path: '/api/pid' })
          pids.push(((await res.body.json()) as { pid: number }).pid)
        }
        return pids
      }),
    )
    return { pids: perClient.flat(), connects }
  } finally {
    await Promise.all(clients.map((c) => c.close()))
  }
}

describe('gateway workers share the load (--workers 2)', () => {
  let svc: SvcTree
  let workers: number[]
  beforeAll(async () => {
    svc = await startSvc({ args: ['--workers', '2'] })
    workers = gatewayWorkerPids(svc.pid)
  })
  afterAll(stopAllTrees)

  it('has two workers', () => {
    expect(workers).toHaveLength(2)
  })

  it('spreads 200 sequential new connections within ±20% of even', async () => {
    const pids: number[] = []
    for (let i = 0; i < 200; i++) pids.push(await pidOnNewConnection(svc.url))
    expect(unbalanced(tally(pids), workers).off).toEqual([])
  })

  it.each([
    [2, 100],
    [10, 30],
    [50, 10],
  ])('spreads %i keep-alive connections within ±20% of even', async (connections, perConnection) => {
    const { pids, connects } = await keepAliveLoad(svc.url, connections, perConnection)
    // Every client opened exactly one connection and kept it for all its requests.
    expect(connects).toBe(connections)
    expect(pids).toHaveLength(connections * perConnection)
    const result = unbalanced(tally(pids), workers)
    expect(result, JSON.stringify(result.counts)).toMatchObject({ off: [] })
  })
})

/** CPU time (user + system, in clock ticks) a process has used so far. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return Number(fields[11]) + Number(fields[12])
}

describe('a worker that stops taking connections (--workers 2)', () => {
  afterEach(stopAllTrees)

  it('passes the busy worker by, and its unacknowledged connections go to the other when it dies', async () => {
    const svc = await startSvc({ args: ['--workers', '2'] })
    // Two keep-alive connections: round-robin puts one on each worker.
    const [onA, onB] = [new Client(svc.url, { pipelining: 1 }), new Client(svc.url, { pipelining: 1 })]
    try {
      const pidOn = async (c: Client): Promise<number> => ((await (await c.request({ method: 'GET', path: '/api/pid' })).body.json()) as { pid: number }).pid
      const a = await pidOn(onA)
      const b = await pidOn(onB)
      expect(a).not.toBe(b)
      // Block A's event loop: it can neither serve nor acknowledge connections.
      const before = cpuTicks(a)
      const blocked = onA.request({ method: 'GET', path: '/api/block?ms=60000' }).catch(() => 'reset')
      const deadline = Date.now() + 10_000
      while (cpuTicks(a) - before < 30 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      expect(cpuTicks(a) - before).toBeGreaterThanOrEqual(30)
      let done = 0
      const requests = Array.from({ length: 20 }, () =>
        pidOnNewConnection(svc.url).then((pid) => {
          done++
          return pid
        }),
      )
      // B serves its share; the ones dealt to A wait, unread, until A is gone.
      const served = Date.now() + 10_000
      while (done < 10 && Date.now() < served) await new Promise((r) => setTimeout(r, 20))
      expect(done).toBeGreaterThanOrEqual(10)
      process.kill(a, 'SIGKILL')
      const pids = await Promise.all(requests)
      expect(pids.filter((p) => p === a)).toEqual([])
      await blocked
    } finally {
      await Promise.all([onA.destroy(), onB.destroy()])
    }
  }, 60_000)
})

describe('gateway reload with --workers 2', () => {
  let dir: string
  beforeAll(() => {
    dir = `${REPO}test/.tmp/balance-${randomUUID()}`
    mkdirSync(dir, { recursive: true })
  })
  afterEach(stopAllTrees)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const appSource = (version: number) => `import { Svc } from 'svc'
export const app = new Svc({ title: 'Balance' })
app.api.get('/pid', async () => ({ pid: process.pid, version: ${version} }))
`

  it('loses no new connection across 3 reloads, and the new workers share the load', async () => {
    const file = `${dir}/app.ts`
    writeFileSync(file, appSource(0))
    const svc = await startSvc({ command: 'dev', target: `${file}:app`, args: ['--reload', '--workers', '2'] })
    await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
    let ok = 0
    const failures: string[] = []
    let running = true
    const stream = async (): Promise<void> => {
      while (running) {
        try {
          await pidOnNewConnection(svc.url)
          ok++
        } catch (err) {
          failures.push((err as Error).message)
        }
      }
    }
    const streams = [stream(), stream(), stream()]
    const reloads = () => svc.stdout.filter((l) => l.includes('reloaded (gateway)')).length
    for (let v = 1; v <= 3; v++) {
      writeFileSync(file, appSource(v))
      const deadline = Date.now() + 30_000
      while (reloads() < v && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      expect(reloads()).toBe(v)
    }
    // Keep the stream going while the last old workers drain and exit.
    const deadline = Date.now() + 15_000
    while (gatewayWorkerPids(svc.pid).length !== 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    running = false
    await Promise.all(streams)
    expect(failures).toEqual([])
    expect(ok).toBeGreaterThan(100)
    const workers = gatewayWorkerPids(svc.pid)
    expect(workers).toHaveLength(2)
    const pids: number[] = []
    for (let i = 0; i < 100; i++) pids.push(await pidOnNewConnection(svc.url))
    expect(unbalanced(tally(pids), workers).off).toEqual([])
  }, 120_000)
})
