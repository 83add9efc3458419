import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import { request } from 'undici'
import { REPO, startSvc, stopAllTrees } from '../helpers/svc-process.js'

/** Worker lifecycle: the app's onClose hooks, start deadline, crash/reload races, titles, env. */
const LIFECYCLE_APP = `${REPO}test/fixtures/app-lifecycle.ts:app`

interface EnvProbe {
  pid: number
  started: number
  gateway_port: string | null
  settings_port: number
}

/** GET /api/env until `ok` holds (a fresh connection each time, so any worker may answer). */
async function until(url: string, ok: (e: EnvProbe) => boolean, timeoutMs = 5_000): Promise<EnvProbe> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const e = (await (await request(`${url}/api/env`, { reset: true })).body.json()) as EnvProbe
    if (ok(e)) return e
    if (Date.now() > deadline) throw new Error(`/api/env never satisfied the condition; last: ${JSON.stringify(e)}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('worker lifecycle', () => {
  let dir: string
  beforeEach(() => {
    dir = `${REPO}test/.tmp/lifecycle-${randomUUID()}`
    mkdirSync(dir, { recursive: true })
  })
  afterEach(async () => {
    await stopAllTrees()
    rmSync(dir, { recursive: true, force: true })
  })

  it("runs the app's onClose hooks on SIGTERM, after in-flight requests finished", async () => {
    const svc = await startSvc({ target: LIFECYCLE_APP, env: { TEST_ONCLOSE_DIR: dir } })
    const slow = request(`${svc.url}/api/slow?ms=800`)
    const { pid } = await until(svc.url, (e) => e.started === 1)
    expect(await svc.stop('SIGTERM')).toBe(0)
    expect((await slow).statusCode).toBe(200)
    const file = `${dir}/closed-${pid}.json`
    expect(existsSync(file)).toBe(true)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ finished: 1 })
  })
})
