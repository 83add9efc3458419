import { existsSync, readdirSync, readFileSync } from 'node:fs'
import module from 'node:module'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { tempDir } from '../helpers/cli-run.js'
import { descendants, startSvc, stopAllTrees } from '../helpers/svc-process.js'

/** Node >= 22.1 has V8's compile cache; svc turns it on for itself and its own children. */
const hasCompileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function'

afterEach(stopAllTrees)

it(`compile cache: ${hasCompileCache ? 'on for the supervisor, gateway workers and bundled sidecar' : 'absent on this Node, nothing set'}`, async () => {
  // Node's default folder is <os tmpdir>/node-compile-cache: point the tmpdir at a fresh folder.
  const tmp = await tempDir('svc-compile-cache-')
  const svc = await startSvc({ env: { TMPDIR: tmp, NODE_COMPILE_CACHE: undefined, NODE_DISABLE_COMPILE_CACHE: undefined, SVC_UI_COMMAND: undefined } })
  const children = descendants(svc.pid)
  expect(children.length).toBeGreaterThanOrEqual(2)
  const cacheVars = children.map((p) => readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').find((v) => v.startsWith('NODE_COMPILE_CACHE=')))
  const folder = join(tmp, 'node-compile-cache')
  expect(cacheVars).toEqual(children.map(() => (hasCompileCache ? `NODE_COMPILE_CACHE=${folder}` : undefined)))
  // Node writes the cache when a process exits.
  expect(await svc.stop()).toBe(0)
  expect(existsSync(folder) && readdirSync(folder, { recursive: true }).length > 0).toBe(hasCompileCache)
}, 60_000)
