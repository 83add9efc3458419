import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPO } from '../helpers/svc-process.js'
import { runSvcCli, tempDir } from '../helpers/cli-run.js'

interface Row {
  value: unknown
  source: 'default' | 'options' | 'file' | 'env' | 'flag'
  from: string | null
  redacted: boolean
  adjusted_by?: string
}
interface Config {
  target: string
  app: { file: string; export: string } | null
  config_file: string | null
  settings: Record<string, Row>
}

const OPTIONS_SECRET = 'options-secret-value-1'
const ENV_SECRET = 'env-secret-value-2'
const URL_PASSWORD = 'url-password-3'

/** A project with every layer: `new Svc({...})` options, svc.config.json, and (per test) env and flags. */
async function project(options = `{ title: 'Opts', workers: 3, jwt_hs256_secret: '${OPTIONS_SECRET}', root_path: '/opt' }`): Promise<string> {
  const dir = await tempDir('svc-config-')
  await writeFile(join(dir, 'package.json'), '{ "type": "module" }\n')
  await writeFile(join(dir, 'app.ts'), `import { Svc } from ${JSON.stringify(`${REPO}dist/src/app.js`)}\nexport const app = new Svc(${options})\n`)
  await writeFile(join(dir, 'svc.config.json'), JSON.stringify({ workers: 2, api_mount_path: '/v1', gateway_port: 1234 }))
  return dir
}

const ENV = {
  SVC_GATEWAY_PORT: '9100',
  SVC_OIDC_BFF_SECRET: ENV_SECRET,
  SVC_PUBLIC_BASE_URL: `https://ops:${URL_PASSWORD}@svc.example.com/tools`,
}

describe('svc config', () => {
  it('--json: every setting with its value and source, each layer above the one before', async () => {
    const dir = await project()
    const r = await runSvcCli(['config', 'app.ts:app', '--workers', '5', '--debug', '--json'], { cwd: dir, env: ENV })
    expect(r.code, r.stderr).toBe(0)
    const config = JSON.parse(r.stdout) as Config
    expect(Object.keys(config)).toEqual(['target', 'app', 'config_file', 'settings', 'secrets'])
    expect(config.target).toBe('app.ts:app')
    expect(config.app).toEqual({ file: join(dir, 'app.ts'), export: 'app' })
    expect(config.config_file).toBe(join(dir, 'svc.config.json'))
    const s = config.settings
    expect(s.title).toEqual({ value: 'Opts', source: 'options', from: 'new Svc({...})', redacted: false })
    expect(s.root_path).toMatchObject({ value: '/opt', source: 'options' })
    expect(s.api_mount_path).toEqual({ value: '/v1', source: 'file', from: join(dir, 'svc.config.json'), redacted: false })
    expect(s.gateway_port).toEqual({ value: 9100, source: 'env', from: 'SVC_GATEWAY_PORT', redacted: false })
    expect(s.workers).toEqual({ value: 5, source: 'flag', from: '--workers', redacted: false })
    expect(s.gateway_host).toEqual({ value: '127.0.0.1', source: 'default', from: null, redacted: false })
    expect(s.log_level).toEqual({ value: 'debug', source: 'default', from: null, redacted: false, adjusted_by: 'debug' })
    for (const row of Object.values(s)) expect(Object.keys(row).sort()).toEqual(expect.arrayContaining(['from', 'redacted', 'source', 'value']))
    expect(Object.keys(s)).toContain('shutdown_grace_s')
  })

  it('redacts secrets from options and env, and the password of a URL, in JSON and text', async () => {
    const dir = await project()
    for (const args of [['config', '--json'], ['config']]) {
      const r = await runSvcCli(args, { cwd: dir, env: ENV })
      expect(r.code, r.stderr).toBe(0)
      for (const secret of [OPTIONS_SECRET, ENV_SECRET, URL_PASSWORD]) expect(r.stdout + r.stderr).not.toContain(secret)
    }
    const config = JSON.parse((await runSvcCli(['config', '--json'], { cwd: dir, env: ENV })).stdout) as Config
    expect(config.settings.jwt_hs256_secret).toEqual({ value: '<redacted>', source: 'options', from: 'new Svc({...})', redacted: true })
    expect(config.settings.oidc_bff_secret).toEqual({ value: '<redacted>', source: 'env', from: 'SVC_OIDC_BFF_SECRET', redacted: true })
    expect(config.settings.public_base_url).toMatchObject({ value: 'https://ops:<redacted>@svc.example.com/tools', redacted: true })
    // An unset secret says so instead of hiding that it is empty.
    expect(config.settings.jwt_jwks_url).toMatchObject({ value: '', redacted: false })
  })

  it('text: a header naming the app and file, then one row per setting with its source', async () => {
    const dir = await project()
    const r = await runSvcCli(['config', '--port', '0'], { cwd: dir, env: ENV })
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines[0]).toBe(`target: app:app (${join(dir, 'app.ts')}, export "app")`)
    expect(lines[1]).toBe(`config file: ${join(dir, 'svc.config.json')}`)
    const row = (key: string): string => lines.find((l) => l.startsWith(`${key} `)) ?? ''
    expect(row('gateway_port')).toMatch(/^gateway_port +0 +flag \(--port\)$/)
    expect(row('workers')).toMatch(/^workers +2 +file \(.*svc\.config\.json\)$/)
    expect(row('title')).toMatch(/^title +"Opts" +options \(new Svc\(\{\.\.\.\}\)\)$/)
    expect(row('oidc_bff_secret')).toMatch(/^oidc_bff_secret +"<redacted>" +env \(SVC_OIDC_BFF_SECRET\)$/)
  })

  it('works without an app file: defaults, file and env only', async () => {
    const dir = await tempDir('svc-config-')
    await writeFile(join(dir, 'svc.config.json'), '{ "title": "No app" }')
    const r = await runSvcCli(['config', '--json'], { cwd: dir })
    expect(r.code, r.stderr).toBe(0)
    const config = JSON.parse(r.stdout) as Config
    expect(config.app).toBeNull()
    expect(config.settings.title).toMatchObject({ value: 'No app', source: 'file' })
  })

  it('exit 2 naming the bad value and where it came from: flag, env, file key, options, target', async () => {
    const dir = await project()
    const flag = await runSvcCli(['config', '--port', 'eighty'], { cwd: dir })
    expect(flag.code).toBe(2)
    expect(flag.stderr).toContain('flag --port: "eighty" is not valid for gateway_port')
    expect(flag.stdout).toBe('')
    const env = await runSvcCli(['config', '--json'], { cwd: dir, env: { SVC_WORKERS: '0' } })
    expect(env.code).toBe(2)
    expect(env.stderr).toContain('environment variable SVC_WORKERS: 0 is not valid for workers')
    const missing = await runSvcCli(['config', 'nope.ts:app'], { cwd: dir })
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('cannot find the app module "nope.ts"')
    await writeFile(join(dir, 'svc.config.json'), '{ "wokers": 2 }')
    const file = await runSvcCli(['config'], { cwd: dir })
    expect(file.code).toBe(2)
    expect(file.stderr).toContain('unknown key "wokers"')
    const badOptions = await project(`{ title: '' }`)
    const options = await runSvcCli(['config'], { cwd: badOptions })
    expect(options.code).toBe(2)
    expect(options.stderr).toContain('new Svc({ title }): "" is not valid for title')
  })
})
