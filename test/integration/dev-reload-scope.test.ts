import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { Agent, request } from 'undici'
import { tempDir } from '../helpers/cli-run.js'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'

/**
 * `svc dev --reload` reloads on what can change the app (source and JSON files, the secrets file),
 * never on data, images, docs or logs in the app folder, not even ones the app itself writes
 * whenever it loads (which would reload it forever).
 */
const RELOADING = /change detected \(\d+ event\(s\)\); reloading/
/** Long enough for a reload of a file event to show: debounce and the log line take well under 1 s. */
const QUIET_MS = 2_500

const appSource = (version: number): string => `import { writeFileSync } from 'node:fs'
import { Svc } from ${JSON.stringify(`${REPO}dist/src/app.js`)}
// Data the app writes every time it loads, next to its code.
writeFileSync(new URL('./export.csv', import.meta.url), 'id,total\\n1,${version}\\n')
writeFileSync(new URL('./app-run.txt', import.meta.url), 'loaded ${version}\\n')
export const app = new Svc({ title: 'Scope' })
app.api.get('/version', async () => ({ version: ${version}, secrets: Object.keys(app.secrets) }))
`

interface Reloading {
  message: string
  files: string[]
}

describe('svc dev --reload reloads on what can change the app', () => {
  const agent = new Agent({ keepAliveTimeout: 10_000 })
  afterEach(stopAllTrees)
  afterAll(() => agent.close())

  const served = async (svc: SvcTree): Promise<{ version: number; secrets: string[] }> => {
    const res = await request(`${svc.url}/api/version`, { dispatcher: agent })
    return (await res.body.json()) as { version: number; secrets: string[] }
  }
  const reloads = (svc: SvcTree, from: number): Reloading[] =>
    svc.stdout
      .slice(from)
      .filter((l) => l.startsWith('{') && RELOADING.test(l))
      .map((l) => JSON.parse(l) as Reloading)
  const expectQuiet = async (svc: SvcTree, from: number): Promise<void> => {
    await expect(svc.waitForLine('stdout', RELOADING, QUIET_MS, from)).rejects.toThrow(/no stdout line matching/)
  }

  it('ignores images, Markdown, CSV, logs and text (also ones the app writes as it loads), reloads on source, JSON and .svc/secrets.json', async () => {
    const dir = await tempDir('svc-scope-')
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
    writeFileSync(join(dir, 'app.ts'), appSource(1))
    const svc = await startSvc({ command: 'dev', target: 'app.ts:app', cwd: dir, args: ['--reload', '--log-format', 'json'] })
    await svc.waitForLine('stderr', /--reload \(scope gateway\)/)
    // The standby worker and the running one wrote export.csv and app-run.txt: no reload for them.
    await expectQuiet(svc, 0)

    // A burst of data files, then a save of the code: one reload, for the code only.
    let from = svc.stdout.length
    writeFileSync(join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]))
    writeFileSync(join(dir, 'README.md'), '# notes\n')
    writeFileSync(join(dir, 'orders.csv'), 'id\n1\n')
    writeFileSync(join(dir, 'server.log'), 'x\n')
    writeFileSync(join(dir, 'lib.ts'), 'export const x = 1\n')
    await svc.waitForLine('stdout', /reloaded \(gateway\)/, 20_000, from)
    expect((await served(svc)).version).toBe(1)
    // The new worker wrote export.csv again while it loaded: still no second reload.
    await expectQuiet(svc, from + 1 + svc.stdout.slice(from).findIndex((l) => RELOADING.test(l)))
    expect(reloads(svc, from).map((r) => r.files.map((f) => f.slice(f.lastIndexOf('/') + 1)))).toEqual([['lib.ts']])

    // A JSON file and the secrets file (under the otherwise ignored .svc folder) reload too.
    from = svc.stdout.length
    mkdirSync(join(dir, '.svc'), { recursive: true })
    writeFileSync(join(dir, '.svc', 'secrets.json'), '{ "apiToken": "tok-123456" }\n')
    await svc.waitForLine('stdout', /reloaded \(gateway\)/, 20_000, from)
    await expect.poll(async () => (await served(svc)).secrets, { timeout: 15_000 }).toEqual(['apiToken'])
    expect(reloads(svc, from).flatMap((r) => r.files.map((f) => f.slice(f.lastIndexOf('/') + 1)))).toContain('secrets.json')

    from = svc.stdout.length
    writeFileSync(join(dir, 'app.ts'), appSource(2))
    await svc.waitForLine('stdout', /reloaded \(gateway\)/, 20_000, from)
    await expect.poll(async () => (await served(svc)).version, { timeout: 15_000 }).toBe(2)
    await expectQuiet(svc, from + 1 + svc.stdout.slice(from).findIndex((l) => RELOADING.test(l)))
  }, 90_000)
})
