import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, expect, it } from 'vitest'
import { isZombie } from '../../src/process/process-check.js'
import { waitUntil } from '../helpers/cli-processes.js'
import { descendants, REPO, startSvc, stopAllTrees } from '../helpers/svc-process.js'

/**
 * Each process loads what it uses (docs/performance.md, "Start-up"): the page server's app skips
 * the OpenAPI builder and the docs UI, a gateway loads the docs UI on the first docs request, no
 * process loads undici or light-my-request for the test client `svc` exports, and Fastify's
 * schema compilers (ajv) wait for a route with a schema. CommonJS packages show in
 * `require.cache`, so a fresh node process loads the app as the page server does and reports
 * which of them it loaded.
 */
const HEAVY = [
  '/node_modules/yaml/',
  '/node_modules/@fastify/swagger-ui/',
  '/node_modules/undici/',
  '/node_modules/light-my-request/',
  '/node_modules/ajv/',
  '/node_modules/@fastify/ajv-compiler/',
  '/node_modules/@fastify/fast-json-stringify-compiler/',
]

const SCRIPT = `
import { createRequire } from 'node:module'
const pagesOnly = process.argv[1] === 'pages'
if (pagesOnly) (await import('./dist/src/internal/process-role.js')).markPagesOnly()
const { loadTarget } = await import('./dist/src/target/load-target.js')
const { app } = await loadTarget(process.argv[2])
if (!pagesOnly) await app.api.ready()
const heavy = ${JSON.stringify(HEAVY)}
const loaded = Object.keys(createRequire(import.meta.url).cache)
console.log(JSON.stringify(heavy.filter((h) => loaded.some((f) => f.includes(h)))))
await app.api.close()
`

async function heavyLoaded(role: 'pages' | 'api', target = 'examples/hello/app.ts:app'): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', SCRIPT, role, target], { cwd: REPO, timeout: 30_000 })
  return JSON.parse(stdout.trim().split('\n').pop()!) as string[]
}

afterEach(stopAllTrees)

it('the page server loads the app without the OpenAPI builder, the docs UI, undici, light-my-request or ajv', async () => {
  expect(await heavyLoaded('pages')).toEqual([])
}, 40_000)

const PAGES_ONLY_SCRIPT = `
import { createRequire } from 'node:module'
;(await import('./dist/src/internal/process-role.js')).markPagesOnly()
const { loadTarget } = await import('./dist/src/target/load-target.js')
const { app } = await loadTarget('examples/dashboard/app.ts:app')
const api = app.api
api.decorate('db', { name: 'pool' })
const chained = api.get('/x', async () => 1).addHook('onRequest', async () => {}) === api
let listen = ''
try { api.listen() } catch (err) { listen = err.code }
const loaded = Object.keys(createRequire(import.meta.url).cache)
const fastify = ['/node_modules/fastify/', '/node_modules/avvio/', '/node_modules/find-my-way/', '/node_modules/@fastify/swagger/'].filter((m) => loaded.some((f) => f.includes(m)))
await api.ready()
await api.close()
console.log(JSON.stringify({ fastify, chained, db: api.db, listen, pages: app.pages.length > 0 }))
`

it('a process that runs pages only never loads Fastify: app.api takes the app\'s declarations and ignores them', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', PAGES_ONLY_SCRIPT], { cwd: REPO, timeout: 30_000 })
  expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual({ fastify: [], chained: true, db: { name: 'pool' }, listen: 'SVC_ERR_UI_BAD_CALL', pages: true })
}, 40_000)

it('an app that serves its API loads the OpenAPI builder once readied; not the docs UI before a docs request, the test client, nor ajv for routes without schemas', async () => {
  expect(await heavyLoaded('api')).toEqual(['/node_modules/yaml/'])
}, 40_000)

it('an app whose routes are all typed (zod) never loads ajv or fast-json-stringify', async () => {
  expect(await heavyLoaded('api', 'examples/dashboard/app.ts:app')).toEqual(['/node_modules/yaml/'])
}, 40_000)

// ES modules are not in require.cache: a resolve hook (off-thread, as on every Node svc runs on)
// reports every module the app load resolves. The app imports svc by its root (\`svc/ui\` is the
// whole page runtime, the test handle included).
const API_MODULES_SCRIPT = `
import { register } from 'node:module'
import { MessageChannel } from 'node:worker_threads'
const { port1, port2 } = new MessageChannel()
const seen = new Set()
port1.on('message', (url) => seen.add(url))
port1.unref()
const hooks = 'let port; export function initialize(data) { port = data.port } export async function resolve(specifier, context, next) { const r = await next(specifier, context); port.postMessage(r.url); return r }'
register('data:text/javascript,' + encodeURIComponent(hooks), { data: { port: port2 }, transferList: [port2] })
const { loadTarget } = await import('./dist/src/target/load-target.js')
const { app } = await loadTarget('examples/hello/app.ts:app')
await app.api.ready()
await new Promise((resolve) => setTimeout(resolve, 200))
console.log(JSON.stringify([...seen].filter((u) => /\\/dist\\/src\\/ui\\/(runtime\\/page-session|st\\/root|app-test)\\.js$/.test(u)).map((u) => u.replace(/.*\\/dist\\//, ''))))
await app.api.close()
`

