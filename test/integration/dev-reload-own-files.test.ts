import { existsSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { Agent, request } from 'undici'
import { tempDir } from '../helpers/cli-run.js'
import { REPO, startSvc, stopAllTrees, type SvcTree } from '../helpers/svc-process.js'

/**
 * `svc dev --reload` with svc's own files in the watched app folder (the default `./.svc.pid`, a
 * custom --pidfile, a compile cache): they are rewritten on every reload and must never trigger
 * the next one. One save is exactly one reload, then the tree stays quiet.
 */
const RELOADING = /change detected \(\d+ event\(s\)\); reloading/
/** The supervisor announces a reload the bundled page server took part in. */
const UI_RELOADING = /reloaded \(gateway\): .*fresh pages ready/
/** Long enough for a self-triggered reload to show: state write + debounce take well under 1 s. */
const QUIET_MS = 2_500

const appSource = (version: number): string => `import { Svc } from ${JSON.stringify(`${REPO}dist/src/app.js`)}
export const app = new Svc({ title: 'Settle' })
app.api.get('/version', async () => ({ version: ${version} }))
app.page('/', (st) => st.text('v${version}'))
`

/** A JetBrains-style safe save next to a vim swap file: temp write, renames, delete; one burst. */
function saveLikeAnEditor(dir: string, text: string): void {
  const file = join(dir, 'app.ts')
  writeFileSync(join(dir, '.app.ts.swp'), 'swap')
  writeFileSync(`${file}___jb_tmp___`, text)
  renameSync(file, `${file}___jb_old___`)
  renameSync(`${file}___jb_tmp___`, file)
  unlinkSync(`${file}___jb_old___`)
}

describe('svc dev --reload settles with its own files in the app folder', () => {
  const agent = new Agent({ keepAliveTimeout: 10_000 })
  afterEach(stopAllTrees)
  afterAll(() => agent.close())

  async function waitForVersion(svc: SvcTree, v: number, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const res = await request(`${svc.url}/api/version`, { dispatcher: agent })
      if (((await res.body.json()) as { version: number }).version === v) return
      if (Date.now() > deadline) throw new Error(`version ${v} not served within ${timeoutMs} ms`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }

  /** A line that must NOT come: waiting for it runs into its deadline. */
  async function expectQuiet(svc: SvcTree, pattern: RegExp, from: number): Promise<void> {
    await expect(svc.waitForLine('stdout', pattern, QUIET_MS, from)).rejects.toThrow(/no stdout line matching/)
  }

  const cases = [
    { name: 'gateway scope, default pidfile', args: ['--reload'], pidfile: '.svc.pid', bundled: false },
    { name: 'full scope, default pidfile', args: ['--reload', '--reload-scope', 'full'], pidfile: '.svc.pid', bundled: false },
    { name: 'custom --pidfile in a sub-folder of the app', args: ['--reload', '--pidfile', 'run/my-app.lock'], pidfile: 'run/my-app.lock', bundled: false },
    { name: 'bundled page server (told by the supervisor), compile cache in the app folder', args: ['--reload'], pidfile: '.svc.pid', bundled: true },
  ]

  it.each(cases)('$name: one save, exactly one reload, then quiet', async ({ args, pidfile, bundled }) => {
    const dir = await tempDir('svc-settle-')
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n')
    writeFileSync(join(dir, 'app.ts'), appSource(1))
    const env: Record<string, string | undefined> = bundled ? { SVC_UI_COMMAND: undefined, NODE_COMPILE_CACHE: join(dir, '.cache', 'node') } : {}
    const svc = await startSvc({ command: 'dev', target: 'app.ts:app', cwd: dir, pidfile: true, args, env })
    await svc.waitForLine('stderr', /--reload \(scope (gateway|full)\)/)
    expect(existsSync(join(dir, pidfile))).toBe(true)
    expect(existsSync(join(dir, `${pidfile}.state.json`))).toBe(true)
    await expectQuiet(svc, RELOADING, 0)

    const from = svc.stdout.length
    saveLikeAnEditor(dir, appSource(2))
    await svc.waitForLine('stdout', /reloaded \((gateway|full)\)/, 20_000, from)
    await waitForVersion(svc, 2)
    const first = svc.stdout.findIndex((l, i) => i >= from && RELOADING.test(l))
    expect(first).toBeGreaterThanOrEqual(from)
    await expectQuiet(svc, RELOADING, first + 1)
    if (bundled) {
      // The page server re-imports the app once for the save (when told) and never for svc's own writes.
      const ui = svc.stdout.findIndex((l, i) => i >= from && UI_RELOADING.test(l))
      expect(ui).toBeGreaterThanOrEqual(from)
      expect(svc.stdout.filter((l, i) => i >= from && UI_RELOADING.test(l))).toHaveLength(1)
    }
    expect(svc.stdout.filter((l, i) => i >= from && RELOADING.test(l))).toHaveLength(1)
  }, 60_000)
})
