import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseMetrics } from '../helpers/observability-log-sink.js'

/**
 * A real `svc run` tree: supervisor, a fixture sidecar (ui_command) and two gateway workers,
 * with access log, API request log and metrics (plus Node metrics) switched on. Logs of every
 * process arrive on the supervisor's stdout and are read as JSON.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SECRETS = ['SECRET-E2E-SID', 'SECRET-E2E-CODE', 'SECRET-E2E-TOKEN', 'SECRET-E2E-COOKIE']

let tree: ChildProcess
let base = ''
const lines: Record<string, unknown>[] = []
let rawOutput = ''
const waiters = new Set<() => void>()

function waitFor<T>(what: string, probe: () => T | undefined, ms = 15_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      const v = probe()
      if (v === undefined) return false
      clearTimeout(timer)
      waiters.delete(onChange)
      resolve(v)
      return true
    }
    const onChange = (): void => void check()
    const timer = setTimeout(() => {
      waiters.delete(onChange)
      reject(new Error(`timed out waiting for ${what}; output so far:\n${rawOutput.slice(-4000)}`))
    }, ms)
    if (!check()) waiters.add(onChange)
  })
}

function collect(stream: NodeJS.ReadableStream): void {
  let partial = ''
  stream.setEncoding('utf8')
  stream.on('data', (chunk: string) => {
    rawOutput += chunk
    partial += chunk
    const parts = partial.split('\n')
    partial = parts.pop()!
    for (const l of parts) {
      if (l.startsWith('{')) lines.push(JSON.parse(l) as Record<string, unknown>)
    }
    for (const w of waiters) w()
  })
}

const linesFor = (id: string, logger: string) => lines.filter((l) => l.request_id === id && l.logger === logger)

beforeAll(async () => {
  tree = spawn(
    process.execPath,
    ['bin/svc.js', 'run', 'test/helpers/observability-app.ts:app', '--port', '0', '--workers', '2', '--no-pidfile'],
    {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        SVC_UI_COMMAND: JSON.stringify(['node', 'test/helpers/observability-sidecar.mjs', '{port}']),
        SVC_UI_HEALTH_PATH: '/',
        SVC_ENABLE_GATEWAY_PROMETHEUS_METRICS: '1',
        SVC_ENABLE_NODE_METRICS: '1',
        SVC_ENABLE_GATEWAY_ACCESS_LOG: '1',
        SVC_ENABLE_REQUEST_LOGGING: '1',
        SVC_LOG_FORMAT: 'json',
      },
    },
  )
  collect(tree.stdout!)
  collect(tree.stderr!)
  const port = await waitFor('the listening line', () => /svc: listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(rawOutput)?.[1], 25_000)
  base = `http://127.0.0.1:${port}`
}, 40_000)

afterAll(async () => {
  if (!tree || tree.exitCode !== null || tree.signalCode !== null) return
  const exited = new Promise<void>((resolve) => tree.once('exit', () => resolve()))
  tree.kill('SIGTERM')
  const timer = setTimeout(() => {
    try {
      process.kill(-tree.pid!, 'SIGKILL')
    } catch {
      // the group is already gone
    }
  }, 12_000)
  await exited
  clearTimeout(timer)
}, 20_000)

describe('observability over a real svc run tree with two workers', () => {
  it('joins gateway, sidecar and API lines of one request by the same request_id', async () => {
    const id = 'obs-e2e-join-1'
    const res = await fetch(`${base}/call-api`, { headers: { 'x-request-id': id } })
    expect(res.headers.get('x-request-id')).toBe(id)
    expect(await res.text()).toContain('hello')
    await waitFor('two gateway access lines', () => (linesFor(id, 'svc.gateway').length === 2 ? true : undefined))
    const gateway = linesFor(id, 'svc.gateway')
    expect(gateway.map((l) => [l.svc_dispatch, l.path, l.status]).sort()).toEqual([
      ['api', '/api/hello', 200],
      ['ui', '/call-api', 200],
    ])
    expect(linesFor(id, 'svc.ui').map((l) => l.message)).toEqual(['sidecar request'])
    expect(linesFor(id, 'svc.api').map((l) => l.message)).toEqual(['hello handler', 'GET /hello -> 200'])
  })

  it('one scrape returns the sum over both workers', async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `obs-e2e-count-${i}`)
    const before = parseMetrics(await (await fetch(`${base}/__svc/metrics`)).text())
    const count = (p: typeof before) =>
      Number(p.family('svc_gateway_requests_total').metrics.find((m) => m.labels?.dispatch === 'api' && m.labels.method_kind === 'GET')?.value ?? 0)
    await Promise.all(ids.map((id) => fetch(`${base}/api/hello`, { headers: { 'x-request-id': id, connection: 'close' } }).then((r) => r.text())))
    await waitFor('access lines of every request', () => (ids.every((id) => linesFor(id, 'svc.gateway').length === 1) ? true : undefined))
    const res = await fetch(`${base}/__svc/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
    const after = parseMetrics(await res.text())
    expect(count(after) - count(before)).toBe(ids.length)
    const histogram = after.histogram('svc_gateway_request_duration_seconds', { dispatch: 'api' })
    expect(Number(histogram.count)).toBe(count(after))
    const workers = new Set(after.family('nodejs_heap_size_used_bytes').metrics.map((m) => m.labels?.worker))
    expect(workers.size).toBe(2)
  })

  it('no secret from the query, Authorization or Cookie reaches any line of any process', async () => {
    const id = 'obs-e2e-secret'
    await fetch(`${base}/api/hello?svc_sid=${SECRETS[0]}&auth_code=${SECRETS[1]}`, {
      headers: { 'x-request-id': id, authorization: `Bearer ${SECRETS[2]}`, cookie: `svc_sid=${SECRETS[3]}` },
    })
    await fetch(`${base}/missing?auth_code=${SECRETS[1]}`, { headers: { 'x-request-id': `${id}-ui`, authorization: `Bearer ${SECRETS[2]}` } })
    await waitFor('access lines', () => (linesFor(id, 'svc.gateway').length === 1 && linesFor(`${id}-ui`, 'svc.gateway').length === 1 ? true : undefined))
    expect(linesFor(id, 'svc.gateway')[0]!.query).toBe('svc_sid=<redacted>&auth_code=<redacted>')
    for (const s of SECRETS) expect(rawOutput).not.toContain(s)
  })
})
