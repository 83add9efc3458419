import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { REPO, SVC_BIN, startSvc, stopAllTrees } from '../helpers/svc-process.js'

/**
 * An app written with import/export loads in any npm project: a bare folder (no package.json up
 * the tree), a `"type": "commonjs"` package (`npm init -y`) and a `"type": "module"` one, for each
 * app extension, importing its own sibling `lib.ts` with and without an extension. Real projects
 * in the OS temp dir with svc linked into node_modules, as `npm install` of a local path does.
 */
const run = promisify(execFile)
const KINDS = ['bare', 'commonjs', 'module'] as const
/** App extension → how it imports lib.ts. */
const VARIANTS = { ts: './lib', mts: './lib.ts', cts: './lib.js', js: './lib.js', mjs: './lib' } as const
type Ext = keyof typeof VARIANTS
const EXTS = Object.keys(VARIANTS) as Ext[]
const CASES = KINDS.flatMap((kind) => EXTS.map((ext) => ({ kind, ext })))

let root: string
const dirOf = (kind: string): string => join(root, kind)

function appSource(ext: Ext): string {
  const typed = ext.endsWith('ts')
  return `import { Svc } from 'svc'
import { hello } from '${VARIANTS[ext]}'
const variant${typed ? ': string' : ''} = '${ext}'
export const app = new Svc({ title: 'app-' + variant, log_level: 'warn' })
app.api.get('/ping', async () => ({ ok: hello(), variant }))
app.page('/', async (st) => {
  st.title('Hi ' + variant)
})
`
}

function makeProject(kind: (typeof KINDS)[number]): void {
  const dir = dirOf(kind)
  mkdirSync(join(dir, 'node_modules'), { recursive: true })
  symlinkSync(REPO, join(dir, 'node_modules', 'svc'), 'dir')
  // What `npm init -y` writes today, and its ESM counterpart.
  if (kind !== 'bare') writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `p-${kind}`, version: '1.0.0', main: 'index.js', type: kind }, null, 2))
  writeFileSync(join(dir, 'lib.ts'), "export function hello(): string {\n  return 'hi'\n}\n")
  // A real CommonJS sibling stays CommonJS.
  writeFileSync(join(dir, 'legacy.cjs'), "module.exports = { dir: typeof __dirname }\n")
  for (const ext of EXTS) writeFileSync(join(dir, `app.${ext}`), appSource(ext))
}

/** Run `jobs` with at most `limit` at a time (two shared cores: a few process trees at once). */
async function pool<T>(items: readonly T[], limit: number, job: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items]
  await Promise.all(Array.from({ length: limit }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await job(item)
  }))
}