it('a process that serves the API (a gateway worker) loads no page runtime: no page session, no st, no test handle', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', API_MODULES_SCRIPT], { cwd: REPO, timeout: 30_000 })
  expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual([])
}, 40_000)

const GATEWAY_SCRIPT = `
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
await import('./dist/gateway/http-proxy.js')
const { probeUpstream } = await import('./dist/src/health.js')
const server = createServer((req, res) => res.end('ok')).listen(0, '127.0.0.1')
await new Promise((r) => server.once('listening', r))
const probe = await probeUpstream('http://127.0.0.1:' + server.address().port, '')
server.close()
const undici = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('/node_modules/undici/'))
console.log(JSON.stringify({ probe, modules: undici.length, entry: undici.some((f) => f.endsWith('/undici/index.js')) }))
`

it('a gateway worker loads undici\'s pool for the proxy and probes readiness without undici\'s entry (fetch, WebSocket, caches)', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', GATEWAY_SCRIPT], { cwd: REPO, timeout: 30_000 })
  const out = JSON.parse(stdout.trim().split('\n').pop()!) as { probe: unknown; modules: number; entry: boolean }
  expect(out.probe).toEqual({ ok: true })
  expect(out.entry).toBe(false)
  expect(out.modules).toBeGreaterThan(0)
  expect(out.modules).toBeLessThan(50)
}, 40_000)

// With an empty tsx cache (its own TMPDIR, as in a fresh container) the gateway transforms the
// app with esbuild at start; the service process that does it is stopped (and reaped) once the app
// is loaded.
it('svc run with the bundled page server is three svc processes, no esbuild service', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'svc-cold-tsx-'))
  try {
    const svc = await startSvc({ target: 'examples/hello/app.ts:app', env: { SVC_UI_COMMAND: undefined, TMPDIR: tmp } })
    const res = await fetch(`${svc.url}/api/readyz`)
    expect(res.status).toBe(200)
    await waitUntil('no exited child left unreaped in the tree', () => !descendants(svc.pid).some(isZombie), 5_000)
    const titles = descendants(svc.pid).map((p) => readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0')[0])
    expect(titles.sort()).toEqual(['svc gateway', 'svc sidecar'])
  } finally {
    await stopAllTrees()
    rmSync(tmp, { recursive: true, force: true })
  }
}, 60_000)

/** One process's report as a [title, flags] entry; none while the file is still being written. */
function report(file: string): [string, string[]][] {
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as { title: string; execArgv: string[] }
    return [[r.title, r.execArgv]]
  } catch {
    return []
  }
}

it('forks the gateway and the page server with a 4 MB young generation, unless NODE_OPTIONS chooses one', async () => {
  const flagsOf = async (nodeOptions: string): Promise<Record<string, string[]>> => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-argv-'))
    try {
      const preload = join(REPO, 'test', 'fixtures', 'report-exec-argv.cjs')
      const svc = await startSvc({
        target: 'examples/hello/app.ts:app',
        env: { SVC_UI_COMMAND: undefined, NODE_OPTIONS: `--require ${preload} ${nodeOptions}`, SVC_TEST_EXEC_ARGV_DIR: dir },
      })
      expect((await fetch(`${svc.url}/api/readyz`)).status).toBe(200)
      const want = ['svc gateway', 'svc sidecar']
      const deadline = Date.now() + 10_000
      let seen: Record<string, string[]> = {}
      while (!want.every((t) => t in seen)) {
        if (Date.now() > deadline) throw new Error(`no flags reported by ${want.filter((t) => !(t in seen)).join(', ')}`)
        await new Promise((r) => setTimeout(r, 50))
        seen = Object.fromEntries(readdirSync(dir).flatMap((f) => report(join(dir, f))))
      }
      await stopAllTrees()
      return seen
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  const ours = await flagsOf('')
  expect(ours['svc gateway']).toContain('--max-semi-space-size=4')
  expect(ours['svc sidecar']).toContain('--max-semi-space-size=4')
  const theirs = await flagsOf('--max-semi-space-size=16')
  expect(theirs['svc gateway']!.filter((f) => f.includes('semi'))).toEqual([])
  expect(theirs['svc sidecar']!.filter((f) => f.includes('semi'))).toEqual([])
}, 90_000)

// The lazy loading above must not cost CommonJS users: an ES module with a top-level await cannot
// be require()d (ERR_REQUIRE_ASYNC_MODULE), so svc's entry loads Fastify without one.
it('CommonJS code can require() svc and build an API with it', async () => {
  const script = "const { Svc } = require('svc'); const app = new Svc(); app.api.get('/x', async () => 1); app.api.inject('/x').then((r) => { console.log(JSON.stringify({ status: r.statusCode, body: r.body })); return app.api.close() })"
  const { stdout } = await promisify(execFile)(process.execPath, ['--no-warnings', '-e', script], { cwd: REPO, timeout: 30_000 })
  expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual({ status: 200, body: '1' })
}, 40_000)
