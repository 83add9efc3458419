import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { effectiveConfig, formatConfigText, type LoadedOptions } from '../../../src/cli/config/effective-config.js'
import { SETTING_KEYS } from '../../../src/settings/schema.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
function project(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-effective-'))
  dirs.push(dir)
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

/** Records which targets were imported; returns the given options as the app's. */
function loader(options: LoadedOptions['options'] = {}) {
  const calls: string[] = []
  return {
    calls,
    load: async (target: string, cwd: string): Promise<LoadedOptions> => {
      calls.push(target)
      return { options, file: join(cwd, 'app.ts'), exportName: 'app' }
    },
  }
}

describe('effectiveConfig', () => {
  it('names PUBLIC_BASE_URL as the source when it stands in for SVC_PUBLIC_BASE_URL', async () => {
    const l = loader()
    const c = await effectiveConfig({ flags: {}, env: { PUBLIC_BASE_URL: 'https://a.example.com' }, cwd: project(), loadOptions: l.load })
    expect(c.settings.public_base_url).toEqual({ value: 'https://a.example.com', source: 'env', from: 'PUBLIC_BASE_URL', redacted: false })
    expect(Object.keys(c.settings)).toEqual(SETTING_KEYS)
  })

  it('imports the default target only when its file exists; a given target always', async () => {
    const none = loader()
    const bare = await effectiveConfig({ flags: {}, env: {}, cwd: project(), loadOptions: none.load })
    expect(none.calls).toEqual([])
    expect(bare.app).toBeNull()
    expect(formatConfigText(bare)).toContain('(no app file found: new Svc options not read)')

    const present = loader({ workers: 3 })
    const withApp = await effectiveConfig({ flags: {}, env: {}, cwd: project({ 'app.ts': '' }), loadOptions: present.load })
    expect(present.calls).toEqual(['app:app'])
    expect(withApp.settings.workers).toMatchObject({ value: 3, source: 'options' })

    await expect(
      effectiveConfig({ flags: {}, env: { SVC_APP: 'missing.ts:app' }, cwd: project(), loadOptions: loader().load }),
    ).rejects.toMatchObject({ code: 'SVC_ERR_TARGET_NOT_FOUND' })
  })

  it('redacts a URL password but keeps the user, host and path; URLs without one are untouched', async () => {
    const c = await effectiveConfig({
      flags: {},
      env: { SVC_PUBLIC_BASE_URL: 'https://user:p%40ss@h.example.com:8443/tools', SVC_JWT_JWKS_URL: 'https://idp.example.com/jwks' },
      cwd: project(),
      loadOptions: loader().load,
    })
    expect(c.settings.public_base_url).toMatchObject({ value: 'https://user:<redacted>@h.example.com:8443/tools', redacted: true })
    expect(c.settings.jwt_jwks_url).toMatchObject({ value: 'https://idp.example.com/jwks', redacted: false })
  })

  it('redacts credentials on the ui_command line; a plain command line is shown as given', async () => {
    const secret = ['node', 'ui.js', '--port', '{port}', '--session-secret', 's3cr3t', '--redis=redis://u:pw@db:6379']
    const c = await effectiveConfig({ flags: {}, env: { SVC_UI_COMMAND: JSON.stringify(secret) }, cwd: project(), loadOptions: loader().load })
    expect(c.settings.ui_command).toMatchObject({
      value: ['node', 'ui.js', '--port', '{port}', '--session-secret', '<redacted>', '--redis=redis://u:<redacted>@db:6379'],
      redacted: true,
    })
    expect(formatConfigText(c)).not.toContain('s3cr3t')
    const plain = await effectiveConfig({ flags: {}, env: { SVC_UI_COMMAND: '["node","ui.js","{port}"]' }, cwd: project(), loadOptions: loader().load })
    expect(plain.settings.ui_command).toMatchObject({ value: ['node', 'ui.js', '{port}'], redacted: false })
  })

  it('a flag wins over env, file and options, and is named', async () => {
    const dir = project({ 'app.ts': '', 'svc.config.json': '{"log_level": "warn"}' })
    const c = await effectiveConfig({
      flags: { log_level: { flag: '--log-level', value: 'error' } },
      env: { SVC_LOG_LEVEL: 'debug' },
      cwd: dir,
      loadOptions: loader({ log_level: 'trace' }).load,
    })
    expect(c.settings.log_level).toEqual({ value: 'error', source: 'flag', from: '--log-level', redacted: false })
  })
})