async function svc(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [SVC_BIN, ...args], { cwd, env: { ...process.env, SVC_UI_COMMAND: undefined }, timeout: 60_000 })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }
  }
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'svc-load-'))
  for (const kind of KINDS) makeProject(kind)
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe(`apps load in any project (node ${process.version})`, () => {
  afterEach(stopAllTrees)

  it('svc run serves /api/ping and the page route through the gateway', { timeout: 240_000 }, async () => {
    const failures: string[] = []
    // Three trees at a time: each page server also loads the app in its two page threads, and
    // five such trees at once on two cores can take longer than the start deadline to load.
    await pool(CASES, 3, async ({ kind, ext }) => {
      try {
        const tree = await startSvc({ cwd: dirOf(kind), target: `app.${ext}:app`, env: { SVC_UI_COMMAND: undefined }, timeoutMs: 40_000 })
        const ping = await fetch(`${tree.url}/api/ping`)
        const body = (await ping.json()) as unknown
        const page = await fetch(`${tree.url}/`)
        const html = await page.text()
        if (ping.status !== 200 || JSON.stringify(body) !== JSON.stringify({ ok: 'hi', variant: ext })) failures.push(`${kind}/${ext}: /api/ping ${ping.status} ${JSON.stringify(body)}`)
        if (page.status !== 200 || !html.includes(`<title>app-${ext}</title>`)) failures.push(`${kind}/${ext}: / ${page.status} ${html.slice(0, 200)}`)
        await tree.stop()
      } catch (err) {
        failures.push(`${kind}/${ext}: ${(err as Error).message.slice(0, 600)}`)
      }
    })
    expect(failures).toEqual([])
  })

  it('svc doctor passes import_target and svc pages manifest lists the page', { timeout: 240_000 }, async () => {
    const failures: string[] = []
    await pool(CASES, 5, async ({ kind, ext }) => {
      // doctor spends most of its time in checks that do not load the app: three variants suffice.
      if (ext === 'ts' || ext === 'cts' || ext === 'mjs') {
        const doctor = await svc(dirOf(kind), ['doctor', `app.${ext}:app`, '--json'])
        const rows = (JSON.parse(doctor.stdout || '{"checks":[]}') as { checks?: Array<{ name: string; status: string; detail: string }> }).checks ?? []
        const row = rows.find((r) => r.name === 'import_target')
        if (row?.status !== 'PASS') failures.push(`${kind}/${ext}: doctor import_target ${JSON.stringify(row)} ${doctor.stderr}`)
      }
      const manifest = await svc(dirOf(kind), ['pages', 'manifest', `app.${ext}:app`])
      if (manifest.code !== 0) failures.push(`${kind}/${ext}: pages manifest exit ${manifest.code}: ${manifest.stderr}`)
      else {
        const m = JSON.parse(manifest.stdout) as { title: string; pages: Array<{ path: string }> }
        if (m.title !== `app-${ext}` || m.pages[0]?.path !== '/') failures.push(`${kind}/${ext}: manifest ${manifest.stdout}`)
      }
    })
    expect(failures).toEqual([])
  })

  it('SvcTestClient drives every variant from a plain node script (loadApp from svc/testing)', { timeout: 120_000 }, async () => {
    const script = `import { SvcTestClient, loadApp } from 'svc/testing'
import legacy from './legacy.cjs'
const out = { legacy: legacy.dir }
for (const ext of ${JSON.stringify(EXTS)}) {
  const client = new SvcTestClient(await loadApp('app.' + ext + ':app'))
  const res = await client.apiGet('/ping')
  const at = await client.ui({ target: '/' }).run()
  out[ext] = { status: res.status, body: res.json(), title: at.title[0]?.value }
  await client.close()
}
console.log(JSON.stringify(out))
`
    const expected: Record<string, unknown> = { legacy: 'string' }
    for (const ext of EXTS) expected[ext] = { status: 200, body: { ok: 'hi', variant: ext }, title: `Hi ${ext}` }
    await pool(KINDS, 3, async (kind) => {
      writeFileSync(join(dirOf(kind), 'client-check.mjs'), script)
      const { stdout, stderr } = await run(process.execPath, ['client-check.mjs'], { cwd: dirOf(kind), timeout: 60_000 }).catch((e: { stdout: string; stderr: string }) => e)
      expect({ kind, out: stdout.trim() ? (JSON.parse(stdout.trim().split('\n').pop()!) as unknown) : stderr }).toEqual({ kind, out: expected })
    })
  })
})

describe(`dev reload in a commonjs project (node ${process.version})`, () => {
  afterEach(stopAllTrees)

  it('svc dev --reload picks up a change of a sibling module in the gateway and in the sidecar', { timeout: 120_000 }, async () => {
    const dir = join(root, 'commonjs-dev')
    mkdirSync(join(dir, 'node_modules'), { recursive: true })
    symlinkSync(REPO, join(dir, 'node_modules', 'svc'), 'dir')
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'dev', version: '1.0.0', type: 'commonjs' }))
    writeFileSync(join(dir, 'lib.ts'), "export const word: string = 'one'\n")
    writeFileSync(join(dir, 'app.ts'), `import { Svc } from 'svc'
import { word } from './lib'
export const app = new Svc({ title: 'dev' })
app.api.get('/word', async () => ({ word }))
app.page('/', async (st) => {
  st.text(word)
})
`)
    const tree = await startSvc({ command: 'dev', cwd: dir, target: 'app.ts:app', args: ['--reload', '--log-format', 'json'], env: { SVC_UI_COMMAND: undefined }, timeoutMs: 40_000 })
    await tree.waitForLine('stderr', /--reload \(scope gateway\)/)
    const word = async (): Promise<string> => ((await (await fetch(`${tree.url}/api/word`)).json()) as { word: string }).word
    expect(await word()).toBe('one')
    writeFileSync(join(dir, 'lib.ts'), "export const word: string = 'two'\n")
    const deadline = Date.now() + 40_000
    while ((await word()) !== 'two') {
      if (Date.now() > deadline) throw new Error(`gateway still serves the old module; stderr:\n${tree.stderr.join('\n')}`)
      await new Promise((r) => setTimeout(r, 100))
    }
    // The bundled sidecar loaded the app (and lib.ts) again through the same loader when the
    // supervisor asked: fresh page threads, or the in-process sessions when it runs without threads.
    await tree.waitForLine('stdout', /reloaded \(gateway\): .*fresh pages ready/, 40_000)
    expect(tree.stdout.filter((l) => l.includes('ui reload: importing'))).toEqual([])
  })
})

