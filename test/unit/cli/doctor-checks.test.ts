import { createServer, type Server } from 'node:net'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolveSettings, flagsLayer } from '../../../src/settings/resolve.js'
import type { ResolvedSettings, SettingKey } from '../../../src/settings/schema.js'
import type { CheckRow, DoctorContext, SettingsContext } from '../../../src/cli/doctor/types.js'
import { nodeVersionRow, authExtra, metricsExtra, jwtClockSkew, dependencies } from '../../../src/cli/doctor/runtime-checks.js'
import { internalApiBase, publicBaseUrlPrecedence } from '../../../src/cli/doctor/env-checks.js'
import { maxProxyBody, proxyHeaders, publicBaseUrl, trustProxy } from '../../../src/cli/doctor/proxy-checks.js'
import { forwardHeaders, metricsPath, upstreamTimeouts } from '../../../src/cli/doctor/gateway-checks.js'
import { gatewayBind } from '../../../src/cli/doctor/bind-check.js'
import { uiUpstreamState } from '../../../src/cli/doctor/upstream-state-check.js'
import { writeStateFile, stateFilePath } from '../../../state/state-file.js'
import { sampleState } from '../../helpers/cli-state.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-doctor-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function settingsWith(values: Partial<Record<SettingKey, unknown>> = {}): ResolvedSettings {
  const flags: Partial<Record<SettingKey, { flag: string; value: unknown }>> = {}
  for (const [k, v] of Object.entries(values)) flags[k as SettingKey] = { flag: k, value: v }
  return resolveSettings([flagsLayer(flags)])
}

function ctx(values: Partial<Record<SettingKey, unknown>> = {}, over: Partial<DoctorContext> = {}): SettingsContext {
  return {
    env: {},
    cwd: dir,
    strict: false,
    target: 'app:app',
    settings: settingsWith(values),
    pidfile: join(dir, '.svc.pid'),
    running: null,
    importModule: (s) => import(s),
    ...over,
  } as SettingsContext
}

const missing = (name: string) => async (s: string) => {
  if (s === name) throw new Error(`Cannot find package '${name}'`)
  return {}
}

function one(rows: CheckRow | CheckRow[] | null): CheckRow {
  expect(rows).not.toBeNull()
  return Array.isArray(rows) ? rows[0]! : rows!
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)))
}

describe('runtime checks', () => {
  it('node_version fails below 20', () => {
    expect(nodeVersionRow('18.19.0').status).toBe('FAIL')
    expect(nodeVersionRow('v20.0.0')).toEqual({ name: 'node_version', status: 'PASS', detail: 'v20.0.0' })
    expect(nodeVersionRow('22.1.0').status).toBe('PASS')
  })

  it('dependencies fails naming a missing package', async () => {
    const row = one(await dependencies(ctx({}, { importModule: missing('undici') })))
    expect(row.status).toBe('FAIL')
    expect(row.detail).toContain('undici')
  })

  it('jwt_clock_skew and svc_auth_extra only speak up when SVC_JWT_*/SVC_OIDC_* are set', async () => {
    expect(one(jwtClockSkew(ctx())).status).toBe('PASS')
    expect(await authExtra(ctx())).toBeNull()
    const env = { SVC_JWT_ISSUER: 'https://idp', SVC_OIDC_BFF_SECRET: '', SVC_OTHER: 'x' }
    const skew = one(jwtClockSkew(ctx({}, { env })))
    expect(skew.status).toBe('WARN')
    expect(skew.detail).toContain('SVC_JWT_ISSUER')
    expect(skew.detail).not.toContain('SVC_OIDC_BFF_SECRET')
    expect(one(await authExtra(ctx({}, { env })))).toEqual({ name: 'svc_auth_extra', status: 'PASS', detail: 'jose importable' })
    const row = one(await authExtra(ctx({}, { env, importModule: missing('jose') })))
    expect(row.status).toBe('FAIL')
    expect(row.detail).toContain('npm install jose')
  })

  it('svc_metrics_extra only when metrics are enabled', async () => {
    expect(await metricsExtra(ctx())).toBeNull()
    const on = { enable_gateway_prometheus_metrics: true }
    expect(one(await metricsExtra(ctx(on))).status).toBe('PASS')
    expect(one(await metricsExtra(ctx(on, { importModule: missing('prom-client') }))).status).toBe('FAIL')
  })
})

