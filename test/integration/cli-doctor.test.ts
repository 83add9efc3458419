import { createServer } from 'node:net'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { stateFilePath } from '../../state/state-file.js'
import { BASIC_APP, runSvcCli, tempDir, writeTempApp } from '../helpers/cli-run.js'

interface JsonReport {
  status: string
  target: string
  warnings_only: boolean
  checks: { name: string; status: string; detail: string }[]
}

const ROW = /^(PASS|WARN|FAIL)  [A-Za-z0-9_.]+: .+$/

async function takenPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return (server.address() as { port: number }).port
}

describe('svc doctor', () => {
  it('prints a header and one PASS/WARN/FAIL row per check, exit 0 when nothing fails', async () => {
    const dir = await tempDir('svc-doctor-')
    const r = await runSvcCli(['doctor', BASIC_APP], { cwd: dir, env: { SVC_GATEWAY_PORT: '0' } })
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines.slice(0, 2)).toEqual(['svc doctor', ''])
    for (const line of lines.slice(2)) expect(line).toMatch(ROW)
    expect(lines).toContain(`PASS  import_target: ${BASIC_APP} (${BASIC_APP.slice(0, -4)}, export "app")`)
    expect(lines).toContain(`PASS  ui_upstream_state: no running svc (no state file at ${join(dir, '.svc.pid.state.json')})`)
    expect(lines.some((l) => l.startsWith('PASS  node_version: v'))).toBe(true)
  })

  it('--json: one object, three keys per check, exit 1 on FAIL rows', async () => {
    const dir = await tempDir('svc-doctor-')
    const port = await takenPort()
    await writeFile(stateFilePath(join(dir, '.svc.pid')), '{"version": 1}')
    const r = await runSvcCli(['doctor', 'missing.ts:app', '--json'], { cwd: dir, env: { SVC_GATEWAY_PORT: String(port) } })
    expect(r.code).toBe(1)
    const report = JSON.parse(r.stdout) as JsonReport
    expect(report).toMatchObject({ status: 'fail', target: 'missing.ts:app', warnings_only: false })
    for (const check of report.checks) expect(Object.keys(check).sort()).toEqual(['detail', 'name', 'status'])
    const byName = new Map(report.checks.map((c) => [c.name, c]))
    expect(byName.get('import_target')).toMatchObject({ status: 'FAIL', detail: expect.stringContaining('cannot find the app module "missing.ts"') })
    expect(byName.get('gateway_bind')).toMatchObject({ status: 'FAIL', detail: expect.stringContaining(`127.0.0.1:${port} is already in use`) })
    expect(byName.get('ui_upstream_state')).toMatchObject({ status: 'FAIL', detail: expect.stringContaining('svc state format') })
  })

  it('--warnings-only reports FAIL rows but exits 0 with status warn', async () => {
    const dir = await tempDir('svc-doctor-')
    const r = await runSvcCli(['doctor', '--json', '--warnings-only'], { cwd: dir, env: { SVC_GATEWAY_PORT: 'eighty' } })
    expect(r.code).toBe(0)
    const report = JSON.parse(r.stdout) as JsonReport
    expect(report).toMatchObject({ status: 'warn', target: 'app:app', warnings_only: true })
    expect(report.checks.find((c) => c.name === 'settings')).toMatchObject({ status: 'FAIL', detail: expect.stringContaining('SVC_GATEWAY_PORT') })
  })

  it('a bad --port or --workers is a FAIL settings row naming the value; no row claims to judge a start with it', async () => {
    const dir = await tempDir('svc-doctor-')
    const r = await runSvcCli(['doctor', BASIC_APP, '--json', '--port', 'abc', '--workers', '0x'], { cwd: dir })
    expect(r.code, r.stderr).toBe(1)
    const byName = new Map((JSON.parse(r.stdout) as JsonReport).checks.map((c) => [c.name, c]))
    expect(byName.get('settings')).toMatchObject({ status: 'FAIL', detail: expect.stringContaining('flag --port: "abc" is not valid for gateway_port: must be a port from 0 to 65535') })
    expect(byName.get('settings')!.detail).toContain('flag --workers: "0x" is not valid for workers')
    expect(byName.get('running_tree')).toMatchObject({ detail: expect.stringContaining('the rows below that need settings are skipped until the settings row passes') })
    expect(byName.get('gateway_bind')).toMatchObject({ status: 'WARN', detail: expect.stringContaining('skipped: the settings are invalid') })
  })

  it('--strict turns deployment advice into FAIL rows and exit 1', async () => {
    const dir = await tempDir('svc-doctor-')
    const env = { SVC_GATEWAY_PORT: '0', SVC_ROOT_PATH: '/tools', SVC_GATEWAY_FORWARD_CLIENT_HEADERS: 'x-tenant,authorization' }
    const relaxed = await runSvcCli(['doctor', BASIC_APP], { cwd: dir, env })
    expect(relaxed.code).toBe(0)
    expect(relaxed.stdout).toMatch(/^WARN  proxy_headers: root_path \/tools is set but trust_proxy is off/m)
    expect(relaxed.stdout).toMatch(/^WARN  gateway_forward_rejected_names: allowlist contained rejected names authorization/m)
    const strict = await runSvcCli(['doctor', BASIC_APP, '--strict'], { cwd: dir, env })
    expect(strict.code).toBe(1)
    expect(strict.stdout).toMatch(/^FAIL  proxy_headers: /m)
    expect(strict.stdout).toMatch(/^FAIL  gateway_forward_rejected_names: /m)
    // Plain reminders stay WARN under --strict.
    expect(strict.stdout).toMatch(/^WARN  gateway_forward_client_headers: 1 header name\(s\)/m)
  })

  it('exits once it has reported, even when the app keeps the event loop busy', async () => {
    const dir = await tempDir('svc-doctor-')
    const target = await writeTempApp(dir, 'setInterval(() => {}, 1000)')
    const r = await runSvcCli(['doctor', target, '--json'], { cwd: dir, env: { SVC_GATEWAY_PORT: '0' }, timeoutMs: 15_000 })
    expect(r.code).toBe(0)
    expect((JSON.parse(r.stdout) as JsonReport).checks.find((c) => c.name === 'import_target')?.status).toBe('PASS')
  })
})