describe('an app that cannot load', () => {
  afterEach(stopAllTrees)

  const broken = {
    'syntax.ts': "import { Svc } from 'svc'\nexport const app = new Svc({\n  title: 'x',,\n})\n",
    'cycle.ts': "import { Svc } from 'svc'\nimport back from './back.cjs'\nexport const app = new Svc({ title: String(back) })\n",
    'back.cjs': "module.exports = require('./cycle.ts')\n",
    'missing.ts': "import { Svc } from 'svc'\nimport { x } from 'not-installed-pkg'\nexport const app = new Svc({ title: String(x) })\n",
  }
  const cases = [
    { file: 'syntax.ts', says: /^svc: error: cannot load syntax\.ts: syntax error at syntax\.ts:3:\d+: .+; fix the code there$/ },
    { file: 'cycle.ts', says: /^svc: error: cannot load cycle\.ts: a CommonJS require\(\) \(at back\.cjs:1:\d+\) loads an ES module .*; use import instead of require\(\)/ },
    { file: 'missing.ts', says: /^svc: error: cannot load missing\.ts: cannot find package "not-installed-pkg" .*; install it \(npm install not-installed-pkg\)/ },
  ]

  beforeAll(() => {
    for (const [name, text] of Object.entries(broken)) writeFileSync(join(dirOf('commonjs'), name), text)
  })

  it('svc run prints one stderr line naming the file, the cause and the fix, and exits 2', { timeout: 120_000 }, async () => {
    const results: Array<{ file: string; code: number | string; stderr: string[]; stdout: string[] }> = []
    await pool(cases, 3, async ({ file }) => {
      for (const format of ['pretty', 'json']) {
        const tree = await startSvc({ cwd: dirOf('commonjs'), target: `${file}:app`, env: { SVC_UI_COMMAND: undefined }, args: ['--log-format', format], noWait: true })
        const code = await tree.exited
        results.push({ file: `${file} ${format}`, code, stderr: tree.stderr.filter((l) => l.trim() !== ''), stdout: tree.stdout.filter((l) => l.includes('cannot load')) })
      }
    })
    for (const { file, says } of cases) {
      for (const format of ['pretty', 'json']) {
        const r = results.find((x) => x.file === `${file} ${format}`)!
        expect(r.code, r.file).toBe(2)
        expect(r.stderr, r.file).toHaveLength(1)
        expect(r.stderr[0], r.file).toMatch(says)
        // JSON logs keep one machine record on stdout; pretty logs add nothing for the human to read twice.
        expect(r.stdout, r.file).toHaveLength(format === 'json' ? 1 : 0)
      }
    }
  })

  it('svc pages manifest and svc doctor give the same one line', { timeout: 60_000 }, async () => {
    const manifest = await svc(dirOf('commonjs'), ['pages', 'manifest', 'syntax.ts:app'])
    expect(manifest.code).toBe(2)
    expect(manifest.stderr.trim().split('\n')).toHaveLength(1)
    expect(manifest.stderr).toMatch(/cannot load syntax\.ts: syntax error at syntax\.ts:3:\d+/)
    const doctor = await svc(dirOf('commonjs'), ['doctor', 'cycle.ts:app', '--json'])
    const row = (JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string; detail: string }> }).checks.find((r) => r.name === 'import_target')
    expect(row?.status).toBe('FAIL')
    expect(row?.detail).toMatch(/cannot load cycle\.ts: a CommonJS require\(\) \(at back\.cjs:1:\d+\)/)
  })
})