describe('environment checks', () => {
  it('SVC_INTERNAL_API_BASE: unset, invalid, wrong path, matching', () => {
    const row = (value: string | undefined, mount = '/api') =>
      one(internalApiBase(ctx({ api_mount_path: mount }, { env: value === undefined ? {} : { SVC_INTERNAL_API_BASE: value } })))
    expect(row(undefined).status).toBe('PASS')
    expect(row('not a url').status).toBe('FAIL')
    expect(row('ftp://127.0.0.1/api').status).toBe('FAIL')
    expect(row('http://127.0.0.1:8000/api', '/api/v1')).toMatchObject({ status: 'WARN', detail: "path '/api' should match api_mount_path '/api/v1'" })
    expect(row('http://127.0.0.1:8000/api/', '/api')).toMatchObject({ status: 'PASS', detail: 'set and matches api_mount_path' })
  })

  it('public_base_url_precedence: no row without either variable; conflict warns, strict fails', () => {
    expect(publicBaseUrlPrecedence(ctx())).toBeNull()
    const env = { SVC_PUBLIC_BASE_URL: 'https://b', PUBLIC_BASE_URL: 'https://a' }
    expect(one(publicBaseUrlPrecedence(ctx({}, { env }))).status).toBe('WARN')
    expect(one(publicBaseUrlPrecedence(ctx({}, { env, strict: true }))).status).toBe('FAIL')
    expect(one(publicBaseUrlPrecedence(ctx({ strict_public_base_url: true }, { env }))).status).toBe('FAIL')
    expect(one(publicBaseUrlPrecedence(ctx({}, { env: { PUBLIC_BASE_URL: 'https://a' } }))).detail).toContain('fallback')
  })
})

describe('proxy checks', () => {
  it('proxy_headers warns for a root_path without trust_proxy, fails under --strict', () => {
    expect(one(proxyHeaders(ctx())).status).toBe('PASS')
    expect(one(proxyHeaders(ctx({ root_path: '/tools' }))).status).toBe('WARN')
    expect(one(proxyHeaders(ctx({ root_path: '/tools' }, { strict: true }))).status).toBe('FAIL')
    expect(one(proxyHeaders(ctx({ root_path: '/tools', trust_proxy: true }))).status).toBe('PASS')
  })

  it('trust_proxy warns when svc binds beyond loopback', () => {
    expect(one(trustProxy(ctx({ trust_proxy: true }))).status).toBe('PASS')
    expect(one(trustProxy(ctx({ trust_proxy: true, gateway_host: '0.0.0.0' }))).status).toBe('WARN')
    expect(one(trustProxy(ctx({ gateway_host: '0.0.0.0' }))).status).toBe('PASS')
  })

  it('public_base_url: invalid fails, path mismatch warns, missing under a root_path warns', () => {
    expect(one(publicBaseUrl(ctx({ public_base_url: 'example.com' }))).status).toBe('FAIL')
    expect(one(publicBaseUrl(ctx({ public_base_url: 'https://x/wrong', root_path: '/tools' }))).detail).toBe("path '/wrong' does not match root_path '/tools'")
    expect(one(publicBaseUrl(ctx({ public_base_url: 'https://x/tools/', root_path: '/tools' }))).status).toBe('PASS')
    expect(one(publicBaseUrl(ctx({ root_path: '/tools' }))).status).toBe('WARN')
    expect(one(publicBaseUrl(ctx())).detail).toBe('(empty)')
  })

  it('gateway_max_proxy_body warns for an unlimited body behind a trusted proxy', () => {
    expect(one(maxProxyBody(ctx())).detail).toBe('32 MiB')
    expect(one(maxProxyBody(ctx({ gateway_max_proxy_request_body_bytes: 0 }))).status).toBe('PASS')
    expect(one(maxProxyBody(ctx({ gateway_max_proxy_request_body_bytes: 0, trust_proxy: true }))).status).toBe('WARN')
  })
})

