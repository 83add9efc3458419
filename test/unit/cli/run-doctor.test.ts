import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { runDoctor } from '../../../src/cli/doctor/run-doctor.js'
import type { TargetLoader } from '../../../src/cli/doctor/import-target.js'
import { resolveSettings, envLayer } from '../../../src/settings/resolve.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-run-doctor-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** Loads nothing: returns settings as `new Svc()` would from this env. */
const fakeLoader = (env: NodeJS.ProcessEnv): TargetLoader => async (target) => ({
  settings: resolveSettings([envLayer(env)]),
  file: `/fake/${target.split(':')[0]}`,
  exportName: 'app',
})

/** Vitest cannot import every package the way Node does (clipanion); the dependencies row is unit-tested elsewhere. */
const importModule = async (): Promise<unknown> => ({})

const failingLoader: TargetLoader = async (target) => {
  throw new Error(`cannot find the app module "${target}"\nstack line`)
}

describe('runDoctor', () => {
  it('emits the rows in order and passes for a clean setup', async () => {
    const env = { SVC_GATEWAY_PORT: '0' }
    const report = await runDoctor({ env, cwd: dir, importModule, loadTarget: fakeLoader(env) })
    expect(report.status).toBe('pass')
    expect(report.target).toBe('app:app')
    expect(report.warnings_only).toBe(false)
    expect(report.checks.map((c) => c.name)).toEqual([
      'node_version',
      'import_target',
      'running_tree',
      'dependencies',
      'gateway_bind',
      'SVC_INTERNAL_API_BASE',
      'jwt_clock_skew',
      'root_path',
      'trust_proxy',
      'proxy_headers',
      'public_base_url',
      'gateway_max_proxy_body',
      'metrics_path',
      'readiness_route',
      'l7_websocket',
      'gateway_upstream_timeouts',
      'gateway_forward_client_headers',
      'ui_upstream_state',
      'redis',
    ])
    for (const check of report.checks) expect(Object.keys(check).sort()).toEqual(['detail', 'name', 'status'])
  })

  it('takes the target from SVC_APP and reports an import failure on one line', async () => {
    const report = await runDoctor({ env: { SVC_APP: 'src/main.ts:app', SVC_GATEWAY_PORT: '0' }, cwd: dir, importModule, loadTarget: failingLoader })
    expect(report.target).toBe('src/main.ts:app')
    expect(report.status).toBe('fail')
    expect(report.checks.find((c) => c.name === 'import_target')).toEqual({
      name: 'import_target',
      status: 'FAIL',
      detail: 'cannot find the app module "src/main.ts:app"',
    })
  })

  it('reports invalid settings as a settings row and skips the rows that need them', async () => {
    const env = { SVC_GATEWAY_PORT: 'abc' }
    const report = await runDoctor({ env, cwd: dir, importModule, loadTarget: failingLoader, warningsOnly: true })
    const settingsRow = report.checks.find((c) => c.name === 'settings')
    expect(settingsRow).toMatchObject({ status: 'FAIL', detail: expect.stringContaining('SVC_GATEWAY_PORT') })
    expect(report.checks.find((c) => c.name === 'gateway_bind')).toMatchObject({ status: 'WARN', detail: expect.stringMatching(/^skipped: the settings are invalid/) })
    expect(report.checks.map((c) => c.name)).toContain('ui_upstream_state')
    // warnings-only: FAIL rows stay FAIL, the overall status is warn.
    expect(report.status).toBe('warn')
    expect(report.warnings_only).toBe(true)
  })

  it('a bad --port the app never sees still skips the rows that need settings, each saying why', async () => {
    const env = {}
    const report = await runDoctor({ env, cwd: dir, importModule, loadTarget: fakeLoader(env), port: 'abc' })
    expect(report.status).toBe('fail')
    expect(report.checks.find((c) => c.name === 'settings')).toEqual({
      name: 'settings',
      status: 'FAIL',
      detail: 'invalid settings: flag --port: "abc" is not valid for gateway_port: must be a port from 0 to 65535',
    })
    const skipped = report.checks.filter((c) => c.detail.startsWith('skipped: the settings are invalid (see the settings row)'))
    expect(skipped.map((c) => c.name)).toEqual([
      'gateway_bind',
      'SVC_INTERNAL_API_BASE',
      'root_path',
      'trust_proxy',
      'proxy_headers',
      'public_base_url',
      'gateway_max_proxy_body',
      'metrics_path',
      'readiness_route',
      'l7_websocket',
      'gateway_upstream_timeouts',
      'gateway_forward_client_headers',
      'redis',
    ])
    expect(skipped.every((c) => c.status === 'WARN')).toBe(true)
    expect(report.checks.some((c) => c.detail.includes('is available'))).toBe(false)
  })

  it('an app that cannot load for its own bad setting names the value and the fix on the import row', async () => {
    const { optionsLayer } = await import('../../../src/settings/resolve.js')
    const loadTarget: TargetLoader = async () => ({ settings: resolveSettings([optionsLayer({ workers: -1 })]), file: '/fake/app', exportName: 'app' })
    const report = await runDoctor({ env: { SVC_GATEWAY_PORT: '0' }, cwd: dir, importModule, loadTarget })
    expect(report.checks.find((c) => c.name === 'import_target')).toEqual({
      name: 'import_target',
      status: 'FAIL',
      detail: 'invalid settings: new Svc({ workers }): -1 is not valid for workers: must be an integer from 1 to 64',
    })
  })

  it('a bad SVC_* value shows once, on the settings row, naming the value and the fix', async () => {
    const env = { SVC_WORKERS: '-1' }
    const report = await runDoctor({ env, cwd: dir, importModule, loadTarget: fakeLoader(env) })
    expect(report.checks.find((c) => c.name === 'settings')!.detail).toBe(
      'invalid settings: environment variable SVC_WORKERS: -1 is not valid for workers: must be an integer from 1 to 64',
    )
    expect(report.checks.find((c) => c.name === 'import_target')!.detail).toBe('the app cannot load with the settings reported above; fix those first')
  })

  it('a svc.config.json error shows once: the import row does not repeat it', async () => {
    const { writeFile } = await import('node:fs/promises')
    await writeFile(join(dir, 'svc.config.json'), JSON.stringify({ gateway_prot: 8000, wrokers: 2 }))
    // The app reads the same file in `new Svc()`: the loader fails with the very same message.
    const { configFileLayer } = await import('../../../src/settings/resolve.js')
    const loadTarget: TargetLoader = async () => {
      configFileLayer(dir)
      throw new Error('unreachable')
    }
    const report = await runDoctor({ env: {}, cwd: dir, importModule, loadTarget })
    const mentions = report.checks.filter((c) => c.detail.includes('gateway_prot'))
    expect(mentions.map((c) => c.name)).toEqual(['settings'])
    expect(mentions[0]!.detail).toContain('"gateway_prot" (did you mean "gateway_port"?), "wrokers" (did you mean "workers"?)')
    expect(report.checks.find((c) => c.name === 'import_target')).toEqual({
      name: 'import_target',
      status: 'FAIL',
      detail: 'the app cannot load with the settings reported above; fix those first',
    })
  })

  it('--strict turns deployment advice into failures', async () => {
    const env = { SVC_GATEWAY_PORT: '0', SVC_ROOT_PATH: '/tools' }
    const relaxed = await runDoctor({ env, cwd: dir, importModule, loadTarget: fakeLoader(env) })
    expect(relaxed.status).toBe('warn')
    const strict = await runDoctor({ env, cwd: dir, importModule, loadTarget: fakeLoader(env), strict: true })
    expect(strict.status).toBe('fail')
    expect(strict.checks.filter((c) => c.status === 'FAIL').map((c) => c.name)).toEqual(['proxy_headers', 'public_base_url'])
  })

  it('with redis_url (replicas), warns when cookie_secret is empty and passes when set', async () => {
    const base = { SVC_GATEWAY_PORT: '0', SVC_REDIS_URL: 'redis://127.0.0.1:1', SVC_REDIS_TIMEOUT_S: '1' }
    const row = async (env: NodeJS.ProcessEnv) => (await runDoctor({ env, cwd: dir, importModule, loadTarget: fakeLoader(env) })).checks.find((c) => c.name === 'cookie_secret')
    expect(await row(base)).toMatchObject({ status: 'WARN', detail: expect.stringContaining('set the same SVC_COOKIE_SECRET') })
    expect(await row({ ...base, SVC_COOKIE_SECRET: 'k'.repeat(32) })).toMatchObject({ status: 'PASS' })
  })

  it('reads the state file next to --pidfile', async () => {
    const env = { SVC_GATEWAY_PORT: '0' }
    const report = await runDoctor({ env, cwd: dir, importModule, loadTarget: fakeLoader(env), pidfile: 'run/x.pid' })
    expect(report.checks.find((c) => c.name === 'ui_upstream_state')!.detail).toContain(join(dir, 'run/x.pid.state.json'))
  })
})
