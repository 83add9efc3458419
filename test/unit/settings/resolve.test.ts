import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isSvcError, type SvcErrorCode } from '../../../src/errors.js'
import {
  CONFIG_FILE_NAME,
  configFileLayer,
  envLayer,
  flagsLayer,
  optionsLayer,
  resolveProcessSettings,
  resolveSettings,
  type SettingsLayer,
} from '../../../src/settings/resolve.js'
import { FIELDS, SETTING_KEYS } from '../../../src/settings/schema.js'
import { settingsToEnv } from '../../../supervisor/settings-env.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-settings-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

function writeConfig(content: unknown): string {
  const path = join(dir, CONFIG_FILE_NAME)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

/** The SvcError a call throws (fails the test when it does not throw one). */
function thrown(fn: () => unknown): { code: SvcErrorCode; message: string } {
  try {
    fn()
  } catch (err) {
    if (isSvcError(err)) return err
    throw err
  }
  throw new Error('expected an SvcError')
}

describe('defaults', () => {
  it('every setting is present, equal to its default, and the result is frozen', () => {
    const s = resolveSettings([])
    for (const key of SETTING_KEYS) expect(s[key], key).toEqual(FIELDS[key].default)
    expect(Object.isFrozen(s)).toBe(true)
  })
})

describe('precedence: defaults < options < svc.config.json < env < flags', () => {
  const layers = (upTo: number): SettingsLayer[] => {
    writeConfig({ workers: 3 })
    return [
      optionsLayer({ workers: 2 }),
      configFileLayer(dir),
      envLayer({ SVC_WORKERS: '4' }),
      flagsLayer({ workers: { flag: '--workers', value: '5' } }),
    ].slice(0, upTo)
  }

  it.each([
    [0, 1],
    [1, 2],
    [2, 3],
    [3, 4],
    [4, 5],
  ])('with the first %i layer(s), workers is %i', (upTo, expected) => {
    expect(resolveSettings(layers(upTo)).workers).toBe(expected)
  })

  it('applies key by key: a higher layer only overrides the keys it sets', () => {
    writeConfig({ title: 'From file' })
    const s = resolveSettings([optionsLayer({ title: 'From options', workers: 2 }), configFileLayer(dir), envLayer({ SVC_GATEWAY_PORT: '9001' })])
    expect(s).toMatchObject({ title: 'From file', workers: 2, gateway_port: 9001 })
  })

  it('resolveProcessSettings stacks options < svc.config.json < env', () => {
    writeConfig({ title: 'file', root_path: '/file' })
    const s = resolveProcessSettings({ title: 'options', root_path: '/options', workers: 2 }, { SVC_ROOT_PATH: '/env' }, dir)
    expect(s).toMatchObject({ title: 'file', root_path: '/env', workers: 2 })
  })

  it('flag values handed to children as SVC_* env resolve to the same values', () => {
    const flags = {
      trust_proxy: { flag: '--proxy-headers', value: true },
      workers: { flag: '--workers', value: '3' },
      root_path: { flag: '--root-path', value: '/tools/' },
      no_pidfile: { flag: '--no-pidfile', value: true },
    }
    const direct = resolveSettings([flagsLayer(flags)])
    const values = Object.fromEntries(Object.entries(flags).map(([k, f]) => [k, f.value]))
    const viaEnv = resolveSettings([envLayer(settingsToEnv(values))])
    expect(viaEnv).toEqual(direct)
    expect(viaEnv).toMatchObject({ trust_proxy: true, workers: 3, root_path: '/tools', no_pidfile: true })
  })
})

describe('errors name the source, the value and what is allowed', () => {
  it('environment variable', () => {
    const err = thrown(() => resolveSettings([envLayer({ SVC_GATEWAY_PORT: 'eighty' })]))
    expect(err.code).toBe('SVC_ERR_CONFIG_INVALID')
    expect(err.message).toContain('environment variable SVC_GATEWAY_PORT: "eighty" is not valid for gateway_port: ')
    expect(err.message).toContain('gateway_port: must be a port from 0 to 65535')
  })

  it('flag', () => {
    const err = thrown(() => resolveSettings([flagsLayer({ workers: { flag: '--workers', value: '0' } })]))
    expect(err.message).toContain('flag --workers: 0 is not valid for workers: ')
    expect(err.message).toContain('workers: must be an integer from 1 to 64')
  })

  it('a number names the range it allows, and the unit, from every source', () => {
    const err = thrown(() =>
      resolveSettings([
        optionsLayer({ workers: 65 }),
        envLayer({ SVC_SHUTDOWN_GRACE_S: 'soon', SVC_GATEWAY_MAX_MEMORY_MB: '-1' }),
        flagsLayer({ gateway_port: { flag: '--port', value: 'abc' } }),
      ]),
    )
    expect(err.message.split('\n').slice(1).map((l) => l.trim())).toEqual([
      'flag --port: "abc" is not valid for gateway_port: must be a port from 0 to 65535',
      'new Svc({ workers }): 65 is not valid for workers: must be an integer from 1 to 64',
      'environment variable SVC_GATEWAY_MAX_MEMORY_MB: -1 is not valid for gateway_max_memory_mb: must be an integer of 0 or more (MB)',
      'environment variable SVC_SHUTDOWN_GRACE_S: "soon" is not valid for shutdown_grace_s: must be a number from 0 to 86400 (seconds)',
    ])
  })

  it('integers from a flag or the environment are plain decimal digits: 1e3, 0x50, 80.0, +80 are refused', () => {
    for (const value of ['1e3', '0x50', ' 0x50 ', '80.0', '0b1010', '+80']) {
      const err = thrown(() => resolveSettings([flagsLayer({ gateway_port: { flag: '--port', value } })]))
      expect(err.code).toBe('SVC_ERR_CONFIG_INVALID')
      expect(err.message).toContain(`flag --port: ${JSON.stringify(value)} is not valid for gateway_port: must be a port from 0 to 65535, written as plain decimal digits like 8000`)
    }
    const err = thrown(() => resolveSettings([envLayer({ SVC_WORKERS: '0x2', SVC_UI_MAX_UPLOAD_BYTES: '1e6' })]))
    expect(err.message).toContain('environment variable SVC_WORKERS: "0x2" is not valid for workers: must be an integer from 1 to 64, written as plain decimal digits like 1')
    expect(err.message).toContain('environment variable SVC_UI_MAX_UPLOAD_BYTES: "1e6" is not valid for ui_max_upload_bytes')
    expect(resolveSettings([envLayer({ SVC_GATEWAY_PORT: '80', SVC_WORKERS: '02' })])).toMatchObject({ gateway_port: 80, workers: 2 })
  })

  it('seconds take a plain decimal (with an exponent, as JSON writes tiny numbers) but no hex', () => {
    expect(resolveSettings([envLayer({ SVC_SHUTDOWN_GRACE_S: '.5', SVC_UI_RUN_TIMEOUT_S: '2.5', SVC_REDIS_TIMEOUT_S: '1e-1' })])).toMatchObject({
      shutdown_grace_s: 0.5,
      ui_run_timeout_s: 2.5,
      redis_timeout_s: 0.1,
    })
    const err = thrown(() => resolveSettings([envLayer({ SVC_SHUTDOWN_GRACE_S: '0x10', SVC_UI_RUN_TIMEOUT_S: '2 s' })]))
    expect(err.message).toContain('environment variable SVC_SHUTDOWN_GRACE_S: "0x10" is not valid for shutdown_grace_s: must be a number from 0 to 86400 (seconds), written as plain decimal digits like 10')
    expect(err.message).toContain('environment variable SVC_UI_RUN_TIMEOUT_S: "2 s" is not valid for ui_run_timeout_s')
  })

  it('config file key', () => {
    const path = writeConfig({ workers: 'two' })
    const err = thrown(() => resolveSettings([configFileLayer(dir)]))
    expect(err.message).toContain(`${path} key "workers": "two" is not valid for workers`)
  })

  it('new Svc options', () => {
    const err = thrown(() => resolveSettings([optionsLayer({ log_level: 'loud' })]))
    expect(err.message).toContain('new Svc({ log_level }): "loud" is not valid for log_level: ')
    expect(err.message).toContain('"trace"|"debug"|"info"|"warn"|"error"|"fatal"')
  })

  it('lists every bad setting, one per line, from whichever source won', () => {
    const err = thrown(() =>
      resolveSettings([optionsLayer({ workers: 0 }), envLayer({ SVC_DEBUG: 'maybe', SVC_WORKERS: '65' })]),
    )
    const lines = err.message.split('\n')
    expect(lines[0]).toBe('invalid settings:')
    expect(lines.slice(1).map((l) => l.trim().split(':')[0])).toEqual(['environment variable SVC_DEBUG', 'environment variable SVC_WORKERS'])
  })

  it('invalid JSON asks for JSON and shows the example', () => {
    const err = thrown(() => resolveSettings([envLayer({ SVC_CORS_ALLOW_ORIGINS: 'https://a.example' })]))
    expect(err.message).toContain('environment variable SVC_CORS_ALLOW_ORIGINS: (not valid JSON) is not valid for cors_allow_origins: write it as JSON, e.g. ["https://app.example.com"]')
  })

  it('an unknown option key is an error', () => {
    const err = thrown(() => optionsLayer({ wrokers: 2 }))
    expect(err.code).toBe('SVC_ERR_CONFIG_INVALID')
    expect(err.message).toContain('unknown setting "wrokers"')
  })

  it('every unknown option key at once, each with the closest setting', () => {
    const err = thrown(() => optionsLayer({ wrokers: 2, title: 'ok', gateway_prot: 1, zzzzzz: 3 }))
    expect(err.message).toBe(
      'new Svc({ wrokers, gateway_prot, zzzzzz }): unknown settings "wrokers" (did you mean "workers"?), "gateway_prot" (did you mean "gateway_port"?), "zzzzzz"; known settings are listed in docs/configuration.md',
    )
  })
})

describe('svc.config.json', () => {
  it('reports every unknown key at once, each with the closest known name', () => {
    const path = writeConfig({ gateway_prot: 8000, workers: 2, wrokers: 2, port: 1, zzzzzz: true })
    const err = thrown(() => configFileLayer(dir))
    expect(err.code).toBe('SVC_ERR_CONFIG_FILE')
    expect(err.message).toBe(
      `${path}: unknown keys "gateway_prot" (did you mean "gateway_port"?), "wrokers" (did you mean "workers"?), "port" (did you mean "gateway_port"?), "zzzzzz"; known keys are listed in docs/configuration.md`,
    )
  })

  it('a missing file contributes nothing', () => {
    expect(configFileLayer(dir).values).toEqual({})
  })

  it('takes typed JSON values and the target; ignores $schema', () => {
    writeConfig({ $schema: './schema.json', target: 'src/app.ts:portal', trust_proxy: true, cors_allow_origins: ['https://a.example'] })
    const s = resolveSettings([configFileLayer(dir)])
    expect(s).toMatchObject({ target: 'src/app.ts:portal', trust_proxy: true, cors_allow_origins: ['https://a.example'] })
  })

  it('does not parse strings the way env does ("yes" is not a boolean there)', () => {
    writeConfig({ trust_proxy: 'yes' })
    expect(thrown(() => resolveSettings([configFileLayer(dir)])).message).toContain('key "trust_proxy": "yes" is not valid')
  })

  it.each([
    ['not JSON', '{"workers": 2', 'is not valid JSON'],
    ['an array', '[1]', 'must hold a JSON object of settings, got an array'],
    ['a string', '"x"', 'got string'],
    ['an unknown key', '{"wrokers": 2}', 'unknown key "wrokers"'],
    ['an inherited name as key', '{"constructor": 1}', 'unknown key "constructor"'],
    ['__proto__ as key', '{"__proto__": {"debug": true}}', 'unknown key "__proto__"'],
  ])('%s → SVC_ERR_CONFIG_FILE', (_what, text, fragment) => {
    const path = writeConfig(text)
    const err = thrown(() => configFileLayer(dir))
    expect(err.code).toBe('SVC_ERR_CONFIG_FILE')
    expect(err.message).toContain(path)
    expect(err.message).toContain(fragment)
  })
})

describe('parsing strings from env and flags', () => {
  const env = (vars: Record<string, string>) => resolveSettings([envLayer(vars)])

  it.each(['1', 'true', 'YES', ' on '])('boolean %j is true', (raw) => {
    expect(env({ SVC_TRUST_PROXY: raw }).trust_proxy).toBe(true)
  })

  it.each(['0', 'false', 'No', 'off', ''])('boolean %j is false', (raw) => {
    expect(env({ SVC_TRUST_PROXY: raw }).trust_proxy).toBe(false)
  })

  it('numbers are trimmed (a value read from a file ends in a newline); fractions allowed for seconds', () => {
    expect(env({ SVC_GATEWAY_PORT: ' 8080\n', SVC_SHUTDOWN_GRACE_S: ' 2.5 ' })).toMatchObject({ gateway_port: 8080, shutdown_grace_s: 2.5 })
  })

  it('name lists: comma-separated or a JSON array', () => {
    expect(env({ SVC_GATEWAY_FORWARD_CLIENT_HEADERS: 'x-tenant, x-locale,,' }).gateway_forward_client_headers).toEqual(['x-tenant', 'x-locale'])
    expect(env({ SVC_GATEWAY_FORWARD_CLIENT_HEADERS: '["x-a","x-b"]' }).gateway_forward_client_headers).toEqual(['x-a', 'x-b'])
    expect(env({ SVC_GATEWAY_FORWARD_CLIENT_HEADERS: '' }).gateway_forward_client_headers).toEqual([])
  })

  it('the forward allowlist holds at most 32 valid names; never-forwarded and invalid ones do not count', () => {
    const names = Array.from({ length: 32 }, (_, i) => `x-h${i}`)
    const ok = env({ SVC_GATEWAY_FORWARD_CLIENT_HEADERS: [...names, 'cookie', 'X-Forwarded-For', 'bad name'].join(',') })
    expect(ok.gateway_forward_client_headers).toHaveLength(35)
    const err = thrown(() => env({ SVC_GATEWAY_FORWARD_CLIENT_HEADERS: [...names, 'x-h32'].join(',') }))
    expect(err.message).toContain('environment variable SVC_GATEWAY_FORWARD_CLIENT_HEADERS')
    expect(err.message).toContain('at most 32 header names')
  })

  it('ui_command: a JSON array with placeholders kept; empty means unset; a shell line is refused', () => {
    expect(env({ SVC_UI_COMMAND: '["npx","vite","--port","{port}","--base","{base_path}/"]' }).ui_command).toEqual(['npx', 'vite', '--port', '{port}', '--base', '{base_path}/'])
    expect(env({ SVC_UI_COMMAND: ' ' }).ui_command).toBeNull()
    expect(thrown(() => env({ SVC_UI_COMMAND: 'npx vite' })).message).toContain('SVC_UI_COMMAND: (not valid JSON)')
  })

  it('mount paths are normalised; empty api mount means /api; dot segments are refused', () => {
    expect(env({ SVC_API_MOUNT_PATH: ' api/ ', SVC_ROOT_PATH: '/tools/' })).toMatchObject({ api_mount_path: '/api', root_path: '/tools' })
    expect(env({ SVC_API_MOUNT_PATH: '/' }).api_mount_path).toBe('/api')
    expect(env({ SVC_ROOT_PATH: '/' }).root_path).toBe('')
    expect(env({ SVC_GATEWAY_PROMETHEUS_METRICS_PATH: '' }).gateway_prometheus_metrics_path).toBe('/__svc/metrics')
    expect(thrown(() => env({ SVC_ROOT_PATH: '/a/../b' })).message).toContain('environment variable SVC_ROOT_PATH')
    expect(thrown(() => env({ SVC_API_MOUNT_PATH: '/api%2f' })).message).toContain('must be a plain path')
  })

  it('the target reads SVC_APP', () => {
    expect(env({ SVC_APP: 'main.ts:portal' }).target).toBe('main.ts:portal')
  })
})

describe('PUBLIC_BASE_URL fallback', () => {
  it('is used when SVC_PUBLIC_BASE_URL is not set, and named as the source', () => {
    const layer = envLayer({ PUBLIC_BASE_URL: 'https://portal.example.com' })
    expect(resolveSettings([layer]).public_base_url).toBe('https://portal.example.com')
    expect(layer.source('public_base_url')).toEqual({ kind: 'env', name: 'PUBLIC_BASE_URL' })
  })

  it('loses to SVC_PUBLIC_BASE_URL', () => {
    const layer = envLayer({ PUBLIC_BASE_URL: 'https://legacy.example.com', SVC_PUBLIC_BASE_URL: 'https://portal.example.com' })
    expect(resolveSettings([layer]).public_base_url).toBe('https://portal.example.com')
    expect(layer.source('public_base_url')).toEqual({ kind: 'env', name: 'SVC_PUBLIC_BASE_URL' })
  })

  it('sits in the env layer: above svc.config.json, below nothing else set', () => {
    writeConfig({ public_base_url: 'https://file.example.com' })
    expect(resolveSettings([configFileLayer(dir), envLayer({ PUBLIC_BASE_URL: 'https://env.example.com' })]).public_base_url).toBe('https://env.example.com')
    expect(resolveSettings([configFileLayer(dir), envLayer({ PUBLIC_BASE_URL: '' })]).public_base_url).toBe('https://file.example.com')
  })
})

describe('debug mode', () => {
  it('turns on the access log and request logging and lowers info to debug', () => {
    const s = resolveSettings([envLayer({ SVC_DEBUG: '1' })])
    expect(s).toMatchObject({ debug: true, enable_gateway_access_log: true, enable_request_logging: true, log_level: 'debug' })
    expect(Object.isFrozen(s)).toBe(true)
  })

  it('keeps a level other than info', () => {
    expect(resolveSettings([flagsLayer({ debug: { flag: '--debug', value: true }, log_level: { flag: '--log-level', value: 'warn' } })]).log_level).toBe('warn')
  })

  it('changes nothing when off', () => {
    expect(resolveSettings([envLayer({ SVC_DEBUG: 'off' })])).toMatchObject({ enable_gateway_access_log: false, enable_request_logging: false, log_level: 'info' })
  })
})