describe('gateway checks', () => {
  it('metrics_path warns when metrics are enabled under the API mount', () => {
    expect(one(metricsPath(ctx({ gateway_prometheus_metrics_path: '/api/metrics' }))).status).toBe('PASS')
    const row = one(metricsPath(ctx({ enable_gateway_prometheus_metrics: true, gateway_prometheus_metrics_path: '/api/metrics' })))
    expect(row.status).toBe('WARN')
    expect(row.detail).toContain('metrics are disabled')
    expect(one(metricsPath(ctx({ enable_gateway_prometheus_metrics: true, gateway_prometheus_metrics_path: '/apimetrics' }))).status).toBe('PASS')
  })

  it('gateway_upstream_timeouts warns below 5 s', () => {
    expect(one(upstreamTimeouts(ctx())).detail).toBe('HTTP connect timeout=10s; read timeout=120s')
    expect(one(upstreamTimeouts(ctx({ gateway_upstream_read_timeout_s: 2 }))).status).toBe('WARN')
    expect(one(upstreamTimeouts(ctx({ gateway_upstream_read_timeout_s: 2 }, { strict: true }))).status).toBe('FAIL')
  })

  it('forward headers: pass when empty, warn when set, rejected names warn (strict: fail)', () => {
    expect(forwardHeaders(ctx())).toEqual([expect.objectContaining({ name: 'gateway_forward_client_headers', status: 'PASS' })])
    const rows = forwardHeaders(ctx({ gateway_forward_client_headers: ['X-Tenant', 'Authorization', 'Cookie'] })) as CheckRow[]
    expect(rows.map((r) => [r.name, r.status])).toEqual([
      ['gateway_forward_client_headers', 'WARN'],
      ['gateway_forward_rejected_names', 'WARN'],
    ])
    expect(rows[1]!.detail).toContain('authorization, cookie')
    const strict = forwardHeaders(ctx({ gateway_forward_client_headers: ['authorization'] }, { strict: true })) as CheckRow[]
    expect(strict[1]).toMatchObject({ name: 'gateway_forward_rejected_names', status: 'FAIL' })
  })

  it('forward headers: more than 32 valid names are refused when settings resolve (doctor shows the settings row)', () => {
    const names = Array.from({ length: 33 }, (_, i) => `x-h${i}`)
    expect(() => settingsWith({ gateway_forward_client_headers: names })).toThrow(/at most 32 header names/)
  })
})

describe('gateway_bind', () => {
  it('passes for a free port and for port 0, fails for a taken one', async () => {
    const server = createServer()
    const port = await listen(server)
    try {
      expect(one(await gatewayBind(ctx({ gateway_port: 0 }))).status).toBe('PASS')
      const taken = one(await gatewayBind(ctx({ gateway_port: port })))
      expect(taken.status).toBe('FAIL')
      expect(taken.detail).toContain(`127.0.0.1:${port} is already in use`)
    } finally {
      server.close()
    }
    expect(one(await gatewayBind(ctx({ gateway_port: port }))).detail).toBe(`127.0.0.1:${port} is available`)
  })

  it('passes, naming the supervisor, when the running svc from the state file serves the port', async () => {
    const server = createServer()
    const port = await listen(server)
    try {
      const c = ctx({ gateway_port: port })
      await writeStateFile(stateFilePath(c.pidfile), sampleState({ supervisor_pid: process.pid, gateway_port: port }))
      expect(one(await gatewayBind(c))).toMatchObject({ status: 'PASS', detail: expect.stringContaining(`served by the running svc (supervisor pid ${process.pid})`) })
    } finally {
      server.close()
    }
  })

  it('fails for a host that does not resolve', async () => {
    const row = one(await gatewayBind(ctx({ gateway_host: 'no-such-host.invalid', gateway_port: 8123 })))
    expect(row.status).toBe('FAIL')
  })
})

describe('ui_upstream_state', () => {
  it('passes with no state file', async () => {
    const row = one(await uiUpstreamState(ctx()))
    expect(row).toMatchObject({ status: 'PASS', detail: expect.stringContaining('no running svc') })
  })

  it('fails for an invalid state file', async () => {
    const c = ctx()
    await writeFile(stateFilePath(c.pidfile), '{"version": 7}')
    expect(one(await uiUpstreamState(c)).status).toBe('FAIL')
  })

  it('warns for a stale state file', async () => {
    const c = ctx()
    await writeStateFile(stateFilePath(c.pidfile), sampleState({ supervisor_pid: 2 ** 31 - 2 }))
    expect(one(await uiUpstreamState(c))).toMatchObject({ status: 'WARN', detail: expect.stringContaining('not running') })
  })

  it('probes the UI upstream of a running supervisor', async () => {
    const server = createServer((socket) => socket.destroy())
    const port = await listen(server)
    const c = ctx()
    const path = stateFilePath(c.pidfile)
    try {
      await writeStateFile(path, sampleState({ supervisor_pid: process.pid, ui_upstream: `http://127.0.0.1:${port}` }))
      expect(one(await uiUpstreamState(c))).toMatchObject({ status: 'PASS', detail: expect.stringContaining('reachable') })
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
    expect(one(await uiUpstreamState(c))).toMatchObject({ status: 'WARN', detail: expect.stringContaining('unreachable') })
  })
})
